package io.xmit.actors.internal.txq;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.internal.rxq.DeviceRxCounters;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.pipeline.txq.TxQueueState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * The TX watchdog of one device port (kernel-semantics §8, {@code dev_watchdog}): every {@code timeout / 4} it looks
 * at the port's TX queues, and a queue that has been stopped (by the driver's full ring or by BQL) for longer than
 * the timeout since its last transmit or stop is counted ({@code txq_watchdog_resets}), logged once with the queue and
 * how long it was stopped, reset through the shim ({@code ndo_tx_timeout}) and woken, so its backlog drains.
 * <p>
 * Unlike the kernel, which resets the device once per expiry for the first queue it finds, each timed-out queue is
 * reset on its own: the shim resets queues, not whole devices.
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

    private TxWatchdog()
    {
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
        return Supervision.control(Behaviors.<Tick>withTimers(timers ->
        {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, period(timeout));
            return Behaviors.receiveMessage(tick ->
            {
                for (int q = 0; q < states.length; q++)
                {
                    final TxQueueState state = states[q];
                    final long stoppedFor = state.clock().nanoTime() - state.transStart();
                    final boolean stopped = (state.bits() & (TxQueueState.DRV_XOFF | TxQueueState.STACK_XOFF)) != 0;
                    queues[q].observeStopped(stopped);
                    if (stopped && stoppedFor > timeoutNanos)
                    {
                        LOG.warn("xmit: TX watchdog: port {} TX queue {} timed out, stopped for {} ms ({}); " +
                            "resetting it", port, q, stoppedFor / 1_000_000, state);
                        queues[q].watchdogReset();
                    }
                }
                deviceRx.refresh();
                return Behaviors.same();
            });
        }));
    }
}
