package io.xmit.pipeline.host;

import io.xmit.pipeline.frame.ArpFlyweight;
import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Parses and writes Ethernet/IPv4 ARP frames (RFC 826), untagged or with one 802.1Q tag.
 * <p>
 * {@link #parse} classifies a frame into an {@link ArpStatus} and keeps its fields in this object until the
 * next parse; a malformed frame is reported by its status, never by an exception, and nothing is read outside
 * {@code offset + length}. {@link #writeReply} answers the last parsed request, {@link #writeRequest} asks for a
 * target. Writes return the frame length or {@link #NO_SPACE}; frames are not padded to 60 bytes (the NIC
 * side pads, as for {@link io.xmit.pipeline.frame.UdpFrameWriter}). Not thread-safe: one instance per thread.
 */
public final class ArpFrames
{
    /** A write's destination region does not fit in the buffer, or its offset is negative. */
    public static final int NO_SPACE = -1;
    /** {@link #writeReply} was called when the last parse was not a {@link ArpStatus#REQUEST}. */
    public static final int NOT_A_REQUEST = -2;
    /** The tag control information of an untagged frame. */
    public static final int NO_VLAN = -1;
    /** An untagged ARP frame: 14 bytes of Ethernet header and 28 of ARP. */
    public static final int FRAME_LENGTH = EthernetFlyweight.HEADER_LENGTH + ArpFlyweight.LENGTH;
    /** A tagged ARP frame: 18 bytes of Ethernet header and 802.1Q tag, and 28 of ARP. */
    public static final int TAGGED_FRAME_LENGTH = EthernetFlyweight.VLAN_HEADER_LENGTH + ArpFlyweight.LENGTH;

    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final ArpFlyweight arp = new ArpFlyweight();

    private ArpStatus status = ArpStatus.INVALID_BOUNDS;
    private long ethernetDestination;
    private long ethernetSource;
    private int vlanTci = NO_VLAN;
    private int operation;
    private long senderMac;
    private int senderIp;
    private long targetMac;
    private int targetIp;

    /**
     * Classifies the frame of {@code length} bytes at {@code offset} and keeps its fields for the getters and
     * {@link #writeReply}.
     */
    public ArpStatus parse(final DirectBuffer buffer, final int offset, final int length)
    {
        status = classify(buffer, offset, length);
        return status;
    }

    private ArpStatus classify(final DirectBuffer buffer, final int offset, final int length)
    {
        vlanTci = NO_VLAN;
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            return ArpStatus.INVALID_BOUNDS;
        }
        if (length < EthernetFlyweight.HEADER_LENGTH)
        {
            return ArpStatus.TRUNCATED;
        }
        ethernet.wrap(buffer, offset);
        ethernetDestination = ethernet.destination();
        ethernetSource = ethernet.source();
        int ethertype = ethernet.ethertype();
        int arpOffset = offset + EthernetFlyweight.HEADER_LENGTH;
        if (EthernetFlyweight.ETHERTYPE_VLAN == ethertype)
        {
            if (length < EthernetFlyweight.VLAN_HEADER_LENGTH)
            {
                return ArpStatus.TRUNCATED;
            }
            vlanTci = ethernet.vlanTci();
            ethertype = ethernet.vlanEthertype();
            arpOffset = offset + EthernetFlyweight.VLAN_HEADER_LENGTH;
        }
        if (EthernetFlyweight.ETHERTYPE_ARP != ethertype)
        {
            return ArpStatus.NOT_ARP;
        }
        if (offset + length - arpOffset < ArpFlyweight.LENGTH)
        {
            return ArpStatus.TRUNCATED;
        }

        arp.wrap(buffer, arpOffset);
        if (ArpFlyweight.HARDWARE_TYPE_ETHERNET != arp.hardwareType() ||
            EthernetFlyweight.ETHERTYPE_IPV4 != arp.protocolType() ||
            ArpFlyweight.HARDWARE_LENGTH_ETHERNET != arp.hardwareLength() ||
            ArpFlyweight.PROTOCOL_LENGTH_IPV4 != arp.protocolLength())
        {
            return ArpStatus.UNSUPPORTED_FORMAT;
        }
        operation = arp.operation();
        senderMac = arp.senderMac();
        senderIp = arp.senderIp();
        targetMac = arp.targetMac();
        targetIp = arp.targetIp();
        if (ArpFlyweight.OPERATION_REQUEST != operation && ArpFlyweight.OPERATION_REPLY != operation)
        {
            return ArpStatus.BAD_OPERATION;
        }
        // Learning a group MAC would send unicast traffic to a group; Linux's arp_process drops these too.
        if (HostAddresses.isGroupMac(senderMac) || HostAddresses.isMulticastOrBroadcast(senderIp))
        {
            return ArpStatus.BAD_SENDER;
        }
        return ArpFlyweight.OPERATION_REQUEST == operation ? ArpStatus.REQUEST : ArpStatus.REPLY;
    }

    /** The status of the last {@link #parse}. */
    public ArpStatus status()
    {
        return status;
    }

    public long ethernetDestination()
    {
        return ethernetDestination;
    }

    public long ethernetSource()
    {
        return ethernetSource;
    }

    /** The 802.1Q tag control information, or {@link #NO_VLAN}. */
    public int vlanTci()
    {
        return vlanTci;
    }

    public int operation()
    {
        return operation;
    }

    public long senderMac()
    {
        return senderMac;
    }

    public int senderIp()
    {
        return senderIp;
    }

    public long targetMac()
    {
        return targetMac;
    }

    public int targetIp()
    {
        return targetIp;
    }

    /**
     * True for a reply sent to this host's unicast MAC: the answer to our own request, which proves the
     * neighbour reachable. A request or a broadcast (gratuitous) reply only tells its sender's address, like
     * Linux's arp_process, which makes the entry REACHABLE for a reply of PACKET_HOST type and STALE otherwise.
     */
    public boolean confirmsReachability()
    {
        return ArpStatus.REPLY == status && !HostAddresses.isGroupMac(ethernetDestination);
    }

    /**
     * True for an announcement (gratuitous ARP, RFC 5227 §3): sender and target IPv4 are the same, so no one
     * answers it and only the sender's mapping is news.
     */
    public boolean isGratuitous()
    {
        return senderIp == targetIp;
    }

    /**
     * Writes the reply to the last parsed request, RFC 826 "swap the fields": the target becomes the requester,
     * the sender is ({@code ourMac}, {@code ourIp}). The Ethernet destination is the requester's ARP sender MAC
     * (as Linux's arp_send does) and the request's 802.1Q tag, if any, is kept. Whether {@code ourIp} is the
     * requested address is the caller's check ({@link #targetIp()}).
     *
     * @return the frame length, {@link #NO_SPACE} or {@link #NOT_A_REQUEST}.
     */
    public int writeReply(final MutableDirectBuffer buffer, final int offset, final long ourMac, final int ourIp)
    {
        if (ArpStatus.REQUEST != status)
        {
            return NOT_A_REQUEST;
        }
        return write(
            buffer, offset, vlanTci, senderMac, ArpFlyweight.OPERATION_REPLY, ourMac, ourIp, senderMac, senderIp);
    }

    /**
     * Writes a request for {@code targetIp}, target MAC zero. {@code destinationMac} is
     * {@link EthernetFlyweight#BROADCAST_MAC} to resolve, or the cached MAC to re-confirm a stale neighbour by a
     * unicast probe (what Linux's neighbour PROBE state sends).
     *
     * @param vlanTci the 802.1Q tag control information, or {@link #NO_VLAN}.
     * @return the frame length or {@link #NO_SPACE}.
     */
    public int writeRequest(
        final MutableDirectBuffer buffer,
        final int offset,
        final int vlanTci,
        final long destinationMac,
        final long ourMac,
        final int ourIp,
        final int targetIp)
    {
        return write(buffer, offset, vlanTci, destinationMac, ArpFlyweight.OPERATION_REQUEST, ourMac, ourIp, 0L,
            targetIp);
    }

    private int write(
        final MutableDirectBuffer buffer,
        final int offset,
        final int vlanTci,
        final long destinationMac,
        final int operation,
        final long senderMac,
        final int senderIp,
        final long targetMac,
        final int targetIp)
    {
        final int frameLength = NO_VLAN == vlanTci ? FRAME_LENGTH : TAGGED_FRAME_LENGTH;
        if (offset < 0 || offset > buffer.capacity() - frameLength)
        {
            return NO_SPACE;
        }
        ethernet.wrap(buffer, offset).destination(destinationMac).source(senderMac);
        if (NO_VLAN == vlanTci)
        {
            ethernet.ethertype(EthernetFlyweight.ETHERTYPE_ARP);
        }
        else
        {
            ethernet.vlan(vlanTci >>> 13, vlanTci & EthernetFlyweight.MAX_VLAN_ID, EthernetFlyweight.ETHERTYPE_ARP);
        }
        arp.wrap(buffer, offset + frameLength - ArpFlyweight.LENGTH)
            .ethernetIpv4()
            .operation(operation)
            .sender(senderMac, senderIp)
            .target(targetMac, targetIp);
        return frameLength;
    }
}
