package io.xmit.actors;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline's books: every datagram its sockets accepted is transmitted, still in flight, or dropped under a
 * counted reason.
 * <pre>
 * accepted = transmitted + in flight (rings + backlogs + driver) + dropped
 * </pre>
 * The TX queues' parts come from each queue's own thread ({@link QueueBooks}, exact at any time); {@code accepted} is
 * read after them, so the frames still in rings ({@code accepted − taken}) are never negative unless a qdisc took a
 * frame twice. {@link #balances()} checks every queue's two equations and that; at rest (nothing in flight) the
 * identity above is then exact with nothing left in between.
 *
 * @param accepted the datagrams the pipeline's sockets accepted (open sockets and closed ones).
 * @param queues   every TX queue's books.
 */
public record Accounting(long accepted, List<QueueBooks> queues)
{
    public Accounting
    {
        queues = List.copyOf(queues);
    }

    /** Packets the driver completed. */
    public long transmitted()
    {
        return queues.stream().mapToLong(QueueBooks::completed).sum();
    }

    /** Frames in the TX queues' rings, not yet taken by their qdiscs. */
    public long inRings()
    {
        return accepted - queues.stream().mapToLong(QueueBooks::taken).sum();
    }

    public long inBacklogs()
    {
        return queues.stream().mapToLong(QueueBooks::backlog).sum();
    }

    public long inDriver()
    {
        return queues.stream().mapToLong(QueueBooks::inDriver).sum();
    }

    public long inFlight()
    {
        return inRings() + inBacklogs() + inDriver();
    }

    public long dropped()
    {
        return queues.stream().mapToLong(QueueBooks::dropped).sum();
    }

    /** The drops by reason (counter name → packets), the reasons with none left out. */
    public Map<String, Long> dropsByReason()
    {
        final Map<String, Long> drops = new LinkedHashMap<>();
        add(drops, "qdisc_drop_overflow", queues.stream().mapToLong(QueueBooks::dropOverflow).sum());
        add(drops, "qdisc_drop_oversize", queues.stream().mapToLong(QueueBooks::dropOversize).sum());
        add(drops, "qdisc_drop_driver_error", queues.stream().mapToLong(QueueBooks::dropDriverError).sum());
        add(drops, "qdisc_drop_shutdown", queues.stream().mapToLong(QueueBooks::dropStopQueued).sum());
        add(drops, "txq_drop_shutdown", queues.stream().mapToLong(QueueBooks::dropStopInDriver).sum());
        return drops;
    }

    /** True if every queue's books balance and no frame was taken from a ring that was not accepted. */
    public boolean balances()
    {
        return inRings() >= 0 && queues.stream().allMatch(QueueBooks::balances);
    }

    /** Nothing in flight. */
    public boolean atRest()
    {
        return 0 == inFlight();
    }

    /** The identity as one line, e.g. for a counters display or a log. */
    public String line()
    {
        final StringBuilder line = new StringBuilder()
            .append("accepted ").append(accepted)
            .append(" = transmitted ").append(transmitted())
            .append(" + in flight ").append(inFlight())
            .append(" (rings ").append(inRings())
            .append(", backlogs ").append(inBacklogs())
            .append(", driver ").append(inDriver())
            .append(") + dropped ").append(dropped());
        final Map<String, Long> drops = dropsByReason();
        if (!drops.isEmpty())
        {
            line.append(' ').append(drops.toString().replace('{', '(').replace('}', ')'));
        }
        line.append(balances() ? ": balanced" : ": NOT BALANCED");
        for (final QueueBooks queue : queues)
        {
            if (!queue.balances())
            {
                line.append("; ").append(queue);
            }
        }
        return line.toString();
    }

    private static void add(final Map<String, Long> drops, final String reason, final long packets)
    {
        if (packets > 0)
        {
            drops.put(reason, packets);
        }
    }
}
