package io.xmit.actors;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The receive books of one device port: every frame that arrived at the device was delivered (to a socket's
 * application or to the port's host), is still in a ring, was dropped under a counted reason, or was missed (the
 * device's RX ring was full).
 * <pre>
 * arrived at the device = placed in its RX rings + missed + dropped by the device (fault injection)
 * placed               = taken by the RX queues + in the device's rings
 * taken                = into socket rings + into the host ring + dropped by the RX queues (by reason) + in a burst
 * into socket rings    = delivered by the sockets + dropped at close or stop + in socket rings
 * into the host ring   = taken by the host + in the host ring
 * taken by the host    = handled (answered or learned) + ignored + failed
 * </pre>
 * Each "in" is what is left between two counts, each count read after the ones it is compared with (the later stage
 * first), so none is negative unless a stage counted a frame it was never given: {@link #balances()} checks that. At
 * rest every "in" is 0 and the identity is exact.
 * <p>
 * On a loop device the frames arriving at one port are exactly what the other port's device transmitted:
 * {@code wireSent}, read before this port's counts, is never more than {@link #arrived()} and equals it at rest.
 *
 * @param port               the device port.
 * @param wireSent           on a loop device, the other port's device transmitted ({@code tx_packets}); -1 when
 *                           frames come from outside the pipeline.
 * @param devicePlaced       frames the device placed in this port's RX rings ({@code nic_rx_packets}).
 * @param missed             frames that found an RX ring full ({@code nic_rx_missed}).
 * @param deviceDropped      frames the device removed by fault injection ({@code nic_rx_dropped}).
 * @param taken              frames the RX queues took from the device ({@code rx_packets}).
 * @param toSockets          frames the RX queues put into sockets' rings ({@code rx_delivered}).
 * @param toHost             frames the RX queues put into the host ring ({@code host_rx_queued}).
 * @param dropMalformed      {@code rx_drop_malformed}.
 * @param dropUnsupported    {@code rx_drop_unsupported}.
 * @param dropNoSocket       {@code rx_drop_no_socket}.
 * @param dropSocketRingFull {@code rx_drop_socket_ring_full}.
 * @param dropFailed         {@code rx_drop_failed}.
 * @param dropShutdown       {@code rx_drop_shutdown}.
 * @param dropHostRingFull   {@code host_drop_ring_full}.
 * @param socketDelivered    datagrams the sockets delivered to the application ({@code socket_delivered}, closed
 *                           sockets' included).
 * @param socketDropClosed   {@code socket_drop_closed}.
 * @param hostTaken          frames the host took from its ring ({@code host_rx_frames}).
 * @param hostIgnored        {@code host_ignored}.
 * @param hostFailed         {@code host_drop_failed}.
 * @param dropNodeDown       {@code rx_drop_node_down}: refused by the ring of a member whose node is gone.
 */
public record ReceiveBooks(
    int port,
    long wireSent,
    long devicePlaced,
    long missed,
    long deviceDropped,
    long taken,
    long toSockets,
    long toHost,
    long dropMalformed,
    long dropUnsupported,
    long dropNoSocket,
    long dropSocketRingFull,
    long dropFailed,
    long dropShutdown,
    long dropHostRingFull,
    long socketDelivered,
    long socketDropClosed,
    long hostTaken,
    long hostIgnored,
    long hostFailed,
    long dropNodeDown)
{
    /** {@link #wireSent}: the port's frames come from outside the pipeline. */
    public static final long NO_WIRE = -1;

    /** The port's letter: A for port 0, B for port 1. */
    public char portName()
    {
        return (char)('A' + port);
    }

    /** Frames that arrived at the device: placed, missed or dropped by it. */
    public long arrived()
    {
        return devicePlaced + missed + deviceDropped;
    }

    /** Frames the host handled: answered, learned, or answered with silence by its ICMP rate limit. */
    public long hostHandled()
    {
        return hostTaken - hostIgnored - hostFailed;
    }

    /** Datagrams the sockets delivered and frames the host handled. */
    public long delivered()
    {
        return socketDelivered + hostHandled();
    }

    public long inDeviceRings()
    {
        return devicePlaced - taken;
    }

    /** Frames an RX queue has taken from the device and not yet handed on (the rest of its burst). */
    public long inBursts()
    {
        return taken - toSockets - toHost - dropMalformed - dropUnsupported - dropNoSocket - dropSocketRingFull -
            dropNodeDown - dropFailed - dropShutdown - dropHostRingFull;
    }

    public long inSocketRings()
    {
        return toSockets - socketDelivered - socketDropClosed;
    }

    public long inHostRing()
    {
        return toHost - hostTaken;
    }

    public long inFlight()
    {
        return inDeviceRings() + inBursts() + inSocketRings() + inHostRing();
    }

    /** Frames dropped under a reason, by the device (fault injection), an RX queue, a socket or the host. */
    public long dropped()
    {
        return dropsByReason().values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Frames that arrived and never reached a socket's ring or the host's: missed or dropped by the device, or dropped
     * by an RX queue under any of its reasons.
     */
    public long droppedOnArrival()
    {
        return missed + deviceDropped + dropMalformed + dropUnsupported + dropNoSocket + dropSocketRingFull +
            dropNodeDown + dropFailed + dropShutdown;
    }

    /** The drops by reason (counter name → frames), the reasons with none left out; {@link #missed} is apart. */
    public Map<String, Long> dropsByReason()
    {
        final Map<String, Long> drops = new LinkedHashMap<>();
        add(drops, "nic_rx_dropped", deviceDropped);
        add(drops, "rx_drop_malformed", dropMalformed);
        add(drops, "rx_drop_unsupported", dropUnsupported);
        add(drops, "rx_drop_no_socket", dropNoSocket);
        add(drops, "rx_drop_socket_ring_full", dropSocketRingFull);
        add(drops, "rx_drop_node_down", dropNodeDown);
        add(drops, "rx_drop_failed", dropFailed);
        add(drops, "rx_drop_shutdown", dropShutdown);
        add(drops, "host_drop_ring_full", dropHostRingFull);
        add(drops, "socket_drop_closed", socketDropClosed);
        add(drops, "host_ignored", hostIgnored);
        add(drops, "host_drop_failed", hostFailed);
        return drops;
    }

    /** True if no stage counted more frames than the one before it gave it, nor the wire more than it carried. */
    public boolean balances()
    {
        return gaps().isEmpty();
    }

    /** Nothing in flight, and on a loop device every frame the other port transmitted arrived. */
    public boolean atRest()
    {
        return 0 == inFlight() && (NO_WIRE == wireSent || arrived() == wireSent);
    }

    /** What does not balance, one phrase per gap (empty if the books balance). */
    public List<String> gaps()
    {
        final List<String> gaps = new ArrayList<>();
        gap(gaps, inDeviceRings(), "the RX queues took %d more than the device placed");
        gap(gaps, inBursts(), "the RX queues handed on or dropped %d more than they took");
        gap(gaps, inSocketRings(), "the sockets delivered or dropped %d more than their rings were given");
        gap(gaps, inHostRing(), "the host took %d more than its ring was given");
        gap(gaps, hostHandled(), "the host ignored or failed %d more than it took");
        if (NO_WIRE != wireSent)
        {
            gap(gaps, arrived() - wireSent, "the other port transmitted %d more than arrived");
        }
        return gaps;
    }

    /**
     * The identity as one line, e.g. {@code port B: arrived 10 = delivered 7 (…) + in flight 0 (…) + dropped 1 (…) +
     * missed 2}; its {@link #gaps()} are apart.
     */
    public String line()
    {
        final StringBuilder line = new StringBuilder()
            .append("port ").append(portName())
            .append(": arrived ").append(arrived())
            .append(" = delivered ").append(delivered())
            .append(" (sockets ").append(socketDelivered)
            .append(", host ").append(hostHandled())
            .append(") + in flight ").append(inFlight())
            .append(" (device rings ").append(inDeviceRings())
            .append(", bursts ").append(inBursts())
            .append(", socket rings ").append(inSocketRings())
            .append(", host ring ").append(inHostRing())
            .append(") + dropped ").append(dropped());
        final Map<String, Long> drops = dropsByReason();
        if (!drops.isEmpty())
        {
            line.append(' ').append(drops.toString().replace('{', '(').replace('}', ')'));
        }
        line.append(" + missed ").append(missed);
        if (NO_WIRE != wireSent)
        {
            line.append(" (the other port transmitted ").append(wireSent).append(')');
        }
        return line.toString();
    }

    private static void gap(final List<String> gaps, final long left, final String phrase)
    {
        if (left < 0)
        {
            gaps.add(String.format(phrase, -left));
        }
    }

    private static void add(final Map<String, Long> drops, final String reason, final long packets)
    {
        if (packets > 0)
        {
            drops.put(reason, packets);
        }
    }
}
