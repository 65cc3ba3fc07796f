package io.xmit.deploy;

import io.xmit.actors.trace.PcapngReader.Packet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sides of a trace file that belong to one request's round trip, found from any one of its packet ids. A request
 * has up to three ids: the client's send is selected at the socket, its arrival at the server's RX queue is selected
 * again (the wire carries no trace id), the reply carries the arrival's id ({@code reply=1}), and the reply's arrival
 * at the client is selected again. The sides of one id are linked by that id; a TX side to the RX side where it arrived
 * by the frame itself, as the loop wire copies it unchanged: the RX side with the same captured bytes and length that
 * arrived first at or after the TX side was sent (and the other way round, the TX side sent last at or before).
 */
final class RoundTrip
{
    private static final Pattern KEY_VALUE = Pattern.compile("(\\w+)=(\\S+)");
    private static final int INBOUND = 1;

    private RoundTrip()
    {
    }

    /** The sides of {@code id} and every side linked to them, in time order; empty if {@code id} has none. */
    static List<Packet> of(final List<Packet> packets, final long id)
    {
        final List<Packet> found = new ArrayList<>();
        addId(packets, id, found);
        for (int i = 0; i < found.size(); i++)
        {
            final Packet side = found.get(i);
            final Packet other = INBOUND == side.direction() ? departure(packets, side) : arrival(packets, side);
            if (null != other && !found.contains(other))
            {
                addId(packets, other.packetId(), found);
            }
        }
        found.sort(Comparator.comparingLong(RoundTrip::startNs));
        return found;
    }

    /**
     * When a side began: an RX side's arrival; a TX side's send by its socket, before the time it waited in the ring
     * and the backlog (its block's time is when the driver accepted it).
     */
    static long startNs(final Packet side)
    {
        final Map<String, String> keys = keys(side.comment());
        if (INBOUND == side.direction() || !"accept".equals(keys.get("driver")))
        {
            return side.timeNs();
        }
        return side.timeNs() - number(keys, "queued_ns") - number(keys, "ring_ns");
    }

    /** The comment's {@code key=value} words, in order. */
    static Map<String, String> keys(final String comment)
    {
        final Map<String, String> keys = new LinkedHashMap<>();
        final Matcher m = KEY_VALUE.matcher(comment);
        while (m.find())
        {
            keys.put(m.group(1), m.group(2));
        }
        return keys;
    }

    /** A number of the comment, 0 if it has no such key. */
    static long number(final Map<String, String> keys, final String key)
    {
        final String value = keys.get(key);
        return null == value ? 0 : Long.parseLong(value);
    }

    private static void addId(final List<Packet> packets, final long id, final List<Packet> found)
    {
        for (final Packet packet : packets)
        {
            if (packet.packetId() == id && !found.contains(packet))
            {
                found.add(packet);
            }
        }
    }

    /** The RX side where TX side {@code sent} arrived, or null if it was not traced there. */
    private static Packet arrival(final List<Packet> packets, final Packet sent)
    {
        final long at = startNs(sent);
        Packet best = null;
        for (final Packet packet : packets)
        {
            if (INBOUND == packet.direction() && sameFrame(packet, sent) && packet.timeNs() >= at &&
                (null == best || packet.timeNs() < best.timeNs()))
            {
                best = packet;
            }
        }
        return best;
    }

    /** The TX side that sent the frame of RX side {@code received}, or null if it was not traced there. */
    private static Packet departure(final List<Packet> packets, final Packet received)
    {
        Packet best = null;
        for (final Packet packet : packets)
        {
            if (INBOUND != packet.direction() && sameFrame(packet, received) &&
                startNs(packet) <= received.timeNs() && (null == best || startNs(packet) > startNs(best)))
            {
                best = packet;
            }
        }
        return best;
    }

    private static boolean sameFrame(final Packet a, final Packet b)
    {
        return a.originalLength() == b.originalLength() && a.frame().length > 0 && Arrays.equals(a.frame(), b.frame());
    }
}
