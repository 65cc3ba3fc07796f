package io.xmit.pipeline.txq;

import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.txq.TxQueueState.DRV_XOFF;
import static io.xmit.pipeline.txq.TxQueueState.STACK_XOFF;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ByteQueueLimitsTest
{
    private static final long ONE_SECOND = 1_000_000_000L;

    private final ManualClock clock = new ManualClock(100);
    private final TxQueueState state = new TxQueueState(clock);
    private final ByteQueueLimits bql = new ByteQueueLimits(state);

    @Test
    void sentOverLimitStampsTransStartAndSetsStackXoff()
    {
        // kernel-semantics §7.2: avail < 0 → transStart = now, set STACK_XOFF; the re-check still finds avail < 0.
        clock.set(500);
        assertTrue(bql.sent(1000));
        assertEquals(STACK_XOFF, state.bits());
        assertEquals(500, state.transStart());
        assertTrue(state.stopped());
    }

    @Test
    void sentClearsStackXoffItselfWhenACompletionLandsBetweenItsCheckAndItsStop()
    {
        // kernel-semantics §7.2: the completing side runs after sent() saw avail < 0 but before it set STACK_XOFF
        // (here: inside sent()'s clock read). The completion's test_and_clear (§7.3) finds no bit to clear, so only
        // sent()'s re-check after the full barrier keeps the queue from staying stopped with room in BQL.
        final ByteQueueLimits[] racing = new ByteQueueLimits[1];
        final boolean[] armed = { false };
        final boolean[] completionAskedForSchedule = { true };
        final TxQueueState racingState = new TxQueueState(() ->
        {
            if (armed[0])
            {
                armed[0] = false;
                completionAskedForSchedule[0] = racing[0].completed(1, 1000);
            }
            return 700;
        });
        racing[0] = new ByteQueueLimits(racingState);
        armed[0] = true;

        assertFalse(racing[0].sent(1000));
        assertFalse(completionAskedForSchedule[0]);
        assertEquals(0, racingState.bits());
        assertFalse(racingState.stopped());
        assertEquals(700, racingState.transStart());
        assertEquals(1000, racing[0].avail());
    }

    @Test
    void aWatchdogLookingWhileBqlStopsTheQueueNeverSeesItStoppedSinceAnOldStamp_7_2()
    {
        // kernel-semantics §7.2, §8.3: over the limit, sent() stamps transStart before it sets STACK_XOFF. The
        // watchdog looks in between (inside the stamp's clock read): it must find the queue running, not stopped
        // since the queue's creation 10 s ago.
        final boolean[] seen = {true};
        clock.set(10_000_000_100L);
        clock.onNextRead(() -> seen[0] = state.timedOut(ONE_SECOND));

        assertTrue(bql.sent(1000));

        assertFalse(seen[0], "the watchdog took the queue it saw stopping for stopped since the old stamp");
        assertEquals(STACK_XOFF, state.bits());
        assertFalse(state.timedOut(ONE_SECOND));
        assertTrue(state.stopped());
    }

    @Test
    void sentWithinLimitLeavesStateAlone()
    {
        bql.sent(1000);
        bql.completed(1, 1000);
        // Limit is now 1000 (starved growth, §7.4), avail 1000.
        clock.set(900);
        assertFalse(bql.sent(600));
        assertEquals(0, state.bits());
        assertEquals(100, state.transStart());
        assertEquals(400, bql.avail());
    }

    @Test
    void completedThatMakesRoomClearsStackXoffAndAsksForSchedule()
    {
        // kernel-semantics §7.3: avail >= 0 after completion and test_and_clear(STACK_XOFF) → schedule.
        bql.sent(1000);
        assertTrue(bql.completed(1, 1000));
        assertEquals(0, state.bits());
        assertEquals(1000, bql.avail());
        // A second completion finds STACK_XOFF already clear: nothing to schedule.
        bql.sent(500);
        assertFalse(bql.completed(1, 500));
    }

    @Test
    void completedStillOverLimitKeepsStackXoff()
    {
        bql.sent(1000);
        bql.sent(3000);
        // Q = 4000, C = 0, L = 0: completed = 1000; ovlimit 4000 but 3000 in progress and no previous interval →
        // L stays 0; adjLimit = 1000; avail = 1000 − 4000 < 0 → return without touching STACK_XOFF.
        assertFalse(bql.completed(1, 1000));
        assertEquals(STACK_XOFF, state.bits());
        assertEquals(-3000, bql.avail());
    }

    @Test
    void completedClearsStackXoffButDoesNotScheduleWhileDriverStopped()
    {
        // kernel-semantics §7.3: netif_schedule_queue schedules only if no XOFF bit is left.
        bql.sent(1000);
        state.stopQueue();
        assertFalse(bql.completed(1, 1000));
        assertEquals(DRV_XOFF, state.bits());
        assertTrue(state.wakeQueue());
    }

    @Test
    void completedWithZeroBytesDoesNothing()
    {
        // kernel-semantics §7.3: bytes == 0 → nothing.
        bql.sent(1000);
        assertFalse(bql.completed(0, 0));
        assertEquals(STACK_XOFF, state.bits());
        assertEquals(0, bql.dql().numCompleted());
    }

    @Test
    void sentBurstAccountsTheBurstAndKeepsItsLastPacketAsTheLastObject()
    {
        // kernel-semantics §6.4, §7.2: as one netdev_tx_sent_queue per packet, xmit_more on all but the last: the
        // bytes of all, the limit tested once, DQL's last object the last packet.
        assertTrue(bql.sentBurst(2000, 500));
        assertEquals(STACK_XOFF, state.bits());
        assertEquals(2000, bql.dql().numQueued());
        assertEquals(500, bql.dql().lastObjCnt());
        assertThrows(IllegalArgumentException.class, () -> bql.sentBurst(100, 101));
        assertEquals(2000, bql.dql().numQueued());
    }

    @Test
    void resetClearsStackXoffAndLimits()
    {
        // kernel-semantics §7.5.
        bql.sent(1000);
        bql.completed(1, 500);
        bql.reset();
        assertEquals(0, state.bits());
        assertEquals(0, bql.dql().limit());
        assertEquals(0, bql.dql().inflight());
        assertEquals(0, bql.avail());
    }

    @Test
    void overCompletionAndOversizeSendAreMisuse()
    {
        // kernel-semantics §7.1, P5.
        bql.sent(100);
        assertThrows(IllegalArgumentException.class, () -> bql.completed(1, 101));
        assertThrows(IllegalArgumentException.class, () -> bql.sent(DynamicQueueLimits.DQL_MAX_OBJECT + 1));
        assertThrows(IllegalArgumentException.class, () -> new ByteQueueLimits(null));
    }
}
