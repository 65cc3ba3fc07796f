package io.xmit.actors;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.SupervisorStrategy;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.transport.ring.RingDutyCycle;

import java.time.Duration;

/**
 * The lockless qdisc of one TX queue as an actor: the only writer of its {@link QdiscEngine}, fed by the TX queue's
 * many-producer ring. Each {@link Poll} is one turn of at most {@code quota} packets, then the mailbox gets its turn
 * (control messages interleave). An idle qdisc is woken by exactly one {@link Poll} from the sender (or TX queue)
 * that finds it idle, and re-checks its ring before sleeping (the MISSED rule, kernel-semantics §5.5), through the
 * transport's {@link RingDutyCycle}.
 * <p>
 * Supervision: restart, at most 10 times in 10 s (then the failure escalates and stops the pipeline). The engine and
 * its off-heap backlog live outside the behavior and survive a restart; the ring position is where the last turn
 * left it; descriptors a failed turn left in its batch go back ({@link QdiscEngine#recover()}) and the restarted
 * behavior takes the duty cycle back. (A failure between {@code tx_burst} and consuming the ring sends those frames
 * again: exactly-once across restarts belongs to the reliability issue.)
 */
final class QdiscActor
{
    sealed interface Command permits Poll, GetBacklog
    {
    }

    enum Poll implements Command
    {
        INSTANCE
    }

    /** Asks for the backlog's length, read on the qdisc's own thread. */
    record GetBacklog(ActorRef<Integer> replyTo) implements Command
    {
    }

    private QdiscActor()
    {
    }

    static Behavior<Command> create(
        final QdiscEngine engine, final RingDutyCycle dutyCycle, final ActorWake<Command> wake)
    {
        final Behavior<Command> behavior = Behaviors.setup(context ->
        {
            wake.bind(context.getSelf());
            engine.recover();
            PollingActor.kick(dutyCycle, () -> context.getSelf().tell(Poll.INSTANCE));
            return Behaviors.receiveMessage(message ->
            {
                if (message instanceof GetBacklog get)
                {
                    get.replyTo().tell(engine.backlog());
                }
                else
                {
                    dutyCycle.onPoll();
                }
                return Behaviors.same();
            });
        });
        return Behaviors.supervise(behavior)
            .onFailure(SupervisorStrategy.restart().withLimit(10, Duration.ofSeconds(10)));
    }
}
