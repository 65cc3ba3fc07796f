package io.xmit.transport.nic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.Optional;

import io.xmit.pipeline.qdisc.DescriptorBatch;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The FFM implementation of {@link NicDriver}: one port handle of an open {@link NicDevice}. Every call goes
 * straight to the shim, which validates the handle and arguments; after the device closes the handle is stale
 * and calls answer {@code -EBADF} (control calls throw).
 */
final class NicPort implements NicDriver
{
    private static final int INFO_LENGTH = 8 * Integer.BYTES + 2 * Long.BYTES;
    /** {@code XMIT_NIC_BACKEND_AFPACKET}: its bursts are system calls. */
    private static final int BACKEND_AFPACKET = 2;

    private final long handle;
    private final int port;
    private final int txQueues;
    private final int rxQueues;
    private final int ringSize;
    private final int maxFrame;
    private final Optional<NicLink> link;
    private final boolean burstsAreSyscalls;

    private NicPort(final long handle, final boolean burstsAreSyscalls, final int port, final int txQueues,
        final int rxQueues, final int ringSize, final int maxFrame, final Optional<NicLink> link)
    {
        this.handle = handle;
        this.burstsAreSyscalls = burstsAreSyscalls;
        this.port = port;
        this.txQueues = txQueues;
        this.rxQueues = rxQueues;
        this.ringSize = ringSize;
        this.maxFrame = maxFrame;
        this.link = link;
    }

    /**
     * The port behind {@code handle}, with its queue counts, ring size and largest frame as the shim reports them
     * ({@code xmit_nic_info}: abi, backend, ports, port, tx, rx, ring, max frame as u32, then the rates).
     */
    static NicPort of(final long handle)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment info = arena.allocate(INFO_LENGTH, 8);
            check((int)NativeShim.INFO.invokeExact(handle, info), "to describe port handle " + handle);
            return new NicPort(handle, BACKEND_AFPACKET == info.get(JAVA_INT, 4), info.get(JAVA_INT, 12),
                info.get(JAVA_INT, 16), info.get(JAVA_INT, 20), info.get(JAVA_INT, 24), info.get(JAVA_INT, 28),
                linkOf(handle, arena));
        }
        catch (final NicException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_info_get", ex);
        }
    }

    /** The port's interface, or empty for a backend without one ({@code -EOPNOTSUPP}). */
    private static Optional<NicLink> linkOf(final long handle, final Arena arena) throws Throwable
    {
        final MemorySegment mac = arena.allocate(6);
        final MemorySegment mtu = arena.allocate(JAVA_INT);
        final int result = (int)NativeShim.LINK.invokeExact(handle, mac, mtu);
        if (result == -Errno.EOPNOTSUPP)
        {
            return Optional.empty();
        }
        check(result, "to describe the interface of port handle " + handle);
        long address = 0;
        for (int i = 0; i < 6; i++)
        {
            address = address << 8 | (mac.get(JAVA_BYTE, i) & 0xFF);
        }
        return Optional.of(new NicLink(address, mtu.get(JAVA_INT, 0)));
    }

    long handle()
    {
        return handle;
    }

    /**
     * Whether this port's {@code tx_burst} and {@code rx_burst} enter the kernel (afpacket): they are then called
     * through downcalls that leave the Java thread state, so a safepoint does not wait for them (see
     * {@link NativeShim}).
     */
    boolean burstsAreSyscalls()
    {
        return burstsAreSyscalls;
    }

    @Override
    public int port()
    {
        return port;
    }

    @Override
    public int txQueueCount()
    {
        return txQueues;
    }

    @Override
    public int rxQueueCount()
    {
        return rxQueues;
    }

    @Override
    public int ringSize()
    {
        return ringSize;
    }

    @Override
    public int maxFrame()
    {
        return maxFrame;
    }

    @Override
    public Optional<NicLink> link()
    {
        return link;
    }

    /** The raw form, for tests of the shim's argument checks: any address reaches the shim as it is. */
    int txBurst(final int queue, final long descriptorsAddress, final int count)
    {
        try
        {
            return burstsAreSyscalls ?
                (int)NativeShim.TX_BURST_SYSCALL.invokeExact(handle, queue, descriptorsAddress, count) :
                (int)NativeShim.TX_BURST.invokeExact(handle, queue, descriptorsAddress, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_tx_burst", ex);
        }
    }

    @Override
    public int txBurst(final int queue, final DescriptorBatch batch)
    {
        final int accepted = txBurst(queue, batch.descriptorsAddress(), batch.size());
        Reference.reachabilityFence(batch);
        return accepted;
    }

    @Override
    public int txReclaim(final int queue, final TxCompletion out)
    {
        final int result;
        try
        {
            result = (int)NativeShim.TX_RECLAIM.invokeExact(handle, queue, out.address);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_tx_reclaim", ex);
        }
        Reference.reachabilityFence(out);
        return result;
    }

    @Override
    public int rxBurst(final int queue, final RxBurst burst)
    {
        final int received;
        try
        {
            final int limit = Math.min(burst.capacity(), ringSize);
            received = burstsAreSyscalls ?
                (int)NativeShim.RX_BURST_SYSCALL.invokeExact(handle, queue, burst.address, limit) :
                (int)NativeShim.RX_BURST.invokeExact(handle, queue, burst.address, limit);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_rx_burst", ex);
        }
        Reference.reachabilityFence(burst);
        burst.count = Math.max(received, 0);
        return received;
    }

    @Override
    public int rxRelease(final int queue, final int count)
    {
        try
        {
            return (int)NativeShim.RX_RELEASE.invokeExact(handle, queue, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_rx_release", ex);
        }
    }

    @Override
    public int armRx(final int queue, final boolean armed)
    {
        try
        {
            return (int)NativeShim.RX_ARM.invokeExact(handle, queue, armed ? 1 : 0);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_rx_arm", ex);
        }
    }

    @Override
    public QueueStats stats(final int queue)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(QueueStats.NATIVE_LENGTH, 8);
            final int result = (int)NativeShim.STATS.invokeExact(handle, queue, out);
            check(result, "stats of queue " + queue);
            return new QueueStats(out.get(JAVA_LONG, 0), out.get(JAVA_LONG, 8), out.get(JAVA_LONG, 16),
                out.get(JAVA_LONG, 24), out.get(JAVA_LONG, 32), out.get(JAVA_LONG, 40), out.get(JAVA_LONG, 48),
                out.get(JAVA_LONG, 56), out.get(JAVA_LONG, 64));
        }
        catch (final NicException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_stats", ex);
        }
    }

    @Override
    public void fault(final NicFault fault, final int queue, final long value)
    {
        final int result;
        try
        {
            result = (int)NativeShim.FAULT.invokeExact(handle, fault.code, queue, value);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_fault", ex);
        }
        check(result, "fault " + fault + " on " + (fault.txSide ? "TX" : "RX") + " queue " + queue + " value " +
            value + " (queues: " + txQueues + " TX, " + rxQueues + " RX)");
    }

    @Override
    public void txReset(final int queue)
    {
        final int result;
        try
        {
            result = (int)NativeShim.TX_RESET.invokeExact(handle, queue);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_tx_reset", ex);
        }
        check(result, "reset of TX queue " + queue + " (queues: " + txQueues + " TX)");
    }

    @Override
    public void setRssKey(final byte[] key)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment copy = arena.allocate(Math.max(1, key.length));
            MemorySegment.copy(key, 0, copy, JAVA_BYTE, 0, key.length);
            check((int)NativeShim.RSS_KEY.invokeExact(handle, copy, key.length),
                "RSS key of " + key.length + " bytes (must be 40)");
        }
        catch (final NicException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_rss_key", ex);
        }
    }

    @Override
    public void setRssIndirection(final int[] table)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment copy = arena.allocate(JAVA_INT, Math.max(1, table.length));
            MemorySegment.copy(table, 0, copy, JAVA_INT, 0, table.length);
            check((int)NativeShim.RSS_RETA.invokeExact(handle, copy, table.length),
                "RSS indirection table of " + table.length + " entries (must be 128, each below " + rxQueues + ")");
        }
        catch (final NicException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("xmit_nic_rss_reta", ex);
        }
    }

    @Override
    public String toString()
    {
        return "NicPort[" + (port == 0 ? "A" : "B") + ", tx=" + txQueues + ", rx=" + rxQueues + ", ring=" + ringSize +
            "]";
    }

    static void check(final int result, final String what)
    {
        if (result < 0)
        {
            throw new NicException("NIC shim refused " + what, result);
        }
    }

    static IllegalStateException downcallFailed(final String function, final Throwable cause)
    {
        return new IllegalStateException("xmit NIC shim: calling " + function + " failed", cause);
    }
}
