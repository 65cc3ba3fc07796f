package io.xmit.pipeline.host;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.Checksums;
import io.xmit.pipeline.frame.EthernetFlyweight;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.IcmpFlyweight;
import io.xmit.pipeline.frame.Ipv4Flyweight;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.UdpFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * ICMPv4 for a host (RFC 792, RFC 1122 §3.2.2): answers echo requests and reports UDP datagrams for closed
 * ports with Destination Unreachable / Port Unreachable (type 3, code 3).
 * <p>
 * A {@code classify} call parses and checks a received Ethernet frame (untagged or with one 802.1Q tag) and
 * keeps it; the matching {@code write} call then writes the answer to it into another buffer. Answers go back
 * the way the frame came: MACs swapped, the same 802.1Q tag, addresses swapped, TTL 64, no IP options, DF
 * clear (Linux's ICMP socket does not set it), a fresh identification from a per-instance counter, and every
 * checksum computed. Writes return the frame length or a negative error and never throw; the destination must
 * not overlap the received frame, and the frame (and a caller's {@link ParsedFrame}) must be unchanged
 * between classify and write. Frames are not padded to
 * 60 bytes. Not thread-safe: one instance per thread.
 */
public final class IcmpFrames
{
    /** A write's destination region does not fit in the buffer, or its offset is negative. */
    public static final int NO_SPACE = -1;
    /** The last classify did not give the verdict this write answers. */
    public static final int NOT_CLASSIFIED = -2;
    public static final int TTL = 64;
    /** Destination Unreachable (RFC 792). */
    public static final int TYPE_DESTINATION_UNREACHABLE = 3;
    /** Port Unreachable, a code of Destination Unreachable. */
    public static final int CODE_PORT_UNREACHABLE = 3;
    /**
     * The longest ICMP error datagram: RFC 1812 §4.3.2.3 and Linux's icmp_send quote as much of the offending
     * datagram as fits in 576 bytes; RFC 792 asks only for its header and first 8 data bytes.
     */
    public static final int MAX_ERROR_DATAGRAM_LENGTH = 576;
    /** How much of the offending datagram an error quotes at most: 576 - 20 (IPv4) - 8 (ICMP). */
    public static final int MAX_QUOTED_LENGTH =
        MAX_ERROR_DATAGRAM_LENGTH - Ipv4Flyweight.MIN_HEADER_LENGTH - IcmpFlyweight.HEADER_LENGTH;

    /** Linux's IPTOS_TOS_MASK and IPTOS_PREC_INTERNETCONTROL: an ICMP error keeps the TOS bits, precedence 6. */
    private static final int TOS_MASK = 0x1E;
    private static final int PRECEDENCE_INTERNET_CONTROL = 0xC0;

    private final FrameParser parser = new FrameParser();
    private final ParsedFrame ownFrame = new ParsedFrame();
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final IcmpFlyweight icmp = new IcmpFlyweight();
    private final UdpFlyweight udp = new UdpFlyweight();

    private DirectBuffer buffer;
    private ParsedFrame frame = ownFrame;
    private int frameOffset;
    private ParseStatus parseStatus = ParseStatus.INVALID_BOUNDS;
    private IcmpVerdict verdict = IcmpVerdict.MALFORMED;
    private int nextIdentification;

    /** Parses the frame of {@code length} bytes at {@code offset} and checks it is an echo request to answer. */
    public IcmpVerdict classifyEchoRequest(final DirectBuffer buffer, final int offset, final int length)
    {
        parseStatus = parser.parse(buffer, offset, length, ownFrame);
        return classifyEchoRequest(buffer, offset, parseStatus, ownFrame);
    }

    /**
     * Checks a frame the caller has already parsed (the RX path parses every frame once) is an echo request to
     * answer: IPv4 header checksum, not a fragment, ICMP checksum, type 8, unicast destination, single-host
     * source. The code is not checked, as Linux does not.
     */
    public IcmpVerdict classifyEchoRequest(
        final DirectBuffer buffer, final int offset, final ParseStatus status, final ParsedFrame parsed)
    {
        keep(buffer, offset, status, parsed);
        IcmpVerdict result = checkIpv4(FlowKey.PROTO_ICMP);
        if (null == result)
        {
            final int icmpLength = parsed.l3Length() - (parsed.l4Offset() - parsed.l3Offset());
            icmp.wrap(buffer, parsed.l4Offset());
            if (0 != Checksums.checksum(buffer, parsed.l4Offset(), icmpLength))
            {
                result = IcmpVerdict.BAD_ICMP_CHECKSUM;
            }
            else if (IcmpFlyweight.ICMP_ECHO_REQUEST != icmp.type())
            {
                result = IcmpVerdict.NOT_ECHO_REQUEST;
            }
            else
            {
                result = checkAddresses(IcmpVerdict.ECHO_REQUEST);
            }
        }
        verdict = result;
        return result;
    }

    /**
     * Parses the frame of {@code length} bytes at {@code offset}, a datagram the caller found no UDP socket
     * for, and checks a port unreachable may answer it.
     */
    public IcmpVerdict classifyPortUnreachable(final DirectBuffer buffer, final int offset, final int length)
    {
        parseStatus = parser.parse(buffer, offset, length, ownFrame);
        return classifyPortUnreachable(buffer, offset, parseStatus, ownFrame);
    }

    /**
     * Checks a parsed frame, a datagram the caller found no UDP socket for, may be answered with a port
     * unreachable (RFC 1122 §3.2.2, RFC 1122 §4.1.3.1): IPv4 header checksum; UDP, so an ICMP error never answers
     * an ICMP error; not a fragment (RFC 1122 forbids only non-first fragments, but without reassembly no
     * fragment is known to reach a closed port); UDP checksum, which Linux verifies before answering; a destination
     * that is neither broadcast nor multicast, at the IP or link layer; a source that names a single host. A
     * subnet-directed broadcast destination needs the prefix, so the caller rules it out.
     */
    public IcmpVerdict classifyPortUnreachable(
        final DirectBuffer buffer, final int offset, final ParseStatus status, final ParsedFrame parsed)
    {
        keep(buffer, offset, status, parsed);
        IcmpVerdict result = checkIpv4(FlowKey.PROTO_UDP);
        if (null == result)
        {
            udp.wrap(buffer, parsed.l4Offset());
            result = checkAddresses(IcmpVerdict.PORT_UNREACHABLE);
            if (IcmpVerdict.PORT_UNREACHABLE == result && 0 != udp.checksum())
            {
                ipv4.wrap(buffer, parsed.l3Offset());
                final long pseudoHeaderSum = Checksums.ipv4PseudoHeaderSum(
                    ipv4.source(), ipv4.destination(), FlowKey.PROTO_UDP, udp.length());
                if (0 != Checksums.complement(Checksums.sum(buffer, parsed.l4Offset(), udp.length(), pseudoHeaderSum)))
                {
                    result = IcmpVerdict.BAD_UDP_CHECKSUM;
                }
            }
        }
        verdict = result;
        return result;
    }

    /** The frame parser's status from the last classify. */
    public ParseStatus parseStatus()
    {
        return parseStatus;
    }

    /** The last classify's verdict. */
    public IcmpVerdict verdict()
    {
        return verdict;
    }

    /**
     * Writes the echo reply (type 0) to the last frame classified {@link IcmpVerdict#ECHO_REQUEST}: the same
     * identifier, sequence number and data, from the address it was sent to. Request IP options are not
     * echoed.
     *
     * @return the frame length, {@link #NO_SPACE} or {@link #NOT_CLASSIFIED}.
     */
    public int writeEchoReply(final MutableDirectBuffer out, final int outOffset)
    {
        if (IcmpVerdict.ECHO_REQUEST != verdict)
        {
            return NOT_CLASSIFIED;
        }
        final int icmpLength = frame.l3Length() - (frame.l4Offset() - frame.l3Offset());
        final int l2Length = frame.l3Offset() - frameOffset;
        final int frameLength = l2Length + Ipv4Flyweight.MIN_HEADER_LENGTH + icmpLength;
        if (outOffset < 0 || outOffset > out.capacity() - frameLength)
        {
            return NO_SPACE;
        }
        ipv4.wrap(buffer, frame.l3Offset());
        final int l4Offset = writeHeaders(out, outOffset, l2Length, ipv4.tos(), icmpLength);
        out.putBytes(l4Offset, buffer, frame.l4Offset(), icmpLength);
        icmp.wrap(out, l4Offset).type(IcmpFlyweight.ICMP_ECHO_REPLY).code(0).checksum(0);
        icmp.checksum(Checksums.checksum(out, l4Offset, icmpLength));
        return frameLength;
    }

    /**
     * Writes Destination Unreachable / Port Unreachable for the last frame classified
     * {@link IcmpVerdict#PORT_UNREACHABLE}, quoting the offending IP datagram (header, options and data) up to
     * {@link #MAX_QUOTED_LENGTH} bytes, as Linux does, so the error is at most 576 bytes of IP. Rate limiting is
     * the caller's ({@link IcmpRateLimiter}), between classify and write.
     *
     * @return the frame length, {@link #NO_SPACE} or {@link #NOT_CLASSIFIED}.
     */
    public int writePortUnreachable(final MutableDirectBuffer out, final int outOffset)
    {
        if (IcmpVerdict.PORT_UNREACHABLE != verdict)
        {
            return NOT_CLASSIFIED;
        }
        final int quotedLength = Math.min(frame.l3Length(), MAX_QUOTED_LENGTH);
        final int icmpLength = IcmpFlyweight.HEADER_LENGTH + quotedLength;
        final int l2Length = frame.l3Offset() - frameOffset;
        final int frameLength = l2Length + Ipv4Flyweight.MIN_HEADER_LENGTH + icmpLength;
        if (outOffset < 0 || outOffset > out.capacity() - frameLength)
        {
            return NO_SPACE;
        }
        ipv4.wrap(buffer, frame.l3Offset());
        final int tos = (ipv4.tos() & TOS_MASK) | PRECEDENCE_INTERNET_CONTROL;
        final int l4Offset = writeHeaders(out, outOffset, l2Length, tos, icmpLength);
        out.putBytes(l4Offset + IcmpFlyweight.HEADER_LENGTH, buffer, frame.l3Offset(), quotedLength);
        icmp.wrap(out, l4Offset)
            .type(TYPE_DESTINATION_UNREACHABLE)
            .code(CODE_PORT_UNREACHABLE)
            .checksum(0)
            .restOfHeader(0);
        icmp.checksum(Checksums.checksum(out, l4Offset, icmpLength));
        return frameLength;
    }

    private void keep(final DirectBuffer buffer, final int offset, final ParseStatus status, final ParsedFrame parsed)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.parseStatus = status;
        this.frame = parsed;
        verdict = IcmpVerdict.MALFORMED;
    }

    /** The IPv4 checks both answers share, or null when they pass. */
    private IcmpVerdict checkIpv4(final int protocol)
    {
        if (ParseStatus.OK != parseStatus)
        {
            return IcmpVerdict.MALFORMED;
        }
        if (EthernetFlyweight.ETHERTYPE_IPV4 != frame.ethertype())
        {
            return IcmpVerdict.NOT_IPV4;
        }
        ipv4.wrap(buffer, frame.l3Offset());
        if (0 != Checksums.checksum(buffer, frame.l3Offset(), ipv4.headerLength()))
        {
            return IcmpVerdict.BAD_IP_CHECKSUM;
        }
        if (frame.isFragment())
        {
            return IcmpVerdict.FRAGMENT;
        }
        if (protocol != frame.ipProtocol())
        {
            return IcmpVerdict.WRONG_PROTOCOL;
        }
        return null;
    }

    private IcmpVerdict checkAddresses(final IcmpVerdict pass)
    {
        ethernet.wrap(buffer, frameOffset);
        ipv4.wrap(buffer, frame.l3Offset());
        if (HostAddresses.isGroupMac(ethernet.destination()) ||
            HostAddresses.isMulticastOrBroadcast(ipv4.destination()))
        {
            return IcmpVerdict.BROADCAST_DESTINATION;
        }
        if (HostAddresses.isGroupMac(ethernet.source()) || !HostAddresses.isSingleHost(ipv4.source()))
        {
            return IcmpVerdict.BAD_SOURCE;
        }
        return pass;
    }

    /** Writes Ethernet (swapped, same tag) and a 20-byte IPv4 header (swapped); returns the ICMP offset. */
    private int writeHeaders(
        final MutableDirectBuffer out, final int outOffset, final int l2Length, final int tos, final int icmpLength)
    {
        ethernet.wrap(buffer, frameOffset);
        final long requestDestination = ethernet.destination();
        final long requestSource = ethernet.source();
        out.putBytes(outOffset, buffer, frameOffset, l2Length);
        ethernet.wrap(out, outOffset).destination(requestSource).source(requestDestination);

        ipv4.wrap(buffer, frame.l3Offset());
        final int requestSourceIp = ipv4.source();
        final int requestDestinationIp = ipv4.destination();
        final int l3Offset = outOffset + l2Length;
        ipv4.wrap(out, l3Offset)
            .versionAndHeaderLength(Ipv4Flyweight.MIN_HEADER_LENGTH)
            .tos(tos)
            .totalLength(Ipv4Flyweight.MIN_HEADER_LENGTH + icmpLength)
            .identification(nextIdentification)
            .flagsAndFragmentOffset(0)
            .ttl(TTL)
            .protocol(FlowKey.PROTO_ICMP)
            .source(requestDestinationIp)
            .destination(requestSourceIp)
            .updateHeaderChecksum();
        nextIdentification = (nextIdentification + 1) & 0xFFFF;
        return l3Offset + Ipv4Flyweight.MIN_HEADER_LENGTH;
    }
}
