package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

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

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;
    /** Version 4, header length 5 words: no options. */
    private static final int IPV4_VERSION_IHL = 0x45;

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
        final int l3Offset = writeEthernet(buffer, offset, destinationMac, sourceMac,
            isIpv4 ? EthernetFlyweight.ETHERTYPE_IPV4 : EthernetFlyweight.ETHERTYPE_IPV6);
        final int udpLength = UdpFlyweight.HEADER_LENGTH + payloadLength;
        if (isIpv4)
        {
            writeIpv4Udp(buffer, l3Offset, flow, udpLength);
            return;
        }
        ipv6.wrap(buffer, l3Offset)
            .versionClassAndLabel(trafficClass, flowLabel)
            .payloadLength(udpLength)
            .nextHeader(FlowKey.PROTO_UDP)
            .hopLimit(ttl)
            .source(flow.srcHi(), flow.srcLo())
            .destination(flow.dstHi(), flow.dstLo());
        udp.wrap(buffer, l3Offset + Ipv6Flyweight.HEADER_LENGTH)
            .sourcePort(flow.srcPort())
            .destinationPort(flow.dstPort())
            .length(udpLength)
            .updateChecksum(Checksums.ipv6PseudoHeaderSum(
                flow.srcHi(), flow.srcLo(), flow.dstHi(), flow.dstLo(), FlowKey.PROTO_UDP, udpLength));
    }

    /**
     * The Ethernet header (and 802.1Q tag) in two or three big-endian stores rather than a store per field: the
     * frame is written per packet, and every store is a bounds-checked call.
     * <pre>
     *   0: destination MAC (6) | source MAC (6) | EtherType (2)                      untagged, 14 bytes
     *   0: destination MAC (6) | source MAC (6) | 0x8100 (2) | TCI (2) | EtherType (2)   tagged, 18 bytes
     * </pre>
     *
     * @return the offset of the L3 header.
     */
    private int writeEthernet(final MutableDirectBuffer buffer, final int offset, final long destinationMac,
        final long sourceMac, final int ethertype)
    {
        buffer.putLong(offset, destinationMac << 16 | (sourceMac >>> 32 & 0xFFFF), NETWORK);
        if (vlan)
        {
            buffer.putLong(offset + 8, (sourceMac & 0xFFFF_FFFFL) << 32 | (long)EthernetFlyweight.ETHERTYPE_VLAN << 16 |
                EthernetFlyweight.vlanTci(vlanPcp, vlanId), NETWORK);
            buffer.putShort(offset + 16, (short)ethertype, NETWORK);
            return offset + EthernetFlyweight.VLAN_HEADER_LENGTH;
        }
        buffer.putInt(offset + 8, (int)sourceMac, NETWORK);
        buffer.putShort(offset + 12, (short)ethertype, NETWORK);
        return offset + EthernetFlyweight.HEADER_LENGTH;
    }

    /**
     * The IPv4 header (no options) and the UDP header in four big-endian stores, both checksums computed from the
     * fields as they are stored (the IPv4 one) and from the payload in place (the UDP one), so no header is read back.
     * The internet checksum may add 32-bit words instead of 16-bit ones ({@link Checksums}): each long below is summed
     * by its two halves.
     * <pre>
     *   +0: 0x45 | TOS | total length | identification | flags + fragment offset
     *   +8: TTL | protocol | header checksum | source address
     *  +16: destination address | source port | destination port
     *  +24: UDP length | UDP checksum
     * </pre>
     */
    private void writeIpv4Udp(final MutableDirectBuffer buffer, final int l3Offset, final FlowKey flow,
        final int udpLength)
    {
        final long versionToFragment = (long)IPV4_VERSION_IHL << 56 | (long)trafficClass << 48 |
            (long)(Ipv4Flyweight.MIN_HEADER_LENGTH + udpLength) << 32 | (long)nextIdentification << 16 |
            (dontFragment ? Ipv4Flyweight.FLAG_DONT_FRAGMENT : 0);
        nextIdentification = (nextIdentification + 1) & 0xFFFF;
        final long ttlProtocol = (long)ttl << 8 | FlowKey.PROTO_UDP;
        final long source = flow.srcIpv4() & 0xFFFF_FFFFL;
        final long destination = flow.dstIpv4() & 0xFFFF_FFFFL;
        final long headerChecksum = Checksums.complement((versionToFragment >>> 32) +
            (versionToFragment & 0xFFFF_FFFFL) + ttlProtocol + source + destination);
        final long ports = (long)flow.srcPort() << 16 | flow.dstPort();
        final int l4Offset = l3Offset + Ipv4Flyweight.MIN_HEADER_LENGTH;
        buffer.putLong(l3Offset, versionToFragment, NETWORK);
        buffer.putLong(l3Offset + 8, ttlProtocol << 48 | headerChecksum << 32 | source, NETWORK);
        buffer.putLong(l3Offset + 16, destination << 32 | ports, NETWORK);
        final long udpSum = Checksums.sum(buffer, l4Offset + UdpFlyweight.HEADER_LENGTH,
            udpLength - UdpFlyweight.HEADER_LENGTH,
            Checksums.ipv4PseudoHeaderSum((int)source, (int)destination, FlowKey.PROTO_UDP, udpLength) + ports +
                udpLength);
        final int udpChecksum = Checksums.complement(udpSum);
        // A computed 0 is sent as 0xFFFF: 0 on the wire means "no checksum" (RFC 768).
        buffer.putInt(l4Offset + UdpFlyweight.LENGTH_OFFSET, udpLength << 16 | (0 == udpChecksum ? 0xFFFF : udpChecksum),
            NETWORK);
    }

    private static void checkRange(final String name, final int value, final int max)
    {
        if (value < 0 || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is not in 0.." + max);
        }
    }
}
