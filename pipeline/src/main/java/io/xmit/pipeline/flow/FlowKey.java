package io.xmit.pipeline.flow;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.regex.Pattern;

/**
 * A mutable, reusable 5-tuple: protocol, source and destination address, source and destination port.
 * Addresses are 128 bits (hi, lo); an IPv4 address lives in the low 32 bits of {@code lo} with {@code hi}
 * zero. Ports are 0 for protocols without them (ICMP, or a non-first IPv4 fragment).
 */
public final class FlowKey
{
    private static final Pattern DOTTED_QUAD = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    public static final int FAMILY_NONE = 0;
    public static final int FAMILY_IPV4 = 4;
    public static final int FAMILY_IPV6 = 6;

    public static final int PROTO_ICMP = 1;
    public static final int PROTO_TCP = 6;
    public static final int PROTO_UDP = 17;
    public static final int PROTO_ICMPV6 = 58;

    private int family;
    private int protocol;
    private long srcHi;
    private long srcLo;
    private long dstHi;
    private long dstLo;
    private int srcPort;
    private int dstPort;

    public FlowKey setIpv4(final int protocol, final int srcAddr, final int dstAddr, final int srcPort, final int dstPort)
    {
        this.family = FAMILY_IPV4;
        this.protocol = protocol & 0xFF;
        this.srcHi = 0;
        this.srcLo = srcAddr & 0xFFFF_FFFFL;
        this.dstHi = 0;
        this.dstLo = dstAddr & 0xFFFF_FFFFL;
        this.srcPort = srcPort & 0xFFFF;
        this.dstPort = dstPort & 0xFFFF;
        return this;
    }

    public FlowKey setIpv6(
        final int protocol,
        final long srcHi,
        final long srcLo,
        final long dstHi,
        final long dstLo,
        final int srcPort,
        final int dstPort)
    {
        this.family = FAMILY_IPV6;
        this.protocol = protocol & 0xFF;
        this.srcHi = srcHi;
        this.srcLo = srcLo;
        this.dstHi = dstHi;
        this.dstLo = dstLo;
        this.srcPort = srcPort & 0xFFFF;
        this.dstPort = dstPort & 0xFFFF;
        return this;
    }

    public FlowKey copyFrom(final FlowKey other)
    {
        family = other.family;
        protocol = other.protocol;
        srcHi = other.srcHi;
        srcLo = other.srcLo;
        dstHi = other.dstHi;
        dstLo = other.dstLo;
        srcPort = other.srcPort;
        dstPort = other.dstPort;
        return this;
    }

    public FlowKey clear()
    {
        family = FAMILY_NONE;
        protocol = 0;
        srcHi = srcLo = dstHi = dstLo = 0;
        srcPort = dstPort = 0;
        return this;
    }

    public int family()
    {
        return family;
    }

    public int protocol()
    {
        return protocol;
    }

    public long srcHi()
    {
        return srcHi;
    }

    public long srcLo()
    {
        return srcLo;
    }

    public long dstHi()
    {
        return dstHi;
    }

    public long dstLo()
    {
        return dstLo;
    }

    /** The IPv4 source address as a network-order int; meaningful only for {@link #FAMILY_IPV4}. */
    public int srcIpv4()
    {
        return (int)srcLo;
    }

    /** The IPv4 destination address as a network-order int; meaningful only for {@link #FAMILY_IPV4}. */
    public int dstIpv4()
    {
        return (int)dstLo;
    }

    public int srcPort()
    {
        return srcPort;
    }

    public int dstPort()
    {
        return dstPort;
    }

    /**
     * Parses {@code proto:src:sport-dst:dport}, e.g. {@code udp:10.0.0.1:5000-10.0.0.2:11211} or
     * {@code tcp:[2001:db8::1]:80-[2001:db8::2]:443}. Only literal addresses are accepted (no name lookup).
     *
     * @throws IllegalArgumentException naming the part that is wrong.
     */
    public static FlowKey parse(final String text)
    {
        final int colon = text.indexOf(':');
        if (colon < 0)
        {
            throw new IllegalArgumentException("flow '" + text + "': expected proto:src:sport-dst:dport");
        }
        final String protoName = text.substring(0, colon);
        final int protocol = switch (protoName)
        {
            case "udp" -> PROTO_UDP;
            case "tcp" -> PROTO_TCP;
            default -> throw new IllegalArgumentException(
                "flow '" + text + "': protocol '" + protoName + "' is not udp or tcp");
        };
        final String rest = text.substring(colon + 1);
        final int dash = splitDash(rest);
        if (dash < 0)
        {
            throw new IllegalArgumentException("flow '" + text + "': expected src:sport-dst:dport");
        }
        final Endpoint src = endpoint(text, rest.substring(0, dash));
        final Endpoint dst = endpoint(text, rest.substring(dash + 1));
        if (src.address.length != dst.address.length)
        {
            throw new IllegalArgumentException("flow '" + text + "': source and destination mix IPv4 and IPv6");
        }
        final FlowKey key = new FlowKey();
        if (src.address.length == 4)
        {
            key.setIpv4(protocol, ByteBuffer.wrap(src.address).getInt(), ByteBuffer.wrap(dst.address).getInt(),
                src.port, dst.port);
        }
        else
        {
            final ByteBuffer s = ByteBuffer.wrap(src.address);
            final ByteBuffer d = ByteBuffer.wrap(dst.address);
            key.setIpv6(protocol, s.getLong(), s.getLong(), d.getLong(), d.getLong(), src.port, dst.port);
        }
        return key;
    }

    private static int splitDash(final String rest)
    {
        // The separator is the dash after the source port: skip a bracketed IPv6 source first.
        final int from = rest.startsWith("[") ? Math.max(rest.indexOf(']'), 0) : 0;
        return rest.indexOf('-', from);
    }

    private record Endpoint(byte[] address, int port)
    {
    }

    private static Endpoint endpoint(final String flow, final String text)
    {
        final String host;
        final String portText;
        if (text.startsWith("["))
        {
            final int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':')
            {
                throw new IllegalArgumentException("flow '" + flow + "': endpoint '" + text + "' is not [v6addr]:port");
            }
            host = text.substring(1, close);
            portText = text.substring(close + 2);
        }
        else
        {
            final int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon)
            {
                throw new IllegalArgumentException("flow '" + flow + "': endpoint '" + text + "' is not addr:port");
            }
            host = text.substring(0, colon);
            portText = text.substring(colon + 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(portText);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("flow '" + flow + "': port '" + portText + "' is not a number");
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("flow '" + flow + "': port " + port + " is not in 0..65535");
        }
        final InetAddress address;
        try
        {
            // Inet4Address also takes the old short forms (1.2.3 is 1.2.0.3): a typo here, refused below.
            address = host.indexOf(':') >= 0 ? Inet6Address.ofLiteral(host) :
                Inet4Address.ofLiteral(DOTTED_QUAD.matcher(host).matches() ? host : "");
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("flow '" + flow + "': '" + host + "' is not a literal IP address");
        }
        return new Endpoint(address.getAddress(), port);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof FlowKey k && family == k.family && protocol == k.protocol &&
            srcHi == k.srcHi && srcLo == k.srcLo && dstHi == k.dstHi && dstLo == k.dstLo &&
            srcPort == k.srcPort && dstPort == k.dstPort;
    }

    @Override
    public int hashCode()
    {
        long h = family * 31L + protocol;
        h = h * 31 + srcHi;
        h = h * 31 + srcLo;
        h = h * 31 + dstHi;
        h = h * 31 + dstLo;
        h = h * 31 + srcPort;
        h = h * 31 + dstPort;
        return Long.hashCode(h);
    }

    @Override
    public String toString()
    {
        final String name = switch (protocol)
        {
            case PROTO_UDP -> "udp";
            case PROTO_TCP -> "tcp";
            case PROTO_ICMP -> "icmp";
            case PROTO_ICMPV6 -> "icmpv6";
            default -> "proto" + protocol;
        };
        return name + ":" + address(srcHi, srcLo) + ":" + srcPort + "-" + address(dstHi, dstLo) + ":" + dstPort;
    }

    private String address(final long hi, final long lo)
    {
        try
        {
            if (family == FAMILY_IPV6)
            {
                final byte[] b = ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
                return "[" + InetAddress.getByAddress(b).getHostAddress() + "]";
            }
            return InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int)lo).array()).getHostAddress();
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
