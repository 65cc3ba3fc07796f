package io.xmit.pipeline.txq;

import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.txq.DynamicQueueLimits.DQL_MAX_LIMIT;
import static io.xmit.pipeline.txq.DynamicQueueLimits.DQL_MAX_OBJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scripted queued/completed sequences; every expected limit is worked out by hand from kernel-semantics §7.4 in
 * the comment above it (Q = numQueued, C = numCompleted, P = prevNumQueued, L = limit).
 */
class DynamicQueueLimitsTest
{
    private static final long HOLD = 1_000_000_000L;

    private final ManualClock clock = new ManualClock(0);
    private final DynamicQueueLimits dql = new DynamicQueueLimits(clock, HOLD);

    @Test
    void initialStateMatchesDqlInit()
    {
        // kernel-semantics §7.1: limit 0, minLimit 0, maxLimit DQL_MAX_LIMIT, hold time 1 s.
        assertEquals(0x7000_0000, DQL_MAX_LIMIT);
        assertEquals(0x0FFF_FFFF, DQL_MAX_OBJECT);
        final DynamicQueueLimits fresh = new DynamicQueueLimits(clock);
        assertEquals(0, fresh.limit());
        assertEquals(0, fresh.minLimit());
        assertEquals(DQL_MAX_LIMIT, fresh.maxLimit());
        assertEquals(1_000_000_000L, fresh.holdTimeNs());
        assertEquals(0, fresh.avail());
        assertEquals(-1, fresh.lowestSlack());
    }

    @Test
    void availIsAdjLimitMinusQueued()
    {
        // kernel-semantics §7.1: avail = (int)(adjLimit − numQueued).
        dql.queued(1000);
        assertEquals(-1000, dql.avail());
        dql.queued(500);
        assertEquals(-1500, dql.avail());
        assertEquals(1500, dql.inflight());
    }

    @Test
    void starvedWhenOverLimitAndNothingInProgressGrowsLimit()
    {
        // kernel-semantics §7.4, starved (ovlimit && !inprog).
        dql.queued(1000);
        clock.set(7);
        // completed = 1000; ovlimit = posdiff(1000 − 0, L=0) = 1000; inprog = 1000 − 1000 = 0 → starved:
        // L += posdiff(1000, P=0) + prevOvlimit 0 = 1000; L changed → ovlimit 0; adjLimit = 1000 + 1000.
        dql.completed(1000);
        assertEquals(1000, dql.limit());
        assertEquals(2000, dql.adjLimit());
        assertEquals(1000, dql.avail());
        assertEquals(0, dql.prevOvlimit());
        assertEquals(7, dql.slackStartTime());
        assertEquals(-1, dql.lowestSlack());

        dql.queued(1500);
        dql.queued(1500);
        assertEquals(-2000, dql.avail());
        // Q = 4000, C = 1000, P = 1000. completed = 4000; ovlimit = posdiff(3000, 1000) = 2000; inprog = 0 →
        // starved: L = 1000 + posdiff(4000, 1000) + 0 = 4000; adjLimit = 4000 + 4000 = 8000; avail = 4000.
        dql.completed(3000);
        assertEquals(4000, dql.limit());
        assertEquals(8000, dql.adjLimit());
        assertEquals(4000, dql.avail());
    }

    @Test
    void starvedWhenPreviouslyOverLimitAndAllPreviousCompleted()
    {
        // Reach L = 4000, Q = C = P = 4000 as in the test above.
        dql.queued(1000);
        dql.completed(1000);
        dql.queued(3000);
        dql.completed(3000);
        assertEquals(4000, dql.limit());

        dql.queued(5000);
        // Q = 9000, C = 4000, P = 4000. completed = 6000; ovlimit = posdiff(5000, 4000) = 1000; inprog = 3000;
        // prevInprog = 0; allPrev = (6000 − 4000 >= 0); prevOvlimit = 0 → not starved, no slack branch (prevInprog
        // 0). L unchanged, so ovlimit stays: prevOvlimit = 1000; adjLimit = 4000 + 6000 = 10000.
        dql.completed(2000);
        assertEquals(4000, dql.limit());
        assertEquals(1000, dql.prevOvlimit());
        assertEquals(10000, dql.adjLimit());
        assertEquals(1000, dql.avail());

        // Q = 9000, C = 6000, P = 9000. completed = 9000; ovlimit = posdiff(3000, 4000) = 0; allPrev = (9000 − 9000
        // >= 0) is true (6.9+ AFTER_EQ; the old POSDIFF > 0 would say false) and prevOvlimit = 1000 → starved:
        // L = 4000 + posdiff(9000, 9000) + 1000 = 5000; adjLimit = 5000 + 9000 = 14000.
        dql.completed(3000);
        assertEquals(5000, dql.limit());
        assertEquals(0, dql.prevOvlimit());
        assertEquals(14000, dql.adjLimit());
        assertEquals(5000, dql.avail());
    }

    @Test
    void slackShrinksLimitByLowestSlackOnlyAfterHoldTime()
    {
        // kernel-semantics §7.4, slack branch: busy all interval (inprog && prevInprog && !allPrev).
        // Q = 5000, completed at t = 0: starved from L = 0 → L = 5000, slackStart = 0, adjLimit = 10000.
        dql.queued(5000);
        dql.completed(5000);
        assertEquals(5000, dql.limit());

        dql.queued(3000);
        // Q = 8000, C = 5000, P = 5000. completed = 6000; ovlimit = posdiff(3000, 5000) = 0; inprog = 2000;
        // prevInprog = 5000 − 5000 = 0 → neither branch; L stays 5000, no slack sample.
        dql.completed(1000);
        assertEquals(5000, dql.limit());
        assertEquals(-1, dql.lowestSlack());

        dql.queued(1000);
        // Q = 9000, C = 6000, P = 8000. completed = 7000; inprog = 2000; prevInprog = 2000; allPrev = (7000 − 8000
        // >= 0) false → slack = max(posdiff(5000 + 0, 2 × 1000), 0) = 3000 → lowestSlack 3000; t = 0 is not after
        // slackStart 0 + hold → no shrink.
        dql.completed(1000);
        assertEquals(5000, dql.limit());
        assertEquals(3000, dql.lowestSlack());

        dql.queued(2000);
        // Q = 11000, C = 7000, P = 9000. completed = 8500; inprog = 2500; prevInprog = 2000; allPrev false →
        // slack = posdiff(5000, 3000) = 2000 → lowestSlack 2000.
        dql.completed(1500);
        assertEquals(5000, dql.limit());
        assertEquals(2000, dql.lowestSlack());

        clock.set(HOLD);
        dql.queued(1000);
        // Q = 12000, C = 8500, P = 11000. completed = 9500; inprog = 2500; prevInprog = 2500; allPrev false →
        // slack = posdiff(5000, 2000) = 3000, lowest stays 2000. now = hold is not *after* 0 + hold → no shrink.
        dql.completed(1000);
        assertEquals(5000, dql.limit());
        assertEquals(2000, dql.lowestSlack());

        clock.set(HOLD + 1);
        dql.queued(1000);
        // Q = 13000, C = 9500, P = 12000. completed = 10500; inprog = 2500; prevInprog = 2500; allPrev false →
        // slack 3000, lowest 2000; now = hold + 1 is after 0 + hold → L = posdiff(5000, 2000) = 3000, window
        // restarts at hold + 1; adjLimit = 3000 + 10500 = 13500; avail = 13500 − 13000 = 500.
        dql.completed(1000);
        assertEquals(3000, dql.limit());
        assertEquals(-1, dql.lowestSlack());
        assertEquals(HOLD + 1, dql.slackStartTime());
        assertEquals(13500, dql.adjLimit());
        assertEquals(500, dql.avail());
    }

    @Test
    void slackOfLastObjectsCountsWhenPreviouslyOverLimit()
    {
        // kernel-semantics §7.4: slack = max(posdiff(L + prevOvlimit, 2 × count), posdiff(prevLastObj, prevOvlimit)).
        dql.queued(1000);
        dql.completed(1000);
        dql.queued(3000);
        dql.completed(3000);
        assertEquals(4000, dql.limit());

        // Q = 4000 + 2000 + 3000 = 9000 (last object 3000), C = P = 4000.
        dql.queued(2000);
        dql.queued(3000);
        // completed = 4500; ovlimit = posdiff(5000, 4000) = 1000; inprog = 4500; prevInprog = 0 → neither branch;
        // prevOvlimit = 1000, prevLastObj = 3000; P = 9000, C = 4500.
        dql.completed(500);
        assertEquals(1000, dql.prevOvlimit());

        dql.queued(100);
        // Q = 9100. completed = 8500; ovlimit = posdiff(4600, 4000) = 600; inprog = 600; prevInprog = 4500;
        // allPrev = (8500 − 9000 >= 0) false; starved needs !inprog or allPrev → no. Slack branch:
        // posdiff(4000 + 1000, 2 × 4000) = 0; lastObjs = posdiff(3000, 1000) = 2000 → slack 2000.
        dql.completed(4000);
        assertEquals(4000, dql.limit());
        assertEquals(2000, dql.lowestSlack());
        assertEquals(600, dql.prevOvlimit());
    }

    @Test
    void limitIsClampedToMinAndMax()
    {
        // kernel-semantics §7.4: clamp to [min, max].
        dql.maxLimit(3000);
        dql.queued(5000);
        // starved: L = 0 + 5000 → clamped to 3000; adjLimit = 3000 + 5000.
        dql.completed(5000);
        assertEquals(3000, dql.limit());
        assertEquals(3000, dql.avail());

        final DynamicQueueLimits floor = new DynamicQueueLimits(clock, HOLD).minLimit(2000);
        floor.reset();
        assertEquals(2000, floor.limit());
        assertEquals(2000, floor.avail());
        floor.queued(100);
        // ovlimit 0, inprog 0 → neither branch; L = 2000 stays (the clamp floor).
        floor.completed(100);
        assertEquals(2000, floor.limit());
    }

    @Test
    void countersWrapAsUnsigned32Bits()
    {
        // kernel-semantics §7.4: all arithmetic is unsigned and wraps; 40 × DQL_MAX_OBJECT > 2^32.
        int wrapped = 0;
        int previous = 0;
        for (int i = 0; i < 40; i++)
        {
            dql.queued(DQL_MAX_OBJECT);
            dql.completed(DQL_MAX_OBJECT);
            // First round starves from L = 0 → L = DQL_MAX_OBJECT; afterwards ovlimit = posdiff(X, X) = 0 and
            // nothing is in progress, so L stays DQL_MAX_OBJECT across the wrap.
            assertEquals(DQL_MAX_OBJECT, dql.limit());
            assertEquals(0, dql.inflight());
            assertEquals(DQL_MAX_OBJECT, dql.avail());
            if (Integer.compareUnsigned(dql.numQueued(), previous) < 0)
            {
                wrapped++;
            }
            previous = dql.numQueued();
        }
        assertTrue(wrapped >= 2, "numQueued wrapped " + wrapped + " times");
        assertEquals(40 * DQL_MAX_OBJECT, dql.numCompleted());
    }

    @Test
    void queuedAboveMaxObjectIsMisuse()
    {
        // kernel-semantics §7.1: each call's bytes must be <= UINT_MAX / 16.
        dql.queued(DQL_MAX_OBJECT);
        assertEquals(DQL_MAX_OBJECT, dql.numQueued());
        assertThrows(IllegalArgumentException.class, () -> dql.queued(DQL_MAX_OBJECT + 1));
        assertThrows(IllegalArgumentException.class, () -> dql.queued(-1));
        assertEquals(DQL_MAX_OBJECT, dql.numQueued());
    }

    @Test
    void completingMoreThanInFlightIsMisuse()
    {
        // kernel-semantics P5: over-completion is a BUG in the kernel.
        dql.queued(1000);
        assertThrows(IllegalArgumentException.class, () -> dql.completed(1001));
        assertEquals(0, dql.numCompleted());
        assertEquals(1000, dql.inflight());
    }

    @Test
    void resetZeroesLimitAndCounters()
    {
        // kernel-semantics §7.5.
        dql.queued(5000);
        dql.completed(4000);
        clock.set(99);
        dql.reset();
        assertEquals(0, dql.limit());
        assertEquals(0, dql.numQueued());
        assertEquals(0, dql.numCompleted());
        assertEquals(0, dql.inflight());
        assertEquals(0, dql.prevOvlimit());
        assertEquals(0, dql.avail());
        assertEquals(-1, dql.lowestSlack());
        assertEquals(99, dql.slackStartTime());
    }

    @Test
    void rejectsBadConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new DynamicQueueLimits(null));
        assertThrows(IllegalArgumentException.class, () -> new DynamicQueueLimits(clock, -1));
        assertThrows(IllegalArgumentException.class, () -> dql.maxLimit(DQL_MAX_LIMIT + 1));
        assertThrows(IllegalArgumentException.class, () -> dql.minLimit(-1));
        dql.maxLimit(100);
        assertThrows(IllegalArgumentException.class, () -> dql.minLimit(101));
        dql.minLimit(50);
        assertThrows(IllegalArgumentException.class, () -> dql.maxLimit(49));
    }

    /**
     * §6.4/§7.4: a driver tells BQL each packet of a burst ({@code netdev_tx_sent_queue} per skb), so the last object
     * is one packet. The same five 1000-byte packets queued as one 5000-byte object leave a different slack and limit:
     * the reason the qdisc engine feeds BQL per packet.
     */
    @Test
    void section6_4FivePacketsQueuedOneByOneKeepTheLimitWhereOneBurstObjectDropsIt()
    {
        assertEquals(4000, limitAfterFiveByOneThousand(true));
        assertEquals(0, limitAfterFiveByOneThousand(false));
    }

    private static int limitAfterFiveByOneThousand(final boolean perPacket)
    {
        final ManualClock time = new ManualClock(0);
        final DynamicQueueLimits limits = new DynamicQueueLimits(time, HOLD);
        limits.queued(1000);
        limits.completed(1000);
        limits.queued(3000);
        limits.completed(3000);
        assertEquals(4000, limits.limit());
        if (perPacket)
        {
            for (int i = 0; i < 5; i++)
            {
                limits.queued(1000);
            }
        }
        else
        {
            limits.queued(5000);
        }
        assertEquals(perPacket ? 1000 : 5000, limits.lastObjCnt());
        limits.completed(500);
        limits.queued(100);
        limits.completed(4000);
        time.set(HOLD + 1);
        limits.queued(100);
        limits.completed(100);
        return limits.limit();
    }
}
