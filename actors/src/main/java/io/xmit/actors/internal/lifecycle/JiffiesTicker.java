package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.pipeline.txq.Jiffies;

import java.time.Duration;

/** Ticks a pipeline's {@link Jiffies} every {@link Jiffies#TICK_NANOS}, as the timer interrupt advances jiffies. */
final class JiffiesTicker
{
    private enum Tick
    {
        INSTANCE
    }

    private JiffiesTicker()
    {
    }

    static Behavior<?> create(final Jiffies jiffies)
    {
        return Behaviors.<Tick>withTimers(timers ->
        {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, Duration.ofNanos(Jiffies.TICK_NANOS));
            return Behaviors.receiveMessage(tick ->
            {
                jiffies.tick();
                return Behaviors.same();
            });
        });
    }
}
