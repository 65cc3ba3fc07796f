package io.xmit.actors;

import io.xmit.transport.nic.NicSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * Addresses of one device port ({@code xmit.ports}), and what it does as a host.
 *
 * @param mac     this port's MAC, as a 48-bit value, or {@link #LINK_MAC}: the kernel interface's (afpacket).
 * @param ipv4    this port's IPv4 address, network order.
 * @param ipv6Hi  the high 64 bits of this port's IPv6 address.
 * @param ipv6Lo  the low 64 bits of this port's IPv6 address.
 * @param peerMac the MAC frames from this port are sent to when ARP is off, and IPv6 frames always (there is no
 *                IPv6 neighbour discovery yet).
 * @param prefix  the IPv4 prefix length of the port's subnet: destinations inside it are on-link (their own next
 *                hop), the others go to {@code gateway}.
 * @param gateway the IPv4 next hop for destinations off the subnet, or 0 for none (every destination on-link).
 * @param arp     answer ARP requests for {@code ipv4} and resolve IPv4 next hops by ARP (frames wait in the host
 *                actor's neighbour table while their next hop resolves) instead of sending to {@code peerMac}.
 * @param icmp    answer ICMP echo requests to {@code ipv4} and send (rate-limited) ICMP port unreachable for UDP
 *                datagrams to a closed port.
 */
public record PortAddress(long mac, int ipv4, long ipv6Hi, long ipv6Lo, long peerMac, int prefix, int gateway,
    boolean arp, boolean icmp)
{
    /** {@link #mac()} when the port takes the MAC of the kernel interface it drives. */
    public static final long LINK_MAC = -1;
    public static final int DEFAULT_PREFIX = 24;

    public PortAddress
    {
        if (prefix < 0 || prefix > 32)
        {
            throw new IllegalArgumentException("IPv4 prefix length " + prefix + " is not in 0..32");
        }
    }

    /** A port with a static next hop, {@code peerMac}, and no host basics (the loop and null default). */
    public PortAddress(final long mac, final int ipv4, final long ipv6Hi, final long ipv6Lo, final long peerMac)
    {
        this(mac, ipv4, ipv6Hi, ipv6Lo, peerMac, DEFAULT_PREFIX, 0, false, false);
    }

    /** Port i of a default pipeline: MAC 02:00:00:00:00:0(i+1), 10.0.0.(i+1), fd00::(i+1). */
    public static PortAddress defaultFor(final int port, final int portCount)
    {
        final int peer = portCount > 1 ? port ^ 1 : port;
        return new PortAddress(0x0200_0000_0000L + port + 1, 0x0A00_0001 + port, 0xFD00_0000_0000_0000L, port + 1,
            0x0200_0000_0000L + peer + 1);
    }

    /**
     * The port of an afpacket device: the interface's MAC, 10.0.0.1/24, fd00::1, ARP and ICMP on; IPv6 frames go
     * to the broadcast MAC until there is neighbour discovery.
     */
    public static PortAddress defaultForInterface()
    {
        return new PortAddress(LINK_MAC, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1, 0xFFFF_FFFF_FFFFL,
            DEFAULT_PREFIX, 0, true, true);
    }

    /** One address per port of {@code device}: {@link #defaultForInterface} on afpacket, else {@link #defaultFor}. */
    public static List<PortAddress> defaultsFor(final NicSpec device)
    {
        final int count = device.backend().ports();
        final List<PortAddress> ports = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            ports.add(NicSpec.Backend.AFPACKET == device.backend() ? defaultForInterface() : defaultFor(i, count));
        }
        return List.copyOf(ports);
    }

    /** This address with {@code newMac}. */
    public PortAddress withMac(final long newMac)
    {
        return new PortAddress(newMac, ipv4, ipv6Hi, ipv6Lo, peerMac, prefix, gateway, arp, icmp);
    }

    /** True when the port runs a host actor (ARP or ICMP). */
    public boolean hostBasics()
    {
        return arp || icmp;
    }
}
