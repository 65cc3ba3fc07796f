package io.xmit.actors.internal.txq;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.internal.rxq.DeviceRxCounters;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.pipeline.txq.TxQueueState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * The TX watchdog of one device port (kernel-semantics §8, {@code dev_watchdog}): every {@code timeout / 4} it looks
 * at the port's TX queues, and a queue that has been stopped (by the driver's full ring or by BQL) for longer than
 * the timeout since its last transmit or stop is counted ({@code txq_watchdog_resets}), logged once with the queue and
 * how long it was stopped, reset through the shim ({@code ndo_tx_timeout}) and woken, so its backlog drains.
 * <p>
 * Unlike the kernel, which resets the device once per expiry for the first queue it finds and re-arms at the oldest
 * stopped queue's {@code transStart + timeout}, every look resets each timed-out queue on its own and freezes no
 * other: the shim resets queues, not whole devices (a deliberate departure, kernel-semantics "Where xmit differs").
 * <p>
 * Each tick also mirrors the port's own receive counters into the counters file ({@link DeviceRxCounters}), so a
 * reader in another process ({@code xmit stat}) sees the receive books at most one tick old.
 */
public final class TxWatchdog
{
    private static final Logger LOG = LoggerFactory.getLogger(TxWatchdog.class);

    private enum Tick
    {
        INSTANCE
    }

    /** What the watchdog needs of a TX queue: {@link TxQueueEngine}'s side of it. */
    interface Watched
    {
        /** Publishes whether the queue is stopped (the {@code txq_stopped} gauge). */
        void observeStopped(boolean stopped);

        /** {@code ndo_tx_timeout} for this queue: reset it and wake it. */
        void watchdogReset();
    }

    private TxWatchdog()
    {
    }

    /**
     * One look at a port's queues (§8.2): each queue's stopped state is published, and every queue that has timed
     * out ({@link TxQueueState#timedOut}) is logged and reset.
     *
     * @return how many queues were reset.
     */
    static int look(final int port, final TxQueueState[] states, final List<? extends Watched> queues,
        final long timeoutNanos)
    {
        int resets = 0;
        for (int q = 0; q < states.length; q++)
        {
            final TxQueueState state = states[q];
            queues.get(q).observeStopped(state.stopped());
            if (state.timedOut(timeoutNanos))
            {
                LOG.warn("xmit: TX watchdog: port {} TX queue {} timed out, stopped for {} ms ({}); resetting it",
                    port, q, (state.clock().nanoTime() - state.transStart()) / 1_000_000, state);
                queues.get(q).watchdogReset();
                resets++;
            }
        }
        return resets;
    }

    /** How often a watchdog with {@code timeout} looks: a quarter of it, from 1 ms to 1 s. */
    static Duration period(final Duration timeout)
    {
        final long nanos = Math.max(1_000_000L, Math.min(1_000_000_000L, timeout.toNanos() / 4));
        return Duration.ofNanos(nanos);
    }

    public static Behavior<Tick> create(final int port, final TxQueueState[] states, final TxQueueEngine[] queues,
        final Duration timeout, final DeviceRxCounters deviceRx)
    {
        final long timeoutNanos = timeout.toNanos();
        final List<TxQueueEngine> watched = List.of(queues);
        return Supervision.control(Behaviors.<Tick>withTimers(timers ->
        {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, period(timeout));
            return Behaviors.receiveMessage(tick ->
            {
                look(port, states, watched, timeoutNanos);

                deviceRx.refresh();
                return Behaviors.same();
            });
        }));
    }
}
