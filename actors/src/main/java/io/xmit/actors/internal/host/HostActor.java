package io.xmit.actors.internal.host;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.actors.internal.stage.PollingActor;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.transport.ring.RingDutyCycle;

import org.agrona.concurrent.status.AtomicCounter;

import java.time.Duration;

/**
 * The actor of a port's host ({@link HostEngine}), on CPU 0: a {@link PollingActor} whose duty cycle also wakes on a
 * timer, since the neighbour table has work of its own when no frame comes (a request to repeat, a resolution that
 * failed and the frames it held). The tick rings the host ring's doorbell like a producer, so the wake-up protocol
 * keeps one Poll in flight at most. Supervision: {@link Supervision#stage}, restart with back-off; the engine keeps
 * its neighbour table across a restart, which is consistent between frames, and {@code recover} counts the frame
 * whose handling threw ({@link HostEngine#recover()}).
 */
public final class HostActor
{
    /** Finer than the neighbour table's timers (1 s between requests), coarse enough to cost nothing idle. */
    static final Duration TICK = Duration.ofMillis(100);

    public sealed interface Command permits Poll, Tick
    {
    }

    public enum Poll implements Command
    {
        INSTANCE
    }

    enum Tick implements Command
    {
        INSTANCE
    }

    private HostActor()
    {
    }

    public static Behavior<Command> create(final RingDutyCycle dutyCycle, final ActorWake<Command> wake,
        final Runnable recover, final AtomicCounter restarts)
    {
        return Supervision.stage(Behaviors.setup(context -> Behaviors.withTimers(timers ->
        {
            wake.bind(context.getSelf());
            timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
            PollingActor.kick(dutyCycle, () -> context.getSelf().tell(Poll.INSTANCE));
            return Behaviors.receive(Command.class)
                .onMessageEquals(Poll.INSTANCE, () ->
                {
                    dutyCycle.onPoll();
                    return Behaviors.same();
                })
                .onMessageEquals(Tick.INSTANCE, () ->
                {
                    dutyCycle.doorbell().ring();
                    return Behaviors.same();
                })
                .build();
        })), recover, restarts);
    }
}
