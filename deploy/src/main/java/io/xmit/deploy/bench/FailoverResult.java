package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the failover phase of {@code xmit bench cluster} measured ({@link FailoverPhase}): each kill, and the figures
 * over the kills whose books balanced; a kill whose books did not is reported, never averaged in.
 *
 * @param setup one line on the conditions: nodes, sockets, rate, flows, the failure settings.
 * @param kills in the order they ran.
 */
public record FailoverResult(String setup, List<Kill> kills)
{
    /** The figures summarised over the balanced kills, in the order they are printed. */
    public static final List<String> FIGURES = List.of("failover_ms", "failover_median_ms", "removal_ms",
        "flows_moved", "lost");

    public FailoverResult
    {
        kills = List.copyOf(kills);
    }

    /**
     * One SIGKILL of an app node under load.
     *
     * @param failoverMs       from the kill until the last of the dead node's flows was answered by a survivor.
     * @param failoverMedianMs the median over those flows of the same.
     * @param removalMs        from the kill until the edge's membership no longer listed the node.
     * @param flowsMoved       the flows the dead node answered when it was killed.
     * @param lost             the requests it left unanswered ({@code published - relayed} of it on the edge).
     * @param books            empty if the books balanced, else what did not.
     */
    public record Kill(double failoverMs, double failoverMedianMs, double removalMs, int flowsMoved, long lost,
        String books)
    {
        public boolean balanced()
        {
            return books.isEmpty();
        }

        /**
         * A kill at {@code killNanos} whose moved flows were first answered by a survivor at {@code movedAt} and
         * whose node was removed at {@code removedNanos} (all {@link System#nanoTime()}).
         *
         * @throws IllegalArgumentException if no flow moved: a kill of a node that answered none measures nothing.
         */
        static Kill of(final long killNanos, final List<Long> movedAt, final long removedNanos, final long lost,
            final String books)
        {
            if (movedAt.isEmpty())
            {
                throw new IllegalArgumentException("no flow moved off the killed node: nothing to measure");
            }
            final List<Double> millis = new ArrayList<>();
            for (final long at : movedAt)
            {
                millis.add(millis(at - killNanos));
            }
            final Stat flows = Stat.of(millis);
            return new Kill(flows.max(), flows.median(), millis(removedNanos - killNanos), movedAt.size(), lost,
                books);
        }

        private static double millis(final long nanos)
        {
            return (double)nanos / TimeUnit.MILLISECONDS.toNanos(1);
        }

    }

    /** {@code kill}'s figure named {@code name}, one of {@link #FIGURES}. */
    public static double figure(final Kill kill, final String name)
    {
        return switch (name)
        {
            case "failover_ms" -> kill.failoverMs();
            case "failover_median_ms" -> kill.failoverMedianMs();
            case "removal_ms" -> kill.removalMs();
            case "flows_moved" -> kill.flowsMoved();
            case "lost" -> kill.lost();
            default -> throw new IllegalArgumentException("no failover figure '" + name + "'");
        };
    }

    /** Kills whose books did not balance. */
    public long unbalanced()
    {
        return kills.stream().filter(kill -> !kill.balanced()).count();
    }

    /** Each figure's median, min and max over the balanced kills; empty if none balanced. */
    public Map<String, Stat> summary()
    {
        final Map<String, Stat> summary = new LinkedHashMap<>();
        final List<Kill> balanced = kills.stream().filter(Kill::balanced).toList();
        if (balanced.isEmpty())
        {
            return summary;
        }
        for (final String figure : FIGURES)
        {
            summary.put(figure, Stat.of(balanced.stream().map(kill -> figure(kill, figure)).toList()));
        }
        return summary;
    }
}
