package io.xmit.actors.internal.qdisc;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.actors.internal.stage.PollingActor;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.transport.ring.RingDutyCycle;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The lockless qdisc of one TX queue as an actor: the default runner of its {@link QdiscEngine}, fed by the TX
 * queue's many-producer rings. Each {@link Poll} is one turn of at most {@code quota} packets under the qdisc's run
 * token ({@link QdiscRunner}), then the mailbox gets its turn (control messages interleave, and borrow the token). A
 * turn that finds a sender running the qdisc does nothing: the sender's release rings the doorbell. An idle qdisc is
 * woken by exactly one {@link Poll} from the sender (or TX queue) that finds it idle, and re-checks its ring before
 * sleeping (the MISSED rule, kernel-semantics §5.5), through the transport's {@link RingDutyCycle}.
 * <p>
 * Supervision: {@link Supervision#stage}, restart with back-off. The engine and its off-heap backlog live outside the
 * behavior and survive a restart; the ring position is where the last turn left it; the failed turn kept the run
 * token, and {@link QdiscRunner#recover()} books under it a {@code tx_burst} the failure interrupted and puts back
 * what never reached the driver, so nothing is lost or sent twice; then it releases the token and the restarted
 * behavior takes the duty cycle back.
 */
public final class QdiscActor
{
    public sealed interface Command permits Poll, GetBacklog, GetBooks
    {
    }

    public enum Poll implements Command
    {
        INSTANCE
    }

    /** Asks for the backlog's length, read on the qdisc's own thread. */
    public record GetBacklog(ActorRef<Integer> replyTo) implements Command
    {
    }

    /** Asks for the TX queue's books, read on the qdisc's own thread between turns, where they agree exactly. */
    public record GetBooks(ActorRef<QueueBooks> replyTo) implements Command
    {
    }

    private QdiscActor()
    {
    }

    /** @param dutyCycle the duty cycle over {@code runner}'s turns ({@link QdiscRunner#poll()}). */
    public static Behavior<Command> create(final QdiscRunner runner, final TxQueueEngine txq,
        final RingDutyCycle dutyCycle, final ActorWake<Command> wake, final AtomicCounter restarts)
    {
        return Supervision.stage(Behaviors.setup(context ->
        {
            wake.bind(context.getSelf());
            PollingActor.kick(dutyCycle, () -> context.getSelf().tell(Poll.INSTANCE));
            return Behaviors.receiveMessage(message ->
            {
                switch (message)
                {
                    case Poll poll -> dutyCycle.onPoll();
                    case GetBacklog get -> get.replyTo().tell(runner.backlog());
                    case GetBooks get -> get.replyTo().tell(runner.books(txq));
                }
                return Behaviors.same();
            });
        }), runner::recover, restarts);
    }
}
