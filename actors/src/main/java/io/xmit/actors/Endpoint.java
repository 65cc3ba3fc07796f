package io.xmit.actors;

import io.xmit.actors.config.ConfigValues;
import io.xmit.pipeline.flow.FlowKey;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * An IPv4 or IPv6 address and UDP port, immutable. Make one per destination and keep it: sending to an
 * {@code Endpoint} allocates nothing, where an {@link InetSocketAddress} would have to be converted per packet.
 *
 * @param family {@link FlowKey#FAMILY_IPV4} or {@link FlowKey#FAMILY_IPV6}.
 * @param hi     the high 64 bits of an IPv6 address; 0 for IPv4.
 * @param lo     the low 64 bits of an IPv6 address, or the IPv4 address as an unsigned value (network order).
 * @param port   0..65535.
 */
public record Endpoint(int family, long hi, long lo, int port)
{
    public Endpoint
    {
        if (FlowKey.FAMILY_IPV4 != family && FlowKey.FAMILY_IPV6 != family)
        {
            throw new IllegalArgumentException("endpoint family must be 4 or 6, was " + family);
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("UDP port " + port + " is not in 0..65535");
        }
        if (FlowKey.FAMILY_IPV4 == family && (0 != hi || (lo >>> 32) != 0))
        {
            throw new IllegalArgumentException("an IPv4 endpoint holds a 32-bit address in lo, was hi=" + hi +
                " lo=" + lo);
        }
    }

    /** {@code 10.0.0.1:53}, {@code [fd00::1]:53}. */
    public static Endpoint of(final InetSocketAddress address)
    {
        return of(address.getAddress(), address.getPort());
    }

    public static Endpoint of(final InetAddress address, final int port)
    {
        return of(address.getAddress(), port);
    }

    /** From an address literal such as {@code 10.0.0.2} or {@code fd00::2}. */
    public static Endpoint of(final String address, final int port)
    {
        // Only the literal's failure is reported as a bad address: a bad port has its own message.
        final byte[] literal = ConfigValues.addressLiteral(address);
        if (null == literal)
        {
            throw new IllegalArgumentException("'" + address + "' is not an IPv4 or IPv6 address literal");
        }
        return of(literal, port);
    }

    /** From an address's 4 (IPv4) or 16 (IPv6) bytes in network order. */
    private static Endpoint of(final byte[] address, final int port)
    {
        final ByteBuffer b = ByteBuffer.wrap(address);
        return 4 == address.length ? new Endpoint(FlowKey.FAMILY_IPV4, 0, b.getInt() & 0xFFFF_FFFFL, port) :
            new Endpoint(FlowKey.FAMILY_IPV6, b.getLong(), b.getLong(), port);
    }

    public static Endpoint ipv4(final int address, final int port)
    {
        return new Endpoint(FlowKey.FAMILY_IPV4, 0, address & 0xFFFF_FFFFL, port);
    }

    /** The same address with another port. */
    public Endpoint withPort(final int newPort)
    {
        return new Endpoint(family, hi, lo, newPort);
    }

    public boolean isIpv4()
    {
        return FlowKey.FAMILY_IPV4 == family;
    }

    public InetSocketAddress toInetSocketAddress()
    {
        try
        {
            final byte[] bytes = isIpv4() ? ByteBuffer.allocate(4).putInt((int)lo).array() :
                ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
            return new InetSocketAddress(InetAddress.getByAddress(bytes), port);
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public String toString()
    {
        final InetSocketAddress address = toInetSocketAddress();
        return isIpv4() ? address.getAddress().getHostAddress() + ":" + port :
            "[" + address.getAddress().getHostAddress() + "]:" + port;
    }
}
