package io.xmit.pipeline.txq;

import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.txq.TxQueueState.DRV_XOFF;
import static io.xmit.pipeline.txq.TxQueueState.FROZEN;
import static io.xmit.pipeline.txq.TxQueueState.STACK_XOFF;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxQueueStateTest
{
    private static final long ONE_SECOND = 1_000_000_000L;

    private final ManualClock clock = new ManualClock(1_000);
    private final TxQueueState state = new TxQueueState(clock);

    @Test
    void startsAwakeWithTransStartAtCreation()
    {
        assertEquals(0, state.bits());
        assertEquals(1_000, state.transStart());
        assertFalse(state.stopped());
        assertFalse(state.frozenOrStopped());
        assertFalse(state.drvXoffOrFrozen());
    }

    @Test
    void predicatesForEveryBitCombination()
    {
        // kernel-semantics §7.6: stopped = DRV|STACK; frozenOrStopped = DRV|STACK|FROZEN; direct xmit tests DRV|FROZEN.
        for (int bits = 0; bits < 8; bits++)
        {
            final TxQueueState s = new TxQueueState(clock);
            if ((bits & DRV_XOFF) != 0)
            {
                s.stopQueue();
            }
            if ((bits & STACK_XOFF) != 0)
            {
                s.setStackXoff();
            }
            if ((bits & FROZEN) != 0)
            {
                s.freeze();
            }
            assertEquals(bits, s.bits());
            assertEquals((bits & (DRV_XOFF | STACK_XOFF)) != 0, s.stopped(), "stopped for bits " + bits);
            assertEquals(bits != 0, s.frozenOrStopped(), "frozenOrStopped for bits " + bits);
            assertEquals((bits & (DRV_XOFF | FROZEN)) != 0, s.drvXoffOrFrozen(), "drvXoffOrFrozen for bits " + bits);
        }
    }

    @Test
    void stopQueueStampsTransStartAndSetsDrvXoff()
    {
        // kernel-semantics §7.6 / §8.3: netif_tx_stop_queue sets trans_start = now, then DRV_XOFF.
        clock.set(5_000);
        state.stopQueue();
        assertEquals(DRV_XOFF, state.bits());
        assertEquals(5_000, state.transStart());
    }

    @Test
    void aWatchdogLookingWhileTheQueueStopsNeverSeesItStoppedSinceAnOldStamp_7_6()
    {
        // kernel-semantics §7.6, §8.3: netif_tx_stop_queue stamps transStart before it sets DRV_XOFF. The watchdog
        // looks in the middle of the stop (inside its clock read, between the two steps): it must find the queue
        // running, not stopped since the stamp of 10 s ago, which would reset a queue that has only just stopped.
        final boolean[] seen = {true};
        clock.set(10_000_001_000L);
        clock.onNextRead(() -> seen[0] = state.timedOut(ONE_SECOND));

        state.stopQueue();

        assertFalse(seen[0], "the watchdog took the queue it saw stopping for stopped since the old stamp");
        assertFalse(state.timedOut(ONE_SECOND));
        assertTrue(state.stopped());
    }

    @Test
    void wakeQueueReportsOnlyTheCallThatClearedDrvXoff()
    {
        // kernel-semantics §7.6: netif_tx_wake_queue schedules only if test_and_clear found DRV_XOFF set.
        assertFalse(state.wakeQueue());
        state.stopQueue();
        assertTrue(state.wakeQueue());
        assertFalse(state.wakeQueue());
        assertEquals(0, state.bits());
    }

    @Test
    void wakeQueueLeavesStackXoffAndFrozen()
    {
        state.stopQueue();
        state.setStackXoff();
        state.freeze();
        assertTrue(state.wakeQueue());
        assertEquals(STACK_XOFF | FROZEN, state.bits());
    }

    @Test
    void startQueueClearsDrvXoffSilently()
    {
        state.stopQueue();
        state.startQueue();
        assertEquals(0, state.bits());
        assertFalse(state.wakeQueue());
    }

    @Test
    void unfreezeAsksForScheduleOnlyWhenNotStopped()
    {
        // kernel-semantics §7.6: netif_tx_unlock clears FROZEN and schedules unless DRV or STACK XOFF remains.
        state.freeze();
        assertTrue(state.unfreeze());
        assertEquals(0, state.bits());

        state.freeze();
        state.stopQueue();
        assertFalse(state.unfreeze());
        assertEquals(DRV_XOFF, state.bits());
        state.startQueue();

        state.freeze();
        state.setStackXoff();
        assertFalse(state.unfreeze());
        assertEquals(STACK_XOFF, state.bits());
    }

    @Test
    void testAndClearStackXoffIsTrueOnlyOnce()
    {
        // kernel-semantics §7.3: only the completer that clears STACK_XOFF schedules.
        assertFalse(state.testAndClearStackXoff());
        state.setStackXoff();
        assertTrue(state.testAndClearStackXoff());
        assertFalse(state.testAndClearStackXoff());
        state.setStackXoff();
        state.clearStackXoff();
        assertEquals(0, state.bits());
    }

    @Test
    void txStartedRecordsTheGivenTime()
    {
        // kernel-semantics §8.3: trans_start follows each accepted transmit.
        state.txStarted(42_000);
        assertEquals(42_000, state.transStart());
        assertEquals(0, state.bits());
    }

    @Test
    void aQueueStoppedLongerThanTheTimeoutHasTimedOutButNotAtExactlyTheTimeout()
    {
        // kernel-semantics §8.2: time_after(now, transStart + timeo), strictly.
        state.stopQueue();
        clock.advance(5_000);
        assertFalse(state.timedOut(5_000), "exactly the timeout is not past it");
        clock.advance(1);
        assertTrue(state.timedOut(5_000));
    }

    @Test
    void aStoppedQueueTimesOutFromItsLastTransmitOrStopNotFromWhenItWasFirstStopped()
    {
        // §8.3: a queue stopped long ago whose transStart is old has timed out; each stop stamps it again.
        state.setStackXoff();
        clock.advance(10_000);
        assertTrue(state.timedOut(5_000), "stopped by BQL without a stamp: transStart is the creation time");
        state.stopQueue();
        assertFalse(state.timedOut(5_000), "netif_tx_stop_queue stamps transStart");
        state.wakeQueue();
        assertTrue(state.stopped(), "STACK_XOFF still set");
        clock.advance(5_001);
        assertTrue(state.timedOut(5_000));
    }

    @Test
    void aQueueThatKeepsTransmittingIsNeverTimedOut()
    {
        // §8.3: every accepted transmit moves transStart, so a stopped but busy queue never ages past the timeout.
        state.stopQueue();
        for (int i = 0; i < 100; i++)
        {
            clock.advance(4_999);
            state.txStarted(clock.nanoTime());
            assertFalse(state.timedOut(5_000), "after transmit " + i);
        }
    }

    @Test
    void anAwakeOrOnlyFrozenQueueIsNeverTimedOutHoweverOld()
    {
        clock.advance(1_000_000);
        assertFalse(state.timedOut(5_000));
        state.freeze();
        assertFalse(state.timedOut(5_000), "FROZEN is not stopped (§8.2 looks at DRV|STACK)");
    }

    @Test
    void rejectsNullClock()
    {
        assertThrows(IllegalArgumentException.class, () -> new TxQueueState(null));
    }
}
