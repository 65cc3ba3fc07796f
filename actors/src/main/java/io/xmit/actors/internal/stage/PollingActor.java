package io.xmit.actors.internal.stage;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.SocketReceiver;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The actor of a pipeline stage whose whole protocol is "poll": each {@link Poll} runs its duty cycle once. Three
 * stages are such actors, each on its CPU's dispatcher:
 * <ul>
 * <li>the <b>RX queue</b> ({@link RxQueueEngine}, NAPI): polls the shim while frames flow; idle, it arms the queue's
 * interrupt and re-polls once, and the device's interrupt thread wakes it with one Poll;</li>
 * <li>the <b>TX queue</b> ({@link TxQueueEngine}): woken by its qdisc after each {@code tx_burst}, polls while
 * packets are in flight, sleeps when none are;</li>
 * <li>the <b>socket</b> ({@link SocketReceiver}): woken by the RX queues that copy datagrams into its ring.</li>
 * </ul>
 * Supervision: {@link Supervision#stage}, restart with back-off. The engine lives outside the behavior (ring
 * positions, the in-flight FIFO, an RX burst not yet released), its {@code recover()} finishes or undoes the step a
 * failure interrupted, and the restarted behavior takes its duty cycle back ({@link #kick}), since the Poll it failed
 * on is gone.
 */
public final class PollingActor
{
    public enum Poll
    {
        INSTANCE
    }

    private PollingActor()
    {
    }

    /**
     * Starts (or, after a restart, resumes) a duty cycle without a second Poll in flight: an idle consumer is rung
     * like a producer would (it looks at its ring once); a running one lost the Poll it failed on, so it gets a new
     * one; a scheduled one has its Poll on the way already.
     */
    public static void kick(final RingDutyCycle dutyCycle, final Runnable tellPoll)
    {
        final int state = dutyCycle.doorbell().state();
        if (RingDoorbell.IDLE == state)
        {
            dutyCycle.doorbell().ring();
        }
        else if (RingDoorbell.RUNNING == state)
        {
            tellPoll.run();
        }
    }

    public static Behavior<Poll> create(final RingDutyCycle dutyCycle, final ActorWake<Poll> wake, final Runnable recover,
        final AtomicCounter restarts)
    {
        return Supervision.stage(Behaviors.setup(context ->
        {
            wake.bind(context.getSelf());
            kick(dutyCycle, () -> context.getSelf().tell(Poll.INSTANCE));
            return Behaviors.receiveMessage(poll ->
            {
                dutyCycle.onPoll();
                return Behaviors.same();
            });
        }), recover, restarts);
    }
}
