package io.xmit.transport.nic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An open NIC device: its ports ({@link NicDriver}s) and, once started, its interrupt thread, which waits on
 * all RX queues' eventfds with epoll (inside the shim) and hands each signal to an {@link RxInterruptHandler}.
 * <p>
 * Close stops the interrupt thread, then closes the device in the shim; every port handle then answers
 * {@code -EBADF}. Close must not overlap burst calls on the ports: stop the stages that drive them first.
 */
public final class NicDevice implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(NicDevice.class);
    private static final int ERROR_LENGTH = 256;
    private static final int IRQ_BATCH = 256;
    private static final long IRQ_JOIN_MILLIS = 5_000;
    private static final AtomicInteger DEVICES = new AtomicInteger();

    private final NicSpec spec;
    private final List<NicPort> ports;
    private final String name;
    private Thread interruptThread;
    private boolean closed;

    private NicDevice(final NicSpec spec, final List<NicPort> ports)
    {
        this.spec = spec;
        this.ports = ports;
        this.name = spec.backend().label() + "-" + DEVICES.incrementAndGet();
    }

    /**
     * Opens a device from a spec string such as {@code loop:tx=4,rx=4,ring=1024,rate=0}.
     *
     * @throws IllegalArgumentException naming the bad key or value.
     * @throws IllegalStateException if the shim cannot be loaded.
     * @throws NicException if the shim refuses to open the device.
     */
    public static NicDevice open(final String spec)
    {
        return open(NicSpec.parse(spec));
    }

    /**
     * Opens a device from a parsed spec.
     *
     * @throws IllegalStateException if the shim cannot be loaded.
     * @throws NicException if the shim refuses to open the device.
     */
    public static NicDevice open(final NicSpec spec)
    {
        NativeShim.ensureLoaded();
        final String text = spec.toString();
        final long[] handles = new long[spec.backend().ports()];
        final int opened;
        final String shimMessage;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment specText = arena.allocateFrom(text);
            final MemorySegment handlesOut = arena.allocate(JAVA_LONG, handles.length);
            final MemorySegment error = arena.allocate(ERROR_LENGTH);
            opened = (int)NativeShim.OPEN.invokeExact(specText, handlesOut, handles.length, error, ERROR_LENGTH);
            shimMessage = error.getString(0, StandardCharsets.UTF_8);
            for (int i = 0; i < handles.length; i++)
            {
                handles[i] = handlesOut.getAtIndex(JAVA_LONG, i);
            }
        }
        catch (final Throwable ex)
        {
            throw NicPort.downcallFailed("xmit_nic_open", ex);
        }
        if (opened < 0)
        {
            throw new NicException("NIC shim refused to open '" + text + "'" +
                (shimMessage.isEmpty() ? "" : " (" + shimMessage + ")"), opened);
        }
        if (opened != handles.length)
        {
            closeHandle(handles[0]);
            throw new IllegalStateException("xmit NIC shim opened '" + text + "' with " + opened + " ports; expected " +
                handles.length);
        }
        final NicPort[] ports = new NicPort[opened];
        try
        {
            for (int i = 0; i < opened; i++)
            {
                ports[i] = NicPort.of(handles[i]);
            }
        }
        catch (final RuntimeException ex)
        {
            closeHandle(handles[0]);
            throw ex;
        }
        return new NicDevice(spec, List.of(ports));
    }

    /** The spec the device was opened with. */
    public NicSpec spec()
    {
        return spec;
    }

    /** How many ports the device has (loop: 2, null: 1). */
    public int portCount()
    {
        return ports.size();
    }

    /**
     * @param index 0 for port A, 1 for port B.
     */
    public NicDriver port(final int index)
    {
        if (index < 0 || index >= ports.size())
        {
            throw new IllegalArgumentException("port " + index + " does not exist; device " + spec + " has ports 0.." +
                (ports.size() - 1));
        }
        return ports.get(index);
    }

    /**
     * Starts the device's interrupt thread, which calls {@code handler} once per signalled, armed RX queue.
     *
     * @throws IllegalStateException if already started or closed.
     */
    public synchronized void startInterrupts(final RxInterruptHandler handler)
    {
        if (closed)
        {
            throw new IllegalStateException("device " + name + " is closed");
        }
        if (interruptThread != null)
        {
            throw new IllegalStateException("device " + name + " already has an interrupt thread");
        }
        interruptThread = Thread.ofPlatform().daemon().name("xmit-irq-" + name)
            .start(() -> waitForInterrupts(handler));
    }

    private void waitForInterrupts(final RxInterruptHandler handler)
    {
        final long handle = ports.getFirst().handle();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment signalled = arena.allocate(JAVA_INT, IRQ_BATCH);
            while (true)
            {
                final int count = (int)NativeShim.IRQ_WAIT.invokeExact(handle, signalled, IRQ_BATCH, -1);
                if (count == -Errno.ECANCELED || count == -Errno.EBADF)
                {
                    return;
                }
                if (count < 0)
                {
                    LOG.error("device {}: interrupt wait failed: {}; the interrupt thread stops", name,
                        Errno.describe(count));
                    return;
                }
                for (int i = 0; i < count; i++)
                {
                    final int entry = signalled.getAtIndex(JAVA_INT, i);
                    deliver(handler, entry >>> 16, entry & 0xFFFF);
                }
            }
        }
        catch (final Throwable ex)
        {
            LOG.error("device {}: interrupt thread failed", name, ex);
        }
    }

    private void deliver(final RxInterruptHandler handler, final int port, final int queue)
    {
        try
        {
            handler.onRxInterrupt(port, queue);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("device {}: RX interrupt handler failed for port {} queue {}", name, port, queue, ex);
        }
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final long handle = ports.getFirst().handle();
        if (interruptThread != null)
        {
            try
            {
                NicPort.check((int)NativeShim.IRQ_SHUTDOWN.invokeExact(handle), "interrupt shutdown of " + name);
                interruptThread.join(IRQ_JOIN_MILLIS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            catch (final Throwable ex)
            {
                LOG.error("device {}: stopping the interrupt thread failed", name, ex);
            }
            if (interruptThread.isAlive())
            {
                LOG.error("device {}: interrupt thread did not stop within {} ms; the device stays open (its " +
                    "memory is leaked rather than freed under a running wait)", name, IRQ_JOIN_MILLIS);
                return;
            }
        }
        closeHandle(handle);
    }

    private static void closeHandle(final long handle)
    {
        final int result;
        try
        {
            result = (int)NativeShim.CLOSE.invokeExact(handle);
        }
        catch (final Throwable ex)
        {
            throw NicPort.downcallFailed("xmit_nic_close", ex);
        }
        NicPort.check(result, "to close the device");
    }

    @Override
    public String toString()
    {
        return "NicDevice[" + name + ", " + spec + "]";
    }
}
