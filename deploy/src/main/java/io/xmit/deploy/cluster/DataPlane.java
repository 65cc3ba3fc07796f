package io.xmit.deploy.cluster;

import io.xmit.transport.ring.DataPlaneConfig;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The inter-node data plane: the Aeron UDP streams' settings ({@link DataPlaneConfig}: MTU, term, receiver window,
 * socket buffers), how the media driver's threads wait when there is nothing to do, and an app node's sockets' spin
 * budget and receipt interval.
 *
 * @param socketSpinPolls  empty polls an app node's socket spins through before its actor goes idle (0: at once, the
 *                         cluster's CPUs being shared).
 * @param receiptInterval  how often an app node tells the edge what its sockets have read (a message per socket that
 *                         read something, never per packet).
 */
public record DataPlane(DataPlaneConfig streams, Idle idle, int socketSpinPolls, Duration receiptInterval)
{
    /** The media driver's idle strategy: latency at low rates against CPU spent waiting. */
    public enum Idle
    {
        /** Spin, yield, then park for growing times: Agrona's default, little CPU when idle. */
        BACKOFF("backoff", BackoffIdleStrategy::new),
        /** {@code Thread.yield()} between polls. */
        YIELDING("yielding", YieldingIdleStrategy::new),
        /** Never gives up its core: the lowest latency, a whole core per driver thread. */
        BUSY_SPIN("busy-spin", BusySpinIdleStrategy::new);

        private final String label;
        private final Supplier<IdleStrategy> strategy;

        Idle(final String label, final Supplier<IdleStrategy> strategy)
        {
            this.label = label;
            this.strategy = strategy;
        }

        public String label()
        {
            return label;
        }

        /** A new strategy for each driver thread: they keep state. */
        public Supplier<IdleStrategy> strategy()
        {
            return strategy;
        }

        /** @throws IllegalArgumentException naming {@code key}, the value and the strategies there are. */
        public static Idle of(final String key, final String text)
        {
            for (final Idle idle : values())
            {
                if (idle.label.equals(text))
                {
                    return idle;
                }
            }
            throw new IllegalArgumentException(key + " = '" + text + "' is not " +
                Arrays.stream(values()).map(Idle::label).collect(Collectors.joining(", ")));
        }
    }
}
