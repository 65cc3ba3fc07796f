package io.xmit.pipeline.frame;

import java.util.Arrays;
import java.util.Random;

import io.xmit.pipeline.flow.FlowKey;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds valid frames of every kind the parser classifies, with random addresses, ports, VLAN tags, IPv4
 * options, payload and Ethernet padding, for the fuzz and allocation tests.
 */
final class RandomFrames
{
    static final int IPV4_UDP = 0;
    static final int IPV4_TCP = 1;
    static final int IPV4_ICMP = 2;
    static final int IPV4_FRAGMENT = 3;
    static final int IPV4_OTHER = 4;
    static final int IPV6_UDP = 5;
    static final int IPV6_TCP = 6;
    static final int IPV6_ICMP = 7;
    static final int IPV6_OTHER = 8;
    static final int ARP = 9;
    static final int KINDS = 10;

    static final int MAX_PAYLOAD = 96;
    static final int MAX_PADDING = 24;
    static final int MAX_FRAME_LENGTH = EthernetFlyweight.VLAN_HEADER_LENGTH + Ipv4Flyweight.MAX_HEADER_LENGTH +
        60 + MAX_PAYLOAD + MAX_PADDING;

    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final UdpFlyweight udp = new UdpFlyweight();
    private final TcpFlyweight tcp = new TcpFlyweight();
    private final IcmpFlyweight icmp = new IcmpFlyweight();
    private final ArpFlyweight arp = new ArpFlyweight();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);

    /** Writes a valid frame of {@code kind} at the start of {@code frame}; returns its length. */
    int write(final Random random, final int kind, final byte[] frame)
    {
        Arrays.fill(frame, (byte)0);
        buffer.wrap(frame);
        final boolean vlan = random.nextBoolean();
        final int l2 = vlan ? EthernetFlyweight.VLAN_HEADER_LENGTH : EthernetFlyweight.HEADER_LENGTH;
        final int ethertype = kind == ARP ? EthernetFlyweight.ETHERTYPE_ARP :
            kind >= IPV6_UDP ? EthernetFlyweight.ETHERTYPE_IPV6 : EthernetFlyweight.ETHERTYPE_IPV4;
        ethernet.wrap(buffer, 0).destination(random.nextLong()).source(random.nextLong());
        if (vlan)
        {
            ethernet.vlan(random.nextInt(8), random.nextInt(4096), ethertype);
        }
        else
        {
            ethernet.ethertype(ethertype);
        }

        final int padding = random.nextInt(4) == 0 ? random.nextInt(MAX_PADDING + 1) : 0;
        if (kind == ARP)
        {
            arp.wrap(buffer, l2).ethernetIpv4().operation(1 + random.nextInt(2))
                .sender(random.nextLong(), random.nextInt()).target(random.nextLong(), random.nextInt());
            return randomPadding(random, frame, l2 + ArpFlyweight.LENGTH, padding);
        }

        final int payload = random.nextInt(MAX_PAYLOAD + 1);
        final boolean isIpv6 = kind >= IPV6_UDP;
        final int l3Header = isIpv6 ? Ipv6Flyweight.HEADER_LENGTH : 4 * (5 + random.nextInt(11));
        final int l4Offset = l2 + l3Header;
        final int protocol;
        final int l4Length;
        switch (kind)
        {
            case IPV4_UDP, IPV6_UDP ->
            {
                protocol = FlowKey.PROTO_UDP;
                l4Length = UdpFlyweight.HEADER_LENGTH + payload;
                udp.wrap(buffer, l4Offset).sourcePort(random.nextInt(65536)).destinationPort(random.nextInt(65536))
                    .length(l4Length).checksum(random.nextInt(65536));
            }
            case IPV4_TCP, IPV6_TCP ->
            {
                protocol = FlowKey.PROTO_TCP;
                final int tcpHeader = 4 * (5 + random.nextInt(11));
                l4Length = tcpHeader + payload;
                tcp.wrap(buffer, l4Offset).sourcePort(random.nextInt(65536)).destinationPort(random.nextInt(65536))
                    .headerLength(tcpHeader);
            }
            case IPV4_ICMP, IPV6_ICMP ->
            {
                protocol = isIpv6 ? FlowKey.PROTO_ICMPV6 : FlowKey.PROTO_ICMP;
                l4Length = IcmpFlyweight.HEADER_LENGTH + payload;
                icmp.wrap(buffer, l4Offset).type(random.nextInt(256)).code(random.nextInt(256))
                    .restOfHeader(random.nextInt());
            }
            default ->
            {
                protocol = kind == IPV4_FRAGMENT ? FlowKey.PROTO_UDP : 47 + random.nextInt(2) * 85;
                l4Length = payload;
            }
        }

        if (isIpv6)
        {
            ipv6.wrap(buffer, l2).versionClassAndLabel(random.nextInt(256), random.nextInt(1 << 20))
                .payloadLength(l4Length).nextHeader(protocol).hopLimit(random.nextInt(256))
                .source(random.nextLong(), random.nextLong()).destination(random.nextLong(), random.nextLong());
        }
        else
        {
            final int fragmentOffset = random.nextInt(Ipv4Flyweight.FRAGMENT_OFFSET_MASK + 1);
            final boolean more = 0 == fragmentOffset || random.nextBoolean();
            final int fragment = kind == IPV4_FRAGMENT ?
                (more ? Ipv4Flyweight.FLAG_MORE_FRAGMENTS : 0) | fragmentOffset :
                (random.nextBoolean() ? Ipv4Flyweight.FLAG_DONT_FRAGMENT : 0);
            ipv4.wrap(buffer, l2).versionAndHeaderLength(l3Header).tos(random.nextInt(256))
                .totalLength(l3Header + l4Length).identification(random.nextInt(65536))
                .flagsAndFragmentOffset(fragment).ttl(random.nextInt(256)).protocol(protocol)
                .source(random.nextInt()).destination(random.nextInt());
            for (int i = Ipv4Flyweight.MIN_HEADER_LENGTH; i < l3Header; i++)
            {
                frame[l2 + i] = 1;
            }
            ipv4.updateHeaderChecksum();
        }
        final int payloadStart = l4Offset + l4Length - payload;
        for (int i = payloadStart; i < l4Offset + l4Length; i++)
        {
            frame[i] = (byte)random.nextInt();
        }
        return randomPadding(random, frame, l4Offset + l4Length, padding);
    }

    private static int randomPadding(final Random random, final byte[] frame, final int length, final int padding)
    {
        for (int i = length; i < length + padding; i++)
        {
            frame[i] = (byte)random.nextInt();
        }
        return length + padding;
    }
}
