package io.xmit.pipeline.host;

/**
 * Address classes the host rules test: group MACs, IPv4 multicast and broadcast, and the IPv4 sources that do
 * not name a single host (RFC 1122 §3.2.2). IPv4 addresses are network-order {@code int}s, MACs 48-bit
 * {@code long}s, as in the frame flyweights.
 */
public final class HostAddresses
{
    /** The I/G bit: the least significant bit of a MAC's first octet, set for multicast and broadcast. */
    public static final long GROUP_BIT = 1L << 40;
    public static final int LIMITED_BROADCAST = 0xFFFF_FFFF;

    private HostAddresses()
    {
    }

    /** True for a multicast or broadcast MAC. */
    public static boolean isGroupMac(final long mac)
    {
        return (mac & GROUP_BIT) != 0;
    }

    /** True for 224.0.0.0/4. */
    public static boolean isMulticast(final int ip)
    {
        return (ip >>> 28) == 0xE;
    }

    /** True for 224.0.0.0/4 and 255.255.255.255, the destinations no ICMP error answers (RFC 1122 §3.2.2). */
    public static boolean isMulticastOrBroadcast(final int ip)
    {
        return LIMITED_BROADCAST == ip || isMulticast(ip);
    }

    /**
     * True when {@code ip} names one host: not 0.0.0.0/8 ("this network"), not loopback 127.0.0.0/8, not
     * multicast, not class E 240.0.0.0/4 (which holds the limited broadcast). RFC 1122 §3.2.2 lists these as
     * sources an ICMP error must not be sent to; a subnet-directed broadcast needs the prefix and is the
     * caller's to rule out.
     */
    public static boolean isSingleHost(final int ip)
    {
        final int firstOctet = ip >>> 24;
        return 0 != firstOctet && 127 != firstOctet && firstOctet < 224;
    }
}
