package io.xmit.actors.internal.stage;

import akka.actor.typed.Behavior;
import akka.actor.typed.SupervisorStrategy;
import akka.actor.typed.javadsl.Behaviors;

import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.event.Level;

import java.time.Duration;

/**
 * The supervision every pipeline actor is spawned under, in one place.
 * <p>
 * <b>Packet stages</b> (RX queue, socket, qdisc, TX queue): restart with back-off. A stage's state lives outside its
 * behavior (ring positions, the off-heap backlog, the in-flight FIFO, an RX burst still in the shim's buffers), so a
 * restarted behavior resumes where the failed one stopped, after the engine's {@code recover()} has finished or
 * undone the interrupted step. The first restart comes after {@link #MIN_BACKOFF}, each further one in a row after
 * twice as long, up to {@link #MAX_BACKOFF}; messages that arrive meanwhile wait (stashed) and are handled after the
 * restart. {@link #MAX_RESTARTS} restarts in a row, none of them followed by {@link #RESET_AFTER} without a failure,
 * mean the failure is not transient: the actor stops, and its guardian stops the pipeline with that error.
 * <p>
 * <b>Control actors</b> (the mapping actors, the TX watchdogs): resume. Each message is a whole change or question,
 * checked before it touches anything, and their state (the port's published queue map, the watchdog's record of
 * which queue timed out) is the same after a failed message as before it.
 */
public final class Supervision
{
    static final Duration MIN_BACKOFF = Duration.ofMillis(5);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
    /**
     * Calm after a restart that forgets the failures before it: short, so that independent failures seconds apart
     * never add up to the limit, yet far longer than a crash loop takes to fail again after its restart.
     */
    static final Duration RESET_AFTER = Duration.ofMillis(250);
    public static final int MAX_RESTARTS = 10;

    private Supervision()
    {
    }

    /**
     * A packet stage's behavior under restart with back-off; at each restart (not the first start) the restart is
     * counted and {@code recover} runs before the stage takes its duty cycle back.
     */
    public static <T> Behavior<T> stage(
        final Behavior<T> behavior, final Runnable recover, final AtomicCounter restarts)
    {
        final boolean[] started = {false};
        final Behavior<T> recovering = Behaviors.setup(context ->
        {
            if (started[0])
            {
                // Atomic: a qdisc's senders count the failures of the turns they run in the same counter.
                restarts.increment();
                recover.run();
            }
            started[0] = true;
            return behavior;
        });
        return Behaviors.supervise(recovering).onFailure(SupervisorStrategy
            .restartWithBackoff(MIN_BACKOFF, MAX_BACKOFF, 0.2)
            .withMaxRestarts(MAX_RESTARTS)
            .withResetBackoffAfter(RESET_AFTER)
            .withLogLevel(Level.WARN));
    }

    /** A control actor's behavior, resumed after a failed message. */
    public static <T> Behavior<T> control(final Behavior<T> behavior)
    {
        return Behaviors.supervise(behavior).onFailure(SupervisorStrategy.resume());
    }
}
