package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The edge's per-flow books of the failover phase ({@link FailoverPhase}): which app node answered each flow last and
 * when, and, once {@link #arm armed} for a node about to be killed, the flows that node was answering and when each
 * was first answered by another node. Replies arrive on the pipeline's CPU threads, any flow on any of them;
 * {@link #answered} allocates nothing. Times are {@link System#nanoTime()}.
 */
final class FailoverBook
{
    /** A node number of no node: no answer yet. */
    static final int NONE = 0;
    private static final long NEVER = Long.MIN_VALUE;

    private final AtomicIntegerArray servedBy;
    private final AtomicLongArray lastAnswer;
    /** Of the flows the armed node answered when armed: when another node first answered it, else {@link #NEVER}. */
    private final AtomicLongArray movedAt;
    /** Written only while {@link #armed} is {@link #NONE}; read after reading it. */
    private final boolean[] moving;
    private volatile int armed = NONE;

    FailoverBook(final int flows)
    {
        if (flows < 1)
        {
            throw new IllegalArgumentException("flows " + flows + " is not >= 1");
        }
        servedBy = new AtomicIntegerArray(flows);
        lastAnswer = new AtomicLongArray(flows);
        movedAt = new AtomicLongArray(flows);
        moving = new boolean[flows];
        for (int f = 0; f < flows; f++)
        {
            lastAnswer.set(f, NEVER);
            movedAt.set(f, NEVER);
        }
    }

    /** Node {@code node} answered flow {@code flow} at {@code nanos}. */
    void answered(final int flow, final int node, final long nanos)
    {
        servedBy.set(flow, node);
        lastAnswer.set(flow, nanos);
        final int dead = armed;
        if (NONE != dead && node != dead && moving[flow] && NEVER == movedAt.get(flow))
        {
            movedAt.compareAndSet(flow, NEVER, nanos);
        }
    }

    /**
     * Takes the flows {@code node} answered last as the ones that must move when it is killed next; what an earlier
     * arming recorded is forgotten. Returns how many there are.
     *
     * @throws IllegalArgumentException if {@code node} is {@link #NONE}.
     */
    synchronized int arm(final int node)
    {
        if (NONE == node)
        {
            throw new IllegalArgumentException("node " + node + " is no node");
        }
        armed = NONE;
        int count = 0;
        for (int f = 0; f < moving.length; f++)
        {
            movedAt.set(f, NEVER);
            moving[f] = servedBy.get(f) == node;
            count += moving[f] ? 1 : 0;
        }
        armed = node;
        return count;
    }

    /** When each flow that must move was first answered by another node; empty until every one of them was. */
    synchronized List<Long> movedAt()
    {
        final List<Long> times = new ArrayList<>();
        for (int f = 0; f < moving.length; f++)
        {
            if (moving[f])
            {
                final long at = movedAt.get(f);
                if (NEVER == at)
                {
                    return List.of();
                }
                times.add(at);
            }
        }
        return times;
    }

    /** Flows node {@code node} answered last. */
    int servedBy(final int node)
    {
        int count = 0;
        for (int f = 0; f < servedBy.length(); f++)
        {
            count += servedBy.get(f) == node ? 1 : 0;
        }
        return count;
    }

    /** Flows answered after {@code nanos}: every flow once the load has gone round since then. */
    int answeredSince(final long nanos)
    {
        int count = 0;
        for (int f = 0; f < lastAnswer.length(); f++)
        {
            final long at = lastAnswer.get(f);
            count += NEVER != at && at - nanos > 0 ? 1 : 0;
        }
        return count;
    }
}
