package io.xmit.transport.ring;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wake-up protocol step by step, on one thread, with a scripted poller and a counting wake callback. */
class RingDutyCycleTest
{
    private final Deque<Integer> script = new ArrayDeque<>();
    private final Deque<Runnable> betweenPolls = new ArrayDeque<>();
    private int wakes;
    private int polls;
    private final RingDoorbell doorbell = new RingDoorbell(() -> wakes++);

    /** Returns the next scripted work count; an action queued for this poll runs first (a producer racing). */
    private final RingPoller poller = () ->
    {
        polls++;
        final Runnable race = betweenPolls.pollFirst();
        if (null != race)
        {
            race.run();
        }
        return script.isEmpty() ? 0 : script.pollFirst();
    };

    @Test
    void startsIdleAndTheFirstRingWakesOnce()
    {
        assertEquals(RingDoorbell.IDLE, doorbell.state());
        assertTrue(doorbell.ring());
        assertFalse(doorbell.ring());
        assertFalse(doorbell.ring());
        assertEquals(1, wakes);
        assertEquals(RingDoorbell.SCHEDULED, doorbell.state());
    }

    @Test
    void workSchedulesTheNextPollAndKeepsProducersQuiet()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 0);
        doorbell.ring();
        script.add(5);

        assertEquals(5, cycle.onPoll());
        assertEquals(RingDoorbell.RUNNING, doorbell.state());
        assertEquals(2, wakes);
        assertFalse(doorbell.ring(), "a running consumer is not woken");
        assertEquals(2, wakes);
    }

    @Test
    void spinsThroughTheBudgetThenGoesIdleAfterOneRepoll()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 3);
        doorbell.ring();
        wakes = 0;

        for (int i = 0; i < 3; i++)
        {
            assertEquals(0, cycle.onPoll());
            assertEquals(RingDoorbell.RUNNING, doorbell.state());
            assertEquals(i + 1, wakes, "an empty poll within the budget schedules the next one");
        }
        assertEquals(0, cycle.onPoll());
        assertEquals(RingDoorbell.IDLE, doorbell.state());
        assertEquals(3, wakes, "going idle schedules nothing");
        assertEquals(5, polls, "three spins, the poll that spent the budget, and the re-poll");
        assertEquals(1, cycle.idles());
        assertEquals(0, cycle.repollHits());

        assertTrue(doorbell.ring(), "an idle consumer is woken by the next producer");
        assertEquals(4, wakes);
    }

    @Test
    void repollThatFindsWorkTakesTheRingBack()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 0);
        doorbell.ring();
        wakes = 0;
        script.add(0);
        script.add(2);

        assertEquals(2, cycle.onPoll());
        assertEquals(RingDoorbell.RUNNING, doorbell.state());
        assertEquals(1, wakes, "the consumer scheduled its own next poll");
        assertEquals(1, cycle.repollHits());
    }

    @Test
    void repollThatLosesTheRaceToAProducerDoesNotScheduleASecondPoll()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 0);
        doorbell.ring();
        wakes = 0;
        script.add(0);
        script.add(1);
        betweenPolls.add(() -> { });
        // A producer commits and rings between IDLE and the re-poll's CAS.
        betweenPolls.add(() -> assertTrue(doorbell.ring()));

        assertEquals(1, cycle.onPoll());
        assertEquals(RingDoorbell.SCHEDULED, doorbell.state());
        assertEquals(1, wakes, "only the producer's wake-up is in flight");

        assertEquals(0, cycle.onPoll());
        assertEquals(RingDoorbell.IDLE, doorbell.state(), "the producer's Poll runs and finds the ring empty");
    }

    @Test
    void aPollFromOutsideTheProtocolWhileIdleNeverAddsASecondOne()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 5);
        script.add(0);
        assertEquals(0, cycle.onPoll());
        assertEquals(RingDoorbell.IDLE, doorbell.state());
        assertEquals(0, wakes);

        script.add(4);
        betweenPolls.add(() -> assertTrue(doorbell.ring()));
        assertEquals(4, cycle.onPoll());
        assertEquals(RingDoorbell.SCHEDULED, doorbell.state());
        assertEquals(1, wakes, "the producer's wake-up, and no second Poll from the consumer");

        script.add(3);
        assertEquals(3, cycle.onPoll());
        assertEquals(RingDoorbell.RUNNING, doorbell.state());
        assertEquals(2, wakes);
    }

    @Test
    void rejectsBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> new RingDoorbell(null));
        assertThrows(IllegalArgumentException.class, () -> new RingDutyCycle(null, poller, 0));
        assertThrows(IllegalArgumentException.class, () -> new RingDutyCycle(doorbell, null, 0));
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> new RingDutyCycle(doorbell, poller, -1));
        assertEquals("spinBudget must be 0 or more, was -1", ex.getMessage());
    }

    @Test
    void stateWordHasItsOwnCacheLines() throws NoSuchFieldException
    {
        // RingDoorbell ← RhsPadding ← State ← LhsPadding, reached through the class chain.
        final Class<?> rhsPadding = RingDoorbell.class.getSuperclass();
        final Class<?> stateClass = rhsPadding.getSuperclass();
        final Class<?> lhsPadding = stateClass.getSuperclass();
        final long state = UnsafeApi.objectFieldOffset(stateClass.getDeclaredField("state"));
        final long before = UnsafeApi.objectFieldOffset(lhsPadding.getDeclaredField("p127"));
        final long after = UnsafeApi.objectFieldOffset(rhsPadding.getDeclaredField("q000"));
        final long wake = UnsafeApi.objectFieldOffset(RingDoorbell.class.getDeclaredField("wake"));
        assertTrue(state >= 128, "128 bytes before the state word, at " + state);
        assertTrue(before < state && after > state, "padding on both sides: " + before + " < " + state + " < " + after);
        assertTrue(wake - state >= 128, "128 bytes after the state word, wake at " + wake);
    }

    @Test
    void aSpinTimeOfZeroGoesIdleAtOnceWhateverThePollBudget()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 1000, 0);
        doorbell.ring();
        wakes = 0;

        assertEquals(0, cycle.onPoll());
        assertEquals(RingDoorbell.IDLE, doorbell.state(), "the spin's time ran out before its polls did");
        assertEquals(0, wakes);
        assertEquals(1, cycle.idles());
    }

    @Test
    void aNegativeSpinTimeIsRefused()
    {
        assertEquals("spinNanos must be 0 or more, was -1", assertThrows(IllegalArgumentException.class,
            () -> new RingDutyCycle(doorbell, poller, 0, -1)).getMessage());
    }
}
