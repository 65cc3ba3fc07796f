package io.xmit.actors;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline's books in both directions. Transmit: every datagram its sockets (and hosts) accepted is transmitted,
 * still in flight, or dropped under a counted reason. Receive, per port ({@link ReceiveBooks}): every frame that
 * arrived at the device is delivered, still in flight, dropped under a counted reason, or missed.
 * <pre>
 * accepted = transmitted + in flight (rings + backlogs + driver) + dropped
 * arrived  = delivered (sockets + host) + in flight (device rings + bursts + socket rings + host ring) + dropped + missed
 * </pre>
 * The TX queues' parts come from each queue's own thread ({@link QueueBooks}, exact at any time); {@code accepted} is
 * read after them, so the frames still in rings ({@code accepted − taken}) are never negative unless a qdisc took a
 * frame twice. {@link #balances()} checks every queue's two equations and that; at rest (nothing in flight) the
 * transmit identity is then exact with nothing left in between. It also checks every port's receive books, read
 * after the TX side.
 *
 * @param accepted the datagrams the pipeline's sockets accepted (open sockets and closed ones).
 * @param queues   every TX queue's books.
 * @param received every port's receive books.
 */
public record Accounting(long accepted, List<QueueBooks> queues, List<ReceiveBooks> received)
{
    public Accounting
    {
        queues = List.copyOf(queues);
        received = List.copyOf(received);
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

    /** Transmit: accepted packets in rings, backlogs and the driver ({@link ReceiveBooks#inFlight} per port). */
    public long inFlight()
    {
        return inRings() + inBacklogs() + inDriver();
    }

    /** Transmit: packets dropped under a reason ({@link ReceiveBooks#dropped} per port). */
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

    /**
     * True if every TX queue's books balance, no frame was taken from a ring that was not accepted, and every port's
     * receive books balance.
     */
    public boolean balances()
    {
        return inRings() >= 0 && queues.stream().allMatch(QueueBooks::balances) &&
            received.stream().allMatch(ReceiveBooks::balances);
    }

    /** Nothing in flight, in either direction. */
    public boolean atRest()
    {
        return 0 == inFlight() && received.stream().allMatch(ReceiveBooks::atRest);
    }

    /** Frames that arrived at the device, over every port. */
    public long arrived()
    {
        return received.stream().mapToLong(ReceiveBooks::arrived).sum();
    }

    /** The identities as one line, transmit then receive, e.g. for a counters display or a log. */
    public String line()
    {
        final StringBuilder line = new StringBuilder()
            .append("tx: accepted ").append(accepted)
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
        for (final ReceiveBooks port : received)
        {
            line.append("; rx ").append(port.line());
        }
        line.append(balances() ? ": balanced" : ": NOT BALANCED");
        if (inRings() < 0)
        {
            line.append("; the qdiscs took ").append(-inRings()).append(" more than was accepted");
        }
        for (final QueueBooks queue : queues)
        {
            if (!queue.balances())
            {
                line.append("; ").append(queue);
            }
        }
        for (final ReceiveBooks port : received)
        {
            for (final String gap : port.gaps())
            {
                line.append("; port ").append(port.portName()).append(" rx: ").append(gap);
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
