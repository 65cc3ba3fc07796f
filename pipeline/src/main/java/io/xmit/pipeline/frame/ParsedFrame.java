package io.xmit.pipeline.frame;

import io.xmit.pipeline.flow.FlowKey;

/**
 * What {@link FrameParser#parse} learned about one frame; reused from frame to frame. Offsets are absolute
 * indexes into the parsed buffer. The fields are meaningful only after {@link ParseStatus#OK}; after a drop they
 * hold what was read before the parser gave up.
 * <p>
 * For ARP, the flow key is cleared ({@link FlowKey#FAMILY_NONE}), there is no L4 and the payload is empty. For
 * an IPv4 fragment or an IP protocol other than UDP, TCP and ICMP/ICMPv6 the flow key carries the addresses and
 * protocol with ports 0, and the L4 offset and the payload are the whole IP payload.
 */
public final class ParsedFrame
{
    /** Value of an offset or field that does not apply to this frame. */
    public static final int NONE = -1;

    private final FlowKey flowKey = new FlowKey();

    private int ethertype;
    private boolean vlanPresent;
    private int vlanTci;
    private int l3Offset;
    private int l3Length;
    private int l4Offset;
    private int payloadOffset;
    private int payloadLength;
    private int ipProtocol;
    private int ipFlagsAndFragmentOffset;
    private int flowLabel;
    private int icmpType;
    private int icmpCode;
    private int arpOperation;
    private long arpSenderMac;
    private int arpSenderIp;
    private long arpTargetMac;
    private int arpTargetIp;

    public ParsedFrame()
    {
        reset();
    }

    /** The 5-tuple: addresses, protocol and ports, or cleared for ARP. */
    public FlowKey flowKey()
    {
        return flowKey;
    }

    /** The EtherType of the L3 header, after the 802.1Q tag if there is one. */
    public int ethertype()
    {
        return ethertype;
    }

    public boolean vlanPresent()
    {
        return vlanPresent;
    }

    /** The raw tag control information, 0 when untagged. */
    public int vlanTci()
    {
        return vlanTci;
    }

    public int vlanId()
    {
        return vlanTci & EthernetFlyweight.MAX_VLAN_ID;
    }

    public int vlanPcp()
    {
        return vlanTci >>> 13;
    }

    public int l3Offset()
    {
        return l3Offset;
    }

    /** The IPv4 total length, 40 + the IPv6 payload length, or 28 for ARP; Ethernet padding is not counted. */
    public int l3Length()
    {
        return l3Length;
    }

    /** Where the L4 header starts, or {@link #NONE} for ARP. */
    public int l4Offset()
    {
        return l4Offset;
    }

    public int payloadOffset()
    {
        return payloadOffset;
    }

    public int payloadLength()
    {
        return payloadLength;
    }

    /** The IPv4 protocol or IPv6 next header, or {@link #NONE} for ARP. */
    public int ipProtocol()
    {
        return ipProtocol;
    }

    public boolean dontFragment()
    {
        return (ipFlagsAndFragmentOffset & Ipv4Flyweight.FLAG_DONT_FRAGMENT) != 0;
    }

    public boolean moreFragments()
    {
        return (ipFlagsAndFragmentOffset & Ipv4Flyweight.FLAG_MORE_FRAGMENTS) != 0;
    }

    /** The IPv4 fragment offset in bytes. */
    public int fragmentOffset()
    {
        return (ipFlagsAndFragmentOffset & Ipv4Flyweight.FRAGMENT_OFFSET_MASK) << 3;
    }

    /** True for any IPv4 fragment, first (MF set, offset 0) or not. */
    public boolean isFragment()
    {
        final int fragmentBits = Ipv4Flyweight.FLAG_MORE_FRAGMENTS | Ipv4Flyweight.FRAGMENT_OFFSET_MASK;
        return (ipFlagsAndFragmentOffset & fragmentBits) != 0;
    }

    /** The IPv6 flow label, 0 for IPv4 and ARP. */
    public int flowLabel()
    {
        return flowLabel;
    }

    /** The ICMP or ICMPv6 type, or {@link #NONE}. */
    public int icmpType()
    {
        return icmpType;
    }

    /** The ICMP or ICMPv6 code, or {@link #NONE}. */
    public int icmpCode()
    {
        return icmpCode;
    }

    /** The ARP operation, or {@link #NONE}. */
    public int arpOperation()
    {
        return arpOperation;
    }

    public long arpSenderMac()
    {
        return arpSenderMac;
    }

    public int arpSenderIp()
    {
        return arpSenderIp;
    }

    public long arpTargetMac()
    {
        return arpTargetMac;
    }

    public int arpTargetIp()
    {
        return arpTargetIp;
    }

    void reset()
    {
        flowKey.clear();
        ethertype = NONE;
        vlanPresent = false;
        vlanTci = 0;
        l3Offset = NONE;
        l3Length = 0;
        l4Offset = NONE;
        payloadOffset = NONE;
        payloadLength = 0;
        ipProtocol = NONE;
        ipFlagsAndFragmentOffset = 0;
        flowLabel = 0;
        icmpType = NONE;
        icmpCode = NONE;
        arpOperation = NONE;
        arpSenderMac = 0;
        arpSenderIp = 0;
        arpTargetMac = 0;
        arpTargetIp = 0;
    }

    void vlan(final int tci)
    {
        vlanPresent = true;
        vlanTci = tci;
    }

    void l3(final int ethertype, final int l3Offset)
    {
        this.ethertype = ethertype;
        this.l3Offset = l3Offset;
    }

    void ip(final int protocol, final int l3Length, final int flagsAndFragmentOffset, final int flowLabel)
    {
        this.ipProtocol = protocol;
        this.l3Length = l3Length;
        this.ipFlagsAndFragmentOffset = flagsAndFragmentOffset;
        this.flowLabel = flowLabel;
    }

    void l4(final int l4Offset, final int payloadOffset, final int payloadLength)
    {
        this.l4Offset = l4Offset;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
    }

    void icmp(final int type, final int code)
    {
        icmpType = type;
        icmpCode = code;
    }

    void arp(final int operation, final long senderMac, final int senderIp, final long targetMac, final int targetIp)
    {
        l3Length = ArpFlyweight.LENGTH;
        payloadOffset = l3Offset + ArpFlyweight.LENGTH;
        arpOperation = operation;
        arpSenderMac = senderMac;
        arpSenderIp = senderIp;
        arpTargetMac = targetMac;
        arpTargetIp = targetIp;
    }
}
