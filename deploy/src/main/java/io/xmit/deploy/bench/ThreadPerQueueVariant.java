package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.QueueStats;

/**
 * A variant without actors: a {@code null} device with {@link #THREADS} TX queues and one plain thread per queue,
 * named {@code name-queue}, running the variant's {@link #transmit} loop. Each loop adds the packets its queue
 * completed to a counter of its own, which {@link #delivered()} and {@link #runFor} read from outside, so the loops
 * do no other bookkeeping. A subclass keeps only its loop and whatever that loop shares ({@link #open},
 * {@link #release}).
 */
abstract class ThreadPerQueueVariant implements TxVariant
{
    public static final int THREADS = 2;

    private static final String DEVICE_SPEC = "null:tx=" + THREADS + ",rx=1,ring=1024";
    private static final long JOIN_MILLIS = 10_000;

    protected final long packetsPerThread;
    private final String name;
    private final AtomicLong[] completed = new AtomicLong[THREADS];
    private final Thread[] threads = new Thread[THREADS];
    private volatile boolean running;
    private boolean started;
    private boolean closed;
    private NicDevice device;

    /** @param packetsPerThread how many packets each loop sends; what it does then is the subclass's rule. */
    ThreadPerQueueVariant(final String name, final long packetsPerThread)
    {
        if (packetsPerThread < 1)
        {
            throw new IllegalArgumentException("packetsPerThread " + packetsPerThread + " is not >= 1");
        }
        this.name = name;
        this.packetsPerThread = packetsPerThread;
        for (int queue = 0; queue < THREADS; queue++)
        {
            completed[queue] = new AtomicLong();
        }
    }

    @Override
    public final String name()
    {
        return name;
    }

    /** Opens the device and what the subclass shares between its loops, then starts one thread per TX queue. */
    @Override
    public final void start()
    {
        if (started)
        {
            throw new IllegalStateException(name + " was already started");
        }
        started = true;
        try
        {
            device = NicDevice.open(DEVICE_SPEC);
            final NicDriver driver = device.port(0);
            open();
            running = true;
            for (int queue = 0; queue < THREADS; queue++)
            {
                final int q = queue;
                threads[queue] = Thread.ofPlatform().name(name + "-" + queue)
                    .start(() -> transmit(driver, q, completed[q]));
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    @Override
    public final Result runFor(final long nanos)
    {
        final long[] ids = new long[THREADS];
        for (int queue = 0; queue < THREADS; queue++)
        {
            ids[queue] = threads[queue].threadId();
        }
        return WindowMeter.measure(this::delivered, ids, nanos);
    }

    @Override
    public final long delivered()
    {
        long total = 0;
        for (final AtomicLong count : completed)
        {
            total += count.get();
        }
        return total;
    }

    /** The driver's counters for TX queue {@code queue}; only while running. */
    public final QueueStats driverStats(final int queue)
    {
        return device.port(0).stats(queue);
    }

    /**
     * Stops the threads and waits up to 10 s for each; only then closes the device and what {@link #open} opened.
     *
     * @throws IllegalStateException if a thread did not stop in time; the device and the rest are left open.
     */
    @Override
    public final void close()
    {
        if (closed || !started)
        {
            return;
        }
        running = false;
        for (final Thread thread : threads)
        {
            if (null != thread)
            {
                join(thread);
            }
        }
        closed = true;
        if (null != device)
        {
            device.close();
        }
        release();
    }

    /** False once {@link #close()} began: the loops' signal to return. */
    protected final boolean isRunning()
    {
        return running;
    }

    /** Opens what the loops share, after the device and before the threads start; nothing by default. */
    protected void open()
    {
    }

    /** Closes what {@link #open} opened, as far as it got, after the device closed; nothing by default. */
    protected void release()
    {
    }

    /**
     * TX queue {@code queue}'s loop, on its own thread: sends until {@link #isRunning()} turns false or its
     * packets are done.
     *
     * @param completed where the loop adds the packets its queue completed, with release semantics.
     */
    protected abstract void transmit(NicDriver driver, int queue, AtomicLong completed);

    private void join(final Thread thread)
    {
        try
        {
            thread.join(JOIN_MILLIS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while stopping " + thread.getName(), ex);
        }
        if (thread.isAlive())
        {
            throw new IllegalStateException(thread.getName() + " did not stop within " + JOIN_MILLIS +
                " ms; its NIC device stays open");
        }
    }
}
