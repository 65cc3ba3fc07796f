package io.xmit.actors.internal.stage;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import io.xmit.pipeline.testing.Await;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A doorbell's wake-up that comes before its actor is bound (kernel-semantics §5.5: a wake-up is never lost, or the
 * doorbell stays SCHEDULED with no Poll coming). Each test ends by sending a marker after the wake-up and the bind
 * are done: the probe must receive exactly one Poll and then the marker, so a lost wake-up and a second one both
 * fail without waiting for silence.
 */
class ActorWakeTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final String POLL = "poll";
    private static final String MARKER = "marker";

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void aWakeBeforeTheBindIsDeliveredAtTheBind_5_5()
    {
        final ActorWake<String> wake = new ActorWake<>(POLL);
        final TestProbe<String> actor = KIT.createTestProbe();

        wake.run();
        wake.bind(actor.ref());
        actor.ref().tell(MARKER);

        actor.expectMessage(POLL);
        actor.expectMessage(MARKER);
    }

    @Test
    void aWakeThatFoundNoActorWhileTheBindRanIsDeliveredOnce_5_5() throws InterruptedException
    {
        // kernel-semantics §5.5: the wake-up reads "no actor" without the lock, then the bind runs to its end before
        // the wake-up takes the lock. Holding the wake's monitor stops the wake-up exactly there; the bind, on the
        // thread that holds the monitor, runs meanwhile. The wake-up must then see the bound actor and send its Poll,
        // not leave it pending for a bind that has already happened.
        final ActorWake<String> wake = new ActorWake<>(POLL);
        final TestProbe<String> actor = KIT.createTestProbe();
        final Thread producer = new Thread(wake, "producer-wake");
        synchronized (wake)
        {
            producer.start();
            Await.until("the wake-up to wait for the lock after finding no actor",
                () -> Thread.State.BLOCKED == producer.getState(), producer::getState);
            wake.bind(actor.ref());
        }
        producer.join();
        actor.ref().tell(MARKER);

        actor.expectMessage(POLL);
        actor.expectMessage(MARKER);
    }

    @Test
    void aWakeAfterTheBindGoesStraightToTheActor_5_5()
    {
        final ActorWake<String> wake = new ActorWake<>(POLL);
        final TestProbe<String> actor = KIT.createTestProbe();

        wake.bind(actor.ref());
        wake.run();
        actor.ref().tell(MARKER);

        actor.expectMessage(POLL);
        actor.expectMessage(MARKER);
    }
}
