package io.xmit.actors.internal.txq;

import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.trace.TracePoint;
import io.xmit.pipeline.qdisc.DescriptorBatch;

import org.agrona.BitUtil;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The socket ids of the packets a TX queue's driver has accepted and not yet completed, in the order the driver took
 * them: the qdisc appends after each {@code tx_burst}, the TX queue removes as many as {@code tx_reclaim} reports and
 * releases each socket's in-flight count in completion order. One producer thread, one consumer thread.
 * <p>
 * The driver's TX ring bounds what is in flight, so a capacity of at least the ring size never fills.
 */
public final class InFlightFifo
{
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(InFlightFifo.class, "tail", long.class);
            HEAD = lookup.findVarHandle(InFlightFifo.class, "head", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int[] ids;
    private final long[] traces;
    private final int mask;
    private volatile long tail;
    private volatile long head;

    /** @param capacity at least the driver's TX ring size; rounded up to a power of two. */
    public InFlightFifo(final int capacity)
    {
        if (capacity < 1 || capacity > 1 << 24)
        {
            throw new IllegalArgumentException("in-flight capacity " + capacity + " is not in 1.." + (1 << 24));
        }
        final int size = BitUtil.findNextPositivePowerOfTwo(capacity);
        ids = new int[size];
        traces = new long[size];
        mask = size - 1;
    }

    public int capacity()
    {
        return ids.length;
    }

    /** Packets in flight: appended and not yet removed. */
    public int size()
    {
        return (int)((long)TAIL.getAcquire(this) - (long)HEAD.getAcquire(this));
    }

    /**
     * Producer: appends the tags of descriptors {@code 0..count-1} of {@code batch}.
     *
     * @return false, appending nothing, if they do not fit (a driver that took more than its ring: a bug).
     */
    public boolean append(final DescriptorBatch batch, final int count)
    {
        final long t = tail;
        if (t + count - (long)HEAD.getAcquire(this) > ids.length)
        {
            return false;
        }
        for (int i = 0; i < count; i++)
        {
            ids[(int)(t + i) & mask] = batch.tag(i);
            traces[(int)(t + i) & mask] = batch.trace(i);
        }
        TAIL.setRelease(this, t + count);
        return true;
    }

    /** Consumer, before {@link #remove}: reports the completion of each traced packet among the next {@code count}. */
    void traceCompleted(final int count, final TracePoint trace)
    {
        final long h = head;
        final int n = (int)Math.min(count, (long)TAIL.getAcquire(this) - h);
        for (int i = 0; i < n; i++)
        {
            final long traceId = traces[(int)(h + i) & mask];
            if (0 != traceId)
            {
                trace.completed(traceId);
            }
        }
    }

    /**
     * Consumer: removes up to {@code count} ids, oldest first, handing each to {@code release}.
     *
     * @return how many were removed (fewer than asked only if the driver completed more than it was given).
     */
    int remove(final int count, final SocketTable release)
    {
        final long h = head;
        final long available = (long)TAIL.getAcquire(this) - h;
        final int n = (int)Math.min(count, available);
        // A socket's packets tend to leave in runs: one release per run, not per packet.
        int i = 0;
        while (i < n)
        {
            final int id = ids[(int)(h + i) & mask];
            int run = 1;
            while (i + run < n && ids[(int)(h + i + run) & mask] == id)
            {
                run++;
            }
            release.packetsCompleted(id, run);
            i += run;
        }
        HEAD.setRelease(this, h + n);
        return n;
    }
}
