package io.xmit.deploy.cluster;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Akka's Split Brain Resolver: which side of a partition survives, decided once membership has been stable for
 * {@code stableAfter}. {@code role} limits the counting to the nodes of that role; {@code quorumSize} is
 * {@code static-quorum}'s.
 */
public record SplitBrain(Strategy strategy, Optional<Role> role, int quorumSize, Duration stableAfter)
{
    /** The strategies of Akka 2.6's open-source SBR this file offers (lease-majority needs a lease, not offered). */
    public enum Strategy
    {
        /** The side with at least {@code quorum-size} nodes (of the role) survives. */
        STATIC_QUORUM("static-quorum"),
        /** The side with more nodes (of the role) survives. */
        KEEP_MAJORITY("keep-majority"),
        /** The side with the oldest node (of the role) survives. */
        KEEP_OLDEST("keep-oldest"),
        /** Every node is downed. */
        DOWN_ALL("down-all");

        private final String label;

        Strategy(final String label)
        {
            this.label = label;
        }

        /** As the file and Akka's {@code active-strategy} spell it. */
        public String label()
        {
            return label;
        }

        /** @throws IllegalArgumentException naming {@code key}, the value and the strategies there are. */
        public static Strategy of(final String key, final String text)
        {
            for (final Strategy strategy : values())
            {
                if (strategy.label.equals(text))
                {
                    return strategy;
                }
            }
            throw new IllegalArgumentException(key + " = '" + text + "' is not " +
                Arrays.stream(values()).map(Strategy::label).collect(Collectors.joining(", ")));
        }
    }
}
