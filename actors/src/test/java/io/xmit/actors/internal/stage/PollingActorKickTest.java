package io.xmit.actors.internal.stage;

import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A stage that starts or restarts takes its duty cycle back with {@link PollingActor#kick} so that exactly one Poll
 * is in flight afterwards (kernel-semantics §5.5), whatever state the failed incarnation left the doorbell in. The
 * doorbell's wake-ups and the kick's own Poll are counted; no actor runs.
 */
class PollingActorKickTest
{
    private int wakes;
    private int toldPolls;
    private int work;
    private final RingDoorbell doorbell = new RingDoorbell(() -> wakes++);
    private final RingDutyCycle cycle = new RingDutyCycle(doorbell, () -> work, 0);

    @Test
    void anIdleConsumerIsRungOnceLikeAProducerWould_5_5()
    {
        PollingActor.kick(cycle, () -> toldPolls++);

        assertEquals(RingDoorbell.SCHEDULED, doorbell.state());
        assertEquals(1, wakes);
        assertEquals(0, toldPolls);
    }

    @Test
    void aRunningConsumerThatLostItsPollGetsOneNewPoll_5_5()
    {
        // The failed incarnation was in the middle of a Poll: RUNNING, and the Poll it failed on is gone.
        doorbell.ring();
        work = 1;
        cycle.onPoll();
        wakes = 0;

        PollingActor.kick(cycle, () -> toldPolls++);

        assertEquals(RingDoorbell.RUNNING, doorbell.state());
        assertEquals(1, toldPolls);
        assertEquals(0, wakes);
    }

    @Test
    void aScheduledConsumerAlreadyHasItsPollOnTheWay_5_5()
    {
        doorbell.ring();
        wakes = 0;

        PollingActor.kick(cycle, () -> toldPolls++);

        assertEquals(RingDoorbell.SCHEDULED, doorbell.state());
        assertEquals(0, toldPolls);
        assertEquals(0, wakes);
    }
}
