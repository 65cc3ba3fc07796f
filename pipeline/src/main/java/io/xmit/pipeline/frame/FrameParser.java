package io.xmit.pipeline.frame;

import io.xmit.pipeline.flow.FlowKey;
import org.agrona.DirectBuffer;

import static io.xmit.pipeline.frame.ParseStatus.BAD_IHL;
import static io.xmit.pipeline.frame.ParseStatus.BAD_IP_VERSION;
import static io.xmit.pipeline.frame.ParseStatus.BAD_TCP_DATA_OFFSET;
import static io.xmit.pipeline.frame.ParseStatus.BAD_UDP_LENGTH;
import static io.xmit.pipeline.frame.ParseStatus.INVALID_BOUNDS;
import static io.xmit.pipeline.frame.ParseStatus.IPV6_PAYLOAD_LENGTH_BEYOND_FRAME;
import static io.xmit.pipeline.frame.ParseStatus.IP_TOTAL_LENGTH_BEYOND_FRAME;
import static io.xmit.pipeline.frame.ParseStatus.IP_TOTAL_LENGTH_SHORTER_THAN_HEADER;
import static io.xmit.pipeline.frame.ParseStatus.OK;
import static io.xmit.pipeline.frame.ParseStatus.TRUNCATED_ARP;
import static io.xmit.pipeline.frame.ParseStatus.TRUNCATED_L2;
import static io.xmit.pipeline.frame.ParseStatus.TRUNCATED_L3;
import static io.xmit.pipeline.frame.ParseStatus.TRUNCATED_L4;
import static io.xmit.pipeline.frame.ParseStatus.TRUNCATED_VLAN_TAG;
import static io.xmit.pipeline.frame.ParseStatus.UNSUPPORTED_ARP_FORMAT;
import static io.xmit.pipeline.frame.ParseStatus.UNSUPPORTED_ETHERTYPE;

/**
 * Classifies an Ethernet frame: Ethernet II with at most one 802.1Q tag, then ARP (Ethernet/IPv4), IPv4 (with
 * options) or IPv6, then UDP, TCP or ICMP/ICMPv6. It fills a {@link ParsedFrame} and its {@link FlowKey}, and
 * returns {@link ParseStatus#OK} or the reason to drop the frame.
 * <p>
 * Every read is checked against {@code offset + length} before it is made, so the parser never throws and never
 * reads outside the frame, whatever the bytes. Bytes after the IP datagram (Ethernet padding to 60 bytes) are
 * ignored: L4 is bounded by the IP length, not the frame length.
 * <p>
 * Classification follows the kernel's flow dissector (kernel-semantics §3.4): every IPv4 fragment, the first
 * included, is classified by addresses and protocol only, so that all fragments of a datagram hash alike (Linux
 * 62230715fd24 "flow_dissector: do not dissect l4 ports for fragments"). IPv6 extension headers are not walked:
 * an IPv6 next header other than UDP, TCP or ICMPv6 (extension headers included) is classified by addresses and
 * that next header with ports 0, the same as an IPv4 protocol the parser does not know. Not thread-safe: one
 * parser per thread.
 */
public final class FrameParser
{
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final ArpFlyweight arp = new ArpFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final UdpFlyweight udp = new UdpFlyweight();
    private final TcpFlyweight tcp = new TcpFlyweight();
    private final IcmpFlyweight icmp = new IcmpFlyweight();

    private int sourcePort;
    private int destinationPort;

    /**
     * Parses the frame of {@code length} bytes at {@code offset}.
     *
     * @return {@link ParseStatus#OK}, or the drop reason; {@link ParseStatus#INVALID_BOUNDS} when the region is
     * not inside {@code buffer}.
     */
    public ParseStatus parse(final DirectBuffer buffer, final int offset, final int length, final ParsedFrame result)
    {
        result.reset();
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            return INVALID_BOUNDS;
        }
        if (length < EthernetFlyweight.HEADER_LENGTH)
        {
            return TRUNCATED_L2;
        }

        final int end = offset + length;
        ethernet.wrap(buffer, offset);
        int ethertype = ethernet.ethertype();
        int l3Offset = offset + EthernetFlyweight.HEADER_LENGTH;
        if (EthernetFlyweight.ETHERTYPE_VLAN == ethertype)
        {
            if (length < EthernetFlyweight.VLAN_HEADER_LENGTH)
            {
                return TRUNCATED_VLAN_TAG;
            }
            result.vlan(ethernet.vlanTci());
            ethertype = ethernet.vlanEthertype();
            l3Offset = offset + EthernetFlyweight.VLAN_HEADER_LENGTH;
        }
        result.l3(ethertype, l3Offset);

        return switch (ethertype)
        {
            case EthernetFlyweight.ETHERTYPE_IPV4 -> parseIpv4(buffer, l3Offset, end, result);
            case EthernetFlyweight.ETHERTYPE_IPV6 -> parseIpv6(buffer, l3Offset, end, result);
            case EthernetFlyweight.ETHERTYPE_ARP -> parseArp(buffer, l3Offset, end, result);
            default -> UNSUPPORTED_ETHERTYPE;
        };
    }

    private ParseStatus parseIpv4(
        final DirectBuffer buffer, final int l3Offset, final int end, final ParsedFrame result)
    {
        final int available = end - l3Offset;
        if (available < Ipv4Flyweight.MIN_HEADER_LENGTH)
        {
            return TRUNCATED_L3;
        }
        ipv4.wrap(buffer, l3Offset);
        if (Ipv4Flyweight.VERSION != ipv4.version())
        {
            return BAD_IP_VERSION;
        }
        final int headerLength = ipv4.headerLength();
        if (headerLength < Ipv4Flyweight.MIN_HEADER_LENGTH)
        {
            return BAD_IHL;
        }
        if (headerLength > available)
        {
            return TRUNCATED_L3;
        }
        final int totalLength = ipv4.totalLength();
        if (totalLength < headerLength)
        {
            return IP_TOTAL_LENGTH_SHORTER_THAN_HEADER;
        }
        if (totalLength > available)
        {
            return IP_TOTAL_LENGTH_BEYOND_FRAME;
        }

        final int protocol = ipv4.protocol();
        final int source = ipv4.source();
        final int destination = ipv4.destination();
        result.ip(protocol, totalLength, ipv4.flagsAndFragmentOffset(), 0);
        final int l4Offset = l3Offset + headerLength;
        final int l4End = l3Offset + totalLength;
        if (result.isFragment())
        {
            // kernel-semantics §3.4: no ports for any fragment, so a datagram's fragments share one flow.
            result.l4(l4Offset, l4Offset, l4End - l4Offset);
            result.flowKey().setIpv4(protocol, source, destination, 0, 0);
            return OK;
        }

        final ParseStatus status = parseL4(buffer, protocol, FlowKey.PROTO_ICMP, l4Offset, l4End, result);
        if (OK == status)
        {
            result.flowKey().setIpv4(protocol, source, destination, sourcePort, destinationPort);
        }
        return status;
    }

    private ParseStatus parseIpv6(
        final DirectBuffer buffer, final int l3Offset, final int end, final ParsedFrame result)
    {
        final int available = end - l3Offset;
        if (available < Ipv6Flyweight.HEADER_LENGTH)
        {
            return TRUNCATED_L3;
        }
        ipv6.wrap(buffer, l3Offset);
        if (Ipv6Flyweight.VERSION != ipv6.version())
        {
            return BAD_IP_VERSION;
        }
        final int payloadLength = ipv6.payloadLength();
        if (payloadLength > available - Ipv6Flyweight.HEADER_LENGTH)
        {
            return IPV6_PAYLOAD_LENGTH_BEYOND_FRAME;
        }

        final int nextHeader = ipv6.nextHeader();
        result.ip(nextHeader, Ipv6Flyweight.HEADER_LENGTH + payloadLength, 0, ipv6.flowLabel());
        final int l4Offset = l3Offset + Ipv6Flyweight.HEADER_LENGTH;
        final ParseStatus status =
            parseL4(buffer, nextHeader, FlowKey.PROTO_ICMPV6, l4Offset, l4Offset + payloadLength, result);
        if (OK == status)
        {
            result.flowKey().setIpv6(
                nextHeader,
                ipv6.sourceHi(),
                ipv6.sourceLo(),
                ipv6.destinationHi(),
                ipv6.destinationLo(),
                sourcePort,
                destinationPort);
        }
        return status;
    }

    private ParseStatus parseL4(
        final DirectBuffer buffer,
        final int protocol,
        final int icmpProtocol,
        final int l4Offset,
        final int l4End,
        final ParsedFrame result)
    {
        final int available = l4End - l4Offset;
        sourcePort = 0;
        destinationPort = 0;
        if (FlowKey.PROTO_UDP == protocol)
        {
            if (available < UdpFlyweight.HEADER_LENGTH)
            {
                return TRUNCATED_L4;
            }
            udp.wrap(buffer, l4Offset);
            final int udpLength = udp.length();
            if (udpLength < UdpFlyweight.HEADER_LENGTH || udpLength > available)
            {
                return BAD_UDP_LENGTH;
            }
            sourcePort = udp.sourcePort();
            destinationPort = udp.destinationPort();
            result.l4(l4Offset, l4Offset + UdpFlyweight.HEADER_LENGTH, udpLength - UdpFlyweight.HEADER_LENGTH);
        }
        else if (FlowKey.PROTO_TCP == protocol)
        {
            if (available < TcpFlyweight.MIN_HEADER_LENGTH)
            {
                return TRUNCATED_L4;
            }
            tcp.wrap(buffer, l4Offset);
            final int headerLength = tcp.headerLength();
            if (headerLength < TcpFlyweight.MIN_HEADER_LENGTH || headerLength > available)
            {
                return BAD_TCP_DATA_OFFSET;
            }
            sourcePort = tcp.sourcePort();
            destinationPort = tcp.destinationPort();
            result.l4(l4Offset, l4Offset + headerLength, available - headerLength);
        }
        else if (icmpProtocol == protocol)
        {
            if (available < IcmpFlyweight.HEADER_LENGTH)
            {
                return TRUNCATED_L4;
            }
            icmp.wrap(buffer, l4Offset);
            result.icmp(icmp.type(), icmp.code());
            result.l4(l4Offset, l4Offset + IcmpFlyweight.HEADER_LENGTH, available - IcmpFlyweight.HEADER_LENGTH);
        }
        else
        {
            result.l4(l4Offset, l4Offset, available);
        }
        return OK;
    }

    private ParseStatus parseArp(final DirectBuffer buffer, final int l3Offset, final int end, final ParsedFrame result)
    {
        if (end - l3Offset < ArpFlyweight.LENGTH)
        {
            return TRUNCATED_ARP;
        }
        arp.wrap(buffer, l3Offset);
        if (ArpFlyweight.HARDWARE_TYPE_ETHERNET != arp.hardwareType() ||
            EthernetFlyweight.ETHERTYPE_IPV4 != arp.protocolType() ||
            ArpFlyweight.HARDWARE_LENGTH_ETHERNET != arp.hardwareLength() ||
            ArpFlyweight.PROTOCOL_LENGTH_IPV4 != arp.protocolLength())
        {
            return UNSUPPORTED_ARP_FORMAT;
        }
        result.arp(arp.operation(), arp.senderMac(), arp.senderIp(), arp.targetMac(), arp.targetIp());
        return OK;
    }
}
