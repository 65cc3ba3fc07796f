package io.xmit.pipeline.txq;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Dynamic queue limits, a port of the kernel's lib/dynamic_queue_limits.c (kernel-semantics §7.1, §7.4, §7.5):
 * the limit on bytes in flight grows when the device starved while the stack was held back, and shrinks by the
 * lowest slack seen over a hold time while the device stayed busy.
 * <p>
 * Every counter is an unsigned 32-bit value kept in an int: they wrap, and all comparisons are either on
 * differences cast to int (as the kernel does) or {@link Integer#compareUnsigned}. {@link #queued(int)} is the
 * sender's side and {@link #completed(int)} the completion side's; each must be serialised with itself, but the
 * two may run on different threads, so the three fields they share are published with release/acquire.
 * <p>
 * Differences from the kernel: the 6.9+ stall detector ({@code stall_thrs}, off by default there) is left out;
 * {@link #reset()} also resets {@code adjLimit} to the limit (the kernel leaves it stale until the next
 * completion), so a reset queue is exactly a freshly initialised one.
 */
public final class DynamicQueueLimits
{
    /** DQL_MAX_OBJECT = UINT_MAX / 16: the most bytes one {@link #queued(int)} call may account. */
    public static final int DQL_MAX_OBJECT = 0x0FFF_FFFF;

    /** DQL_MAX_LIMIT = UINT_MAX / 2 − UINT_MAX / 16. */
    public static final int DQL_MAX_LIMIT = 0x7FFF_FFFF - DQL_MAX_OBJECT;

    /** The kernel's default slack hold time, HZ jiffies. */
    public static final long DEFAULT_HOLD_TIME_NS = 1_000_000_000L;

    private static final int UINT_MAX = -1;

    private static final VarHandle NUM_QUEUED;
    private static final VarHandle ADJ_LIMIT;
    private static final VarHandle LAST_OBJ_CNT;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            NUM_QUEUED = lookup.findVarHandle(DynamicQueueLimits.class, "numQueued", int.class);
            ADJ_LIMIT = lookup.findVarHandle(DynamicQueueLimits.class, "adjLimit", int.class);
            LAST_OBJ_CNT = lookup.findVarHandle(DynamicQueueLimits.class, "lastObjCnt", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final NanoClock clock;

    // Written by the enqueue side (queued).
    private int numQueued;
    private int lastObjCnt;

    // Written by the completion side (completed); adjLimit is read by the enqueue side through avail().
    private int adjLimit;
    private int limit;
    private int numCompleted;
    private int prevOvlimit;
    private int prevNumQueued;
    private int prevLastObjCnt;
    private int lowestSlack;
    private long slackStartTime;

    private int minLimit;
    private int maxLimit;
    private long holdTimeNs;

    public DynamicQueueLimits(final NanoClock clock)
    {
        this(clock, DEFAULT_HOLD_TIME_NS);
    }

    /** dql_init: maxLimit DQL_MAX_LIMIT, minLimit 0, the given hold time, then a reset (§7.1). */
    public DynamicQueueLimits(final NanoClock clock, final long holdTimeNs)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.clock = clock;
        holdTimeNs(holdTimeNs);
        this.minLimit = 0;
        this.maxLimit = DQL_MAX_LIMIT;
        reset();
    }

    /** dql_avail (§7.1): bytes that may still be queued; negative means over the limit. */
    public int avail()
    {
        return (int)ADJ_LIMIT.getAcquire(this) - (int)NUM_QUEUED.getAcquire(this);
    }

    /**
     * dql_queued (§7.1): account {@code bytes} handed to the device.
     *
     * @throws IllegalArgumentException if {@code bytes} is above {@link #DQL_MAX_OBJECT} (unsigned), the kernel's
     *                                  BUG_ON: a caller that does this has broken the BQL contract.
     */
    public void queued(final int bytes)
    {
        queued(bytes, bytes);
    }

    /**
     * dql_queued once per object of a run whose last object is {@code lastObject} bytes, {@code bytes} in all, told
     * at once: {@code num_queued} grows by {@code bytes}, {@code last_obj_cnt} is {@code lastObject}, as after one
     * call per object with nothing in between.
     *
     * @throws IllegalArgumentException if {@code lastObject} is above {@link #DQL_MAX_OBJECT} (unsigned) or above
     *                                  {@code bytes} (unsigned).
     */
    public void queued(final int bytes, final int lastObject)
    {
        if (Integer.compareUnsigned(lastObject, DQL_MAX_OBJECT) > 0)
        {
            throw new IllegalArgumentException(
                "queued bytes " + Integer.toUnsignedString(lastObject) + " exceed DQL_MAX_OBJECT " + DQL_MAX_OBJECT);
        }
        if (Integer.compareUnsigned(lastObject, bytes) > 0)
        {
            throw new IllegalArgumentException("the last object's " + Integer.toUnsignedString(lastObject) +
                " bytes exceed the run's " + Integer.toUnsignedString(bytes));
        }
        LAST_OBJ_CNT.setOpaque(this, lastObject);
        NUM_QUEUED.setRelease(this, numQueued + bytes);
    }

    /**
     * dql_completed (§7.4): account {@code count} bytes the device finished and recompute the limit.
     *
     * @throws IllegalArgumentException if {@code count} exceeds the bytes in flight (unsigned), the kernel's
     *                                  BUG_ON: completing more than was queued is a broken BQL contract (P5).
     */
    public void completed(final int count)
    {
        final int numQueued = (int)NUM_QUEUED.getAcquire(this);
        final int numCompleted = this.numCompleted;
        if (Integer.compareUnsigned(count, numQueued - numCompleted) > 0)
        {
            throw new IllegalArgumentException("completed bytes " + Integer.toUnsignedString(count) +
                " exceed bytes in flight " + Integer.toUnsignedString(numQueued - numCompleted));
        }

        final int completed = numCompleted + count;
        int limit = this.limit;
        int ovlimit = posdiff(numQueued - numCompleted, limit);
        final int inprogress = numQueued - completed;
        final int prevInprogress = prevNumQueued - numCompleted;
        final boolean allPrevCompleted = completed - prevNumQueued >= 0;

        if ((ovlimit != 0 && inprogress == 0) || (prevOvlimit != 0 && allPrevCompleted))
        {
            // Starved: grow by what was both queued and completed in the last interval plus the previous overrun.
            limit += posdiff(completed, prevNumQueued) + prevOvlimit;
            slackStartTime = clock.nanoTime();
            lowestSlack = UINT_MAX;
        }
        else if (inprogress != 0 && prevInprogress != 0 && !allPrevCompleted)
        {
            // Busy the whole interval: the excess over twice what completed is slack; shrink by the lowest seen.
            final int slackLimit = posdiff(limit + prevOvlimit, 2 * count);
            final int slackLastObjs = prevOvlimit != 0 ? posdiff(prevLastObjCnt, prevOvlimit) : 0;
            final int slack = Integer.compareUnsigned(slackLimit, slackLastObjs) >= 0 ? slackLimit : slackLastObjs;
            if (Integer.compareUnsigned(slack, lowestSlack) < 0)
            {
                lowestSlack = slack;
            }

            final long now = clock.nanoTime();
            if (now - (slackStartTime + holdTimeNs) > 0)
            {
                limit = posdiff(limit, lowestSlack);
                slackStartTime = now;
                lowestSlack = UINT_MAX;
            }
        }

        if (Integer.compareUnsigned(limit, minLimit) < 0)
        {
            limit = minLimit;
        }
        if (Integer.compareUnsigned(limit, maxLimit) > 0)
        {
            limit = maxLimit;
        }

        if (limit != this.limit)
        {
            this.limit = limit;
            ovlimit = 0;
        }

        ADJ_LIMIT.setRelease(this, limit + completed);
        prevOvlimit = ovlimit;
        prevLastObjCnt = (int)LAST_OBJ_CNT.getOpaque(this);
        this.numCompleted = completed;
        prevNumQueued = numQueued;
    }

    /** dql_reset (§7.5): limit back to the minimum, all counters zero, a new slack window. */
    public void reset()
    {
        limit = minLimit;
        numCompleted = 0;
        prevNumQueued = 0;
        prevLastObjCnt = 0;
        prevOvlimit = 0;
        lowestSlack = UINT_MAX;
        slackStartTime = clock.nanoTime();
        LAST_OBJ_CNT.setOpaque(this, 0);
        NUM_QUEUED.setRelease(this, 0);
        ADJ_LIMIT.setRelease(this, limit);
    }

    /** The sysfs {@code limit_min}: 0..{@link #DQL_MAX_LIMIT}, at most {@link #maxLimit()}. */
    public DynamicQueueLimits minLimit(final int minLimit)
    {
        if (minLimit < 0 || minLimit > DQL_MAX_LIMIT || minLimit > maxLimit)
        {
            throw new IllegalArgumentException("minLimit " + minLimit + " is not in 0.." + maxLimit +
                " (DQL_MAX_LIMIT " + DQL_MAX_LIMIT + ", and at most maxLimit)");
        }
        this.minLimit = minLimit;
        return this;
    }

    /** The sysfs {@code limit_max}: {@link #minLimit()}..{@link #DQL_MAX_LIMIT}. */
    public DynamicQueueLimits maxLimit(final int maxLimit)
    {
        if (maxLimit < minLimit || maxLimit > DQL_MAX_LIMIT)
        {
            throw new IllegalArgumentException("maxLimit " + maxLimit + " is not in " + minLimit + ".." +
                DQL_MAX_LIMIT + " (at least minLimit, at most DQL_MAX_LIMIT)");
        }
        this.maxLimit = maxLimit;
        return this;
    }

    /** The sysfs {@code hold_time}, here in nanoseconds: how long the lowest slack is gathered before shrinking. */
    public DynamicQueueLimits holdTimeNs(final long holdTimeNs)
    {
        if (holdTimeNs < 0)
        {
            throw new IllegalArgumentException("holdTimeNs " + holdTimeNs + " must be >= 0");
        }
        this.holdTimeNs = holdTimeNs;
        return this;
    }

    public int minLimit()
    {
        return minLimit;
    }

    public int maxLimit()
    {
        return maxLimit;
    }

    public long holdTimeNs()
    {
        return holdTimeNs;
    }

    /** The current limit in bytes, 0..{@link #DQL_MAX_LIMIT}. */
    public int limit()
    {
        return limit;
    }

    /** {@code limit + numCompleted}, unsigned and wrapping. */
    public int adjLimit()
    {
        return (int)ADJ_LIMIT.getAcquire(this);
    }

    /** Total bytes ever queued, unsigned and wrapping. */
    public int numQueued()
    {
        return (int)NUM_QUEUED.getAcquire(this);
    }

    /** Total bytes ever completed, unsigned and wrapping. */
    /** last_obj_cnt: the bytes of the last object queued, which the next completion's slack is measured against. */
    public int lastObjCnt()
    {
        return (int)LAST_OBJ_CNT.getOpaque(this);
    }

    public int numCompleted()
    {
        return numCompleted;
    }

    /** Bytes in flight: queued but not completed. */
    public int inflight()
    {
        return numQueued() - numCompleted;
    }

    public int prevOvlimit()
    {
        return prevOvlimit;
    }

    /** The lowest slack seen in this hold window; -1 (UINT_MAX) when none yet. */
    public int lowestSlack()
    {
        return lowestSlack;
    }

    public long slackStartTime()
    {
        return slackStartTime;
    }

    /** POSDIFF: {@code a − b} if positive as a signed difference, else 0 (§7.4). */
    static int posdiff(final int a, final int b)
    {
        final int diff = a - b;
        return diff > 0 ? diff : 0;
    }

    @Override
    public String toString()
    {
        return "DynamicQueueLimits{limit=" + limit + ", inflight=" + Integer.toUnsignedString(inflight()) +
            ", avail=" + avail() + ", prevOvlimit=" + Integer.toUnsignedString(prevOvlimit) + "}";
    }
}
