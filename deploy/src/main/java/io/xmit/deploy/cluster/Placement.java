package io.xmit.deploy.cluster;

import java.util.List;

/**
 * Where a service's sockets run: {@code per-node N}, N sockets on every node of the service's role; or
 * {@code sharded N}, exactly N cluster-wide, kept alive by Akka, each {@code pinned} to the node its {@code pins}
 * entry names (socket i on {@code pins.get(i)}).
 */
public record Placement(Kind kind, int sockets, List<String> pins)
{
    /** The most sockets a placement may ask for, per node or cluster-wide. */
    public static final int MAX_SOCKETS = 1024;

    public enum Kind
    {
        PER_NODE("per-node"),
        SHARDED("sharded");

        private final String label;

        Kind(final String label)
        {
            this.label = label;
        }

        public String label()
        {
            return label;
        }
    }

    public Placement
    {
        pins = List.copyOf(pins);
    }

    public boolean pinned()
    {
        return !pins.isEmpty();
    }

    /** As the file writes it: {@code per-node 2}, {@code sharded 4 pinned}. */
    @Override
    public String toString()
    {
        return kind.label() + " " + sockets + (pinned() ? " pinned" : "");
    }
}
