package io.xmit.pipeline.frame;

import io.xmit.pipeline.flow.FlowKey;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Writes a complete Ethernet (optionally 802.1Q tagged) + IPv4 or IPv6 + UDP frame for a {@link FlowKey}, with
 * the IPv4 header checksum and the UDP checksum over the pseudo-header (mandatory for IPv6, computed for IPv4
 * too). The payload is either already in place at {@link #headerLength(int)} bytes after the frame start, or
 * copied from a source buffer.
 * <p>
 * Per-frame calls return the frame length, or a negative error ({@link #NO_SPACE}, {@link #UNSUPPORTED_FLOW},
 * {@link #PAYLOAD_TOO_LARGE}, {@link #INVALID_PAYLOAD_SOURCE}) and write nothing; they never throw. Frames are
 * not padded to the 60-byte Ethernet minimum: as with a Linux driver, padding is the NIC side's job. Each IPv4
 * frame takes the next identification number. Not thread-safe: one writer per thread.
 */
public final class UdpFrameWriter
{
    /** The destination region does not fit in the buffer, or the offset is negative. */
    public static final int NO_SPACE = -1;
    /** The flow key is not UDP over IPv4 or IPv6. */
    public static final int UNSUPPORTED_FLOW = -2;
    /** The payload length is negative or exceeds what the UDP and IP length fields can express. */
    public static final int PAYLOAD_TOO_LARGE = -3;
    /** The copy source region is not inside the source buffer. */
    public static final int INVALID_PAYLOAD_SOURCE = -4;

    public static final int DEFAULT_TTL = 64;
    public static final int MAX_IPV4_PAYLOAD_LENGTH =
        Ipv4Flyweight.MAX_TOTAL_LENGTH - Ipv4Flyweight.MIN_HEADER_LENGTH - UdpFlyweight.HEADER_LENGTH;
    public static final int MAX_IPV6_PAYLOAD_LENGTH = UdpFlyweight.MAX_LENGTH - UdpFlyweight.HEADER_LENGTH;

    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final UdpFlyweight udp = new UdpFlyweight();

    private boolean vlan;
    private int vlanPcp;
    private int vlanId;
    private int ttl = DEFAULT_TTL;
    private int trafficClass;
    private int flowLabel;
    private boolean dontFragment = true;
    private int nextIdentification;

    /** Tags every frame with one 802.1Q tag. */
    public UdpFrameWriter vlan(final int pcp, final int vlanId)
    {
        checkRange("vlan pcp", pcp, EthernetFlyweight.MAX_VLAN_PCP);
        checkRange("vlan id", vlanId, EthernetFlyweight.MAX_VLAN_ID);
        this.vlan = true;
        this.vlanPcp = pcp;
        this.vlanId = vlanId;
        return this;
    }

    public UdpFrameWriter noVlan()
    {
        vlan = false;
        return this;
    }

    /** IPv4 TTL and IPv6 hop limit; default 64. */
    public UdpFrameWriter ttl(final int ttl)
    {
        checkRange("ttl", ttl, 0xFF);
        this.ttl = ttl;
        return this;
    }

    /** IPv4 TOS byte and IPv6 traffic class (DSCP and ECN); default 0. */
    public UdpFrameWriter trafficClass(final int trafficClass)
    {
        checkRange("traffic class", trafficClass, 0xFF);
        this.trafficClass = trafficClass;
        return this;
    }

    /** IPv6 flow label; default 0. */
    public UdpFrameWriter flowLabel(final int flowLabel)
    {
        if (flowLabel < 0 || flowLabel > Ipv6Flyweight.FLOW_LABEL_MASK)
        {
            throw new IllegalArgumentException("flow label " + flowLabel + " is not in 0..0xFFFFF");
        }
        this.flowLabel = flowLabel;
        return this;
    }

    /** Sets the IPv4 DF bit; default set. */
    public UdpFrameWriter dontFragment(final boolean dontFragment)
    {
        this.dontFragment = dontFragment;
        return this;
    }

    /** The identification the next IPv4 frame carries; later frames count up from it, wrapping at 16 bits. */
    public UdpFrameWriter identification(final int identification)
    {
        checkRange("identification", identification, 0xFFFF);
        this.nextIdentification = identification;
        return this;
    }

    /**
     * Bytes from the frame start to the UDP payload for {@code family}, or {@link #UNSUPPORTED_FLOW} for a family
     * other than {@link FlowKey#FAMILY_IPV4} and {@link FlowKey#FAMILY_IPV6}.
     */
    public int headerLength(final int family)
    {
        final int l2 = vlan ? EthernetFlyweight.VLAN_HEADER_LENGTH : EthernetFlyweight.HEADER_LENGTH;
        if (FlowKey.FAMILY_IPV4 == family)
        {
            return l2 + Ipv4Flyweight.MIN_HEADER_LENGTH + UdpFlyweight.HEADER_LENGTH;
        }
        if (FlowKey.FAMILY_IPV6 == family)
        {
            return l2 + Ipv6Flyweight.HEADER_LENGTH + UdpFlyweight.HEADER_LENGTH;
        }
        return UNSUPPORTED_FLOW;
    }

    /**
     * Writes the headers in front of a payload of {@code payloadLength} bytes already at
     * {@code offset + headerLength(flow.family())}, and the checksums over it.
     *
     * @return the frame length, or a negative error.
     */
    public int write(
        final MutableDirectBuffer buffer,
        final int offset,
        final long destinationMac,
        final long sourceMac,
        final FlowKey flow,
        final int payloadLength)
    {
        final int frameLength = frameLength(buffer, offset, flow, payloadLength);
        if (frameLength > 0)
        {
            writeHeaders(buffer, offset, destinationMac, sourceMac, flow, payloadLength);
        }
        return frameLength;
    }

    /**
     * Copies {@code payloadLength} bytes from {@code source} at {@code sourceOffset} behind the headers, then
     * writes the headers and checksums. The source region must not overlap the destination frame.
     *
     * @return the frame length, or a negative error.
     */
    public int write(
        final MutableDirectBuffer buffer,
        final int offset,
        final long destinationMac,
        final long sourceMac,
        final FlowKey flow,
        final DirectBuffer source,
        final int sourceOffset,
        final int payloadLength)
    {
        final int frameLength = frameLength(buffer, offset, flow, payloadLength);
        if (frameLength > 0)
        {
            if (sourceOffset < 0 || sourceOffset > source.capacity() - payloadLength)
            {
                return INVALID_PAYLOAD_SOURCE;
            }
            buffer.putBytes(offset + headerLength(flow.family()), source, sourceOffset, payloadLength);
            writeHeaders(buffer, offset, destinationMac, sourceMac, flow, payloadLength);
        }
        return frameLength;
    }

    private int frameLength(
        final MutableDirectBuffer buffer, final int offset, final FlowKey flow, final int payloadLength)
    {
        if (FlowKey.PROTO_UDP != flow.protocol())
        {
            return UNSUPPORTED_FLOW;
        }
        final int headerLength = headerLength(flow.family());
        if (headerLength < 0)
        {
            return UNSUPPORTED_FLOW;
        }
        final int maxPayload = FlowKey.FAMILY_IPV4 == flow.family() ? MAX_IPV4_PAYLOAD_LENGTH : MAX_IPV6_PAYLOAD_LENGTH;
        if (payloadLength < 0 || payloadLength > maxPayload)
        {
            return PAYLOAD_TOO_LARGE;
        }
        final int frameLength = headerLength + payloadLength;
        if (offset < 0 || offset > buffer.capacity() - frameLength)
        {
            return NO_SPACE;
        }
        return frameLength;
    }

    private void writeHeaders(
        final MutableDirectBuffer buffer,
        final int offset,
        final long destinationMac,
        final long sourceMac,
        final FlowKey flow,
        final int payloadLength)
    {
        final boolean isIpv4 = FlowKey.FAMILY_IPV4 == flow.family();
        final int ethertype = isIpv4 ? EthernetFlyweight.ETHERTYPE_IPV4 : EthernetFlyweight.ETHERTYPE_IPV6;
        ethernet.wrap(buffer, offset).destination(destinationMac).source(sourceMac);
        final int l3Offset;
        if (vlan)
        {
            ethernet.vlan(vlanPcp, vlanId, ethertype);
            l3Offset = offset + EthernetFlyweight.VLAN_HEADER_LENGTH;
        }
        else
        {
            ethernet.ethertype(ethertype);
            l3Offset = offset + EthernetFlyweight.HEADER_LENGTH;
        }

        final int udpLength = UdpFlyweight.HEADER_LENGTH + payloadLength;
        final int l4Offset;
        final long pseudoHeaderSum;
        if (isIpv4)
        {
            l4Offset = l3Offset + Ipv4Flyweight.MIN_HEADER_LENGTH;
            ipv4.wrap(buffer, l3Offset)
                .versionAndHeaderLength(Ipv4Flyweight.MIN_HEADER_LENGTH)
                .tos(trafficClass)
                .totalLength(Ipv4Flyweight.MIN_HEADER_LENGTH + udpLength)
                .identification(nextIdentification)
                .flagsAndFragmentOffset(dontFragment ? Ipv4Flyweight.FLAG_DONT_FRAGMENT : 0)
                .ttl(ttl)
                .protocol(FlowKey.PROTO_UDP)
                .source(flow.srcIpv4())
                .destination(flow.dstIpv4())
                .updateHeaderChecksum();
            nextIdentification = (nextIdentification + 1) & 0xFFFF;
            pseudoHeaderSum = Checksums.ipv4PseudoHeaderSum(
                flow.srcIpv4(), flow.dstIpv4(), FlowKey.PROTO_UDP, udpLength);
        }
        else
        {
            l4Offset = l3Offset + Ipv6Flyweight.HEADER_LENGTH;
            ipv6.wrap(buffer, l3Offset)
                .versionClassAndLabel(trafficClass, flowLabel)
                .payloadLength(udpLength)
                .nextHeader(FlowKey.PROTO_UDP)
                .hopLimit(ttl)
                .source(flow.srcHi(), flow.srcLo())
                .destination(flow.dstHi(), flow.dstLo());
            pseudoHeaderSum = Checksums.ipv6PseudoHeaderSum(
                flow.srcHi(), flow.srcLo(), flow.dstHi(), flow.dstLo(), FlowKey.PROTO_UDP, udpLength);
        }

        udp.wrap(buffer, l4Offset)
            .sourcePort(flow.srcPort())
            .destinationPort(flow.dstPort())
            .length(udpLength)
            .updateChecksum(pseudoHeaderSum);
    }

    private static void checkRange(final String name, final int value, final int max)
    {
        if (value < 0 || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is not in 0.." + max);
        }
    }
}
