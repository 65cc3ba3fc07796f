package io.xmit.actors.trace;

import io.xmit.actors.config.ConfigValues;
import io.xmit.pipeline.flow.FlowKey;

import java.nio.ByteBuffer;

/**
 * A 5-tuple pattern, {@code proto:src:sport-dst:dport} with {@code *} for any part, e.g.
 * {@code udp:*:*-10.0.0.2:11211} or {@code udp:[fd00::1]:*-*:*}. A packet matches in either direction, as a tcpdump
 * host filter does, so the replies of a matched request are matched too. Immutable; {@link #matches} allocates
 * nothing.
 */
public final class FlowFilter
{
    private static final int ANY = -1;

    private final String text;
    private final int protocol;
    private final Address src;
    private final int srcPort;
    private final Address dst;
    private final int dstPort;

    private record Address(boolean any, int family, long hi, long lo)
    {
        boolean matches(final int keyFamily, final long keyHi, final long keyLo)
        {
            return any || (family == keyFamily && hi == keyHi && lo == keyLo);
        }
    }

    private FlowFilter(final String text, final int protocol, final Address src, final int srcPort,
        final Address dst, final int dstPort)
    {
        this.text = text;
        this.protocol = protocol;
        this.src = src;
        this.srcPort = srcPort;
        this.dst = dst;
        this.dstPort = dstPort;
    }

    /**
     * Parses a filter.
     *
     * @throws IllegalArgumentException naming the part that is wrong.
     */
    public static FlowFilter parse(final String text)
    {
        final int colon = text.indexOf(':');
        if (colon < 0)
        {
            throw new IllegalArgumentException("trace flow '" + text + "': expected proto:src:sport-dst:dport " +
                "(* for any part), e.g. udp:*:*-10.0.0.2:11211");
        }
        final String name = text.substring(0, colon);
        final int protocol = switch (name)
        {
            case "udp" -> FlowKey.PROTO_UDP;
            case "tcp" -> FlowKey.PROTO_TCP;
            case "*" -> ANY;
            default -> throw new IllegalArgumentException(
                "trace flow '" + text + "': protocol '" + name + "' is not udp, tcp or *");
        };
        final String rest = text.substring(colon + 1);
        final int from = rest.startsWith("[") ? Math.max(rest.indexOf(']'), 0) : 0;
        final int dash = rest.indexOf('-', from);
        if (dash < 0)
        {
            throw new IllegalArgumentException("trace flow '" + text + "': expected src:sport-dst:dport");
        }
        final String srcText = rest.substring(0, dash);
        final String dstText = rest.substring(dash + 1);
        return new FlowFilter(text, protocol, address(text, host(text, srcText)), port(text, srcText),
            address(text, host(text, dstText)), port(text, dstText));
    }

    /** True if {@code flow} (source = sender) matches this filter one way or the other. */
    public boolean matches(final FlowKey flow)
    {
        if (ANY != protocol && protocol != flow.protocol())
        {
            return false;
        }
        final int family = flow.family();
        return (src.matches(family, flow.srcHi(), flow.srcLo()) && portMatches(srcPort, flow.srcPort()) &&
            dst.matches(family, flow.dstHi(), flow.dstLo()) && portMatches(dstPort, flow.dstPort())) ||
            (src.matches(family, flow.dstHi(), flow.dstLo()) && portMatches(srcPort, flow.dstPort()) &&
            dst.matches(family, flow.srcHi(), flow.srcLo()) && portMatches(dstPort, flow.srcPort()));
    }

    private static boolean portMatches(final int pattern, final int port)
    {
        return ANY == pattern || pattern == port;
    }

    private static String host(final String filter, final String endpoint)
    {
        if (endpoint.startsWith("["))
        {
            final int close = endpoint.indexOf(']');
            if (close < 0 || close + 1 >= endpoint.length() || endpoint.charAt(close + 1) != ':')
            {
                throw new IllegalArgumentException(
                    "trace flow '" + filter + "': endpoint '" + endpoint + "' is not [v6addr]:port");
            }
            return endpoint.substring(1, close);
        }
        final int colon = endpoint.lastIndexOf(':');
        if (colon < 0 || endpoint.indexOf(':') != colon)
        {
            throw new IllegalArgumentException(
                "trace flow '" + filter + "': endpoint '" + endpoint + "' is not addr:port (* for any)");
        }
        return endpoint.substring(0, colon);
    }

    private static int port(final String filter, final String endpoint)
    {
        final String text = endpoint.substring(endpoint.lastIndexOf(':') + 1);
        if ("*".equals(text))
        {
            return ANY;
        }
        try
        {
            final int port = Integer.parseInt(text);
            if (port >= 0 && port <= 0xFFFF)
            {
                return port;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below.
        }
        throw new IllegalArgumentException("trace flow '" + filter + "': port '" + text + "' is not * or 0..65535");
    }

    private static Address address(final String filter, final String host)
    {
        if ("*".equals(host))
        {
            return new Address(true, 0, 0, 0);
        }
        final byte[] bytes = ConfigValues.addressLiteral(host);
        if (null == bytes)
        {
            throw new IllegalArgumentException(
                "trace flow '" + filter + "': '" + host + "' is not * or a literal IP address");
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        return 4 == bytes.length ? new Address(false, FlowKey.FAMILY_IPV4, 0, b.getInt() & 0xFFFF_FFFFL) :
            new Address(false, FlowKey.FAMILY_IPV6, b.getLong(), b.getLong());
    }

    /** Filters are equal when their texts are (configurations holding them compare by value). */
    @Override
    public boolean equals(final Object o)
    {
        return o instanceof FlowFilter other && text.equals(other.text);
    }

    @Override
    public int hashCode()
    {
        return text.hashCode();
    }

    @Override
    public String toString()
    {
        return text;
    }
}
