package io.xmit.transport.ring;

import org.junit.jupiter.api.Test;

import static io.xmit.transport.ring.LastPollWindows.AFTER_POLL;
import static io.xmit.transport.ring.LastPollWindows.AFTER_REPOLL;
import static io.xmit.transport.ring.LastPollWindows.AFTER_RETURN;
import static io.xmit.transport.ring.LastPollWindows.BEFORE_POLL;
import static io.xmit.transport.ring.LastPollWindows.BEFORE_REPOLL;
import static io.xmit.transport.ring.LastPollWindows.WINDOWS;
import static io.xmit.transport.ring.LastPollWindows.name;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MISSED rule of kernel-semantics §5.5 as the rings keep it, checked for every interleaving instead of by stress
 * ({@link WakeUpStressTest}): one producer's two steps, commit and ring, are placed in each window of a consumer's
 * last {@code Poll} (the empty poll, IDLE published, the re-poll, the re-poll's CAS), in program order, on one
 * thread. The "ring" is a count of committed frames, the consumer's mailbox a count of queued {@code Poll}s.
 */
class RingWakeUpInterleavingTest
{

    private int committed;
    private int consumed;
    private int queuedPolls;
    private int mostQueuedPolls;
    private int polls;
    private boolean underTest;
    private int commitWindow;
    private int ringWindow;
    private boolean ringFoundIdle;
    private RingDutyCycle cycle;

    private final RingDoorbell doorbell = new RingDoorbell(() ->
    {
        queuedPolls++;
        mostQueuedPolls = Math.max(mostQueuedPolls, queuedPolls);
    });

    /**
     * Reads the ring. During the Poll under test (the first read is its poll, the second its re-poll) the producer's
     * steps due in the windows around the read run there; the Polls after it read the ring and nothing else.
     */
    private final RingPoller poller = () ->
    {
        final int call = polls++;
        if (underTest)
        {
            producerStepsIn(0 == call ? BEFORE_POLL : BEFORE_REPOLL);
        }
        final int found = committed;
        consumed += found;
        committed = 0;
        if (underTest)
        {
            producerStepsIn(0 == call ? AFTER_POLL : AFTER_REPOLL);
        }
        return found;
    };

    @Test
    void aFrameCommittedInAnyWindowOfTheConsumersLastPollIsConsumedWithOnePollInFlight_5_5()
    {
        // kernel-semantics §5.5: either the producer's ring finds IDLE and wakes the consumer, or the consumer's
        // re-poll after publishing IDLE finds the frame; never both Polls, never neither.
        for (int commit = BEFORE_POLL; commit < WINDOWS; commit++)
        {
            for (int ring = commit; ring < WINDOWS; ring++)
            {
                final String schedule = "commit " + name(commit) + ", ring " + name(ring);
                run(commit, ring);
                assertEquals(1, consumed, schedule + ": the frame was stranded");
                assertEquals(0, committed, schedule);
                assertTrue(mostQueuedPolls <= 1, schedule + ": " + mostQueuedPolls + " Polls in flight at once");
                assertEquals(0, queuedPolls, schedule);
                assertEquals(RingDoorbell.IDLE, doorbell.state(), schedule + ": the consumer did not go back to sleep");
            }
        }
    }

    @Test
    void aRingInTheWindowBeforeIdleWakesNobodyAndTheRepollFindsTheFrame_5_5()
    {
        // kernel-semantics §5.5: the frame lands after the holder's last empty dequeue, and the producer's ring sees
        // RUNNING (its "trylock" fails). Only the consumer's re-poll after IDLE and its fence can find that frame.
        run(AFTER_POLL, AFTER_POLL);

        assertFalse(ringFoundIdle, "the producer rang a running consumer: no wake-up from it");
        assertEquals(1, consumed);
        assertEquals(1, cycle.repollHits(), "the re-poll found the frame");
        assertEquals(2, cycle.idles(), "idle before the re-poll, and again after the turn the re-poll scheduled");
    }

    /**
     * Wakes the consumer once (as a start does), takes that Poll, and runs the consumer's Poll in which the producer
     * commits in window {@code commit} and rings in window {@code ring}; then runs queued Polls until none is left.
     */
    private void run(final int commit, final int ring)
    {
        cycle = new RingDutyCycle(doorbell, poller, 0);
        committed = 0;
        consumed = 0;
        polls = 0;
        commitWindow = commit;
        ringWindow = ring;
        assertTrue(doorbell.ring(), "the consumer starts idle");
        mostQueuedPolls = 0;
        queuedPolls--;
        underTest = true;
        cycle.onPoll();
        producerStepsIn(AFTER_RETURN);
        underTest = false;
        while (queuedPolls > 0)
        {
            queuedPolls--;
            cycle.onPoll();
        }
    }

    /** The producer's steps due by {@code window}: a window the Poll never reached (no re-poll) passes to the next. */
    private void producerStepsIn(final int window)
    {
        if (commitWindow >= 0 && window >= commitWindow)
        {
            commitWindow = -1;
            committed++;
        }
        if (ringWindow >= 0 && window >= ringWindow)
        {
            ringWindow = -1;
            ringFoundIdle = doorbell.ring();
        }
    }
}
