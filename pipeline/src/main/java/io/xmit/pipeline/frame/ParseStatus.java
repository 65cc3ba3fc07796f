package io.xmit.pipeline.frame;

/**
 * The outcome of {@link FrameParser#parse}: {@link #OK}, or the reason the frame was dropped. The ordinal is
 * stable within a build and can index a per-reason drop counter.
 */
public enum ParseStatus
{
    /** The frame was classified; every field of the {@link ParsedFrame} that applies to it is set. */
    OK,
    /** The offset or length arguments do not describe a region inside the buffer. */
    INVALID_BOUNDS,
    /** Fewer than the 14 bytes of an Ethernet II header. */
    TRUNCATED_L2,
    /** The TPID says 802.1Q but the 4-byte tag and inner ethertype do not fit. */
    TRUNCATED_VLAN_TAG,
    /** Not IPv4, IPv6 or ARP after at most one 802.1Q tag (includes 802.3 length fields and stacked tags). */
    UNSUPPORTED_ETHERTYPE,
    /** Fewer than the 28 bytes of an Ethernet/IPv4 ARP packet. */
    TRUNCATED_ARP,
    /** ARP for another hardware or protocol type, or with address lengths other than 6 and 4. */
    UNSUPPORTED_ARP_FORMAT,
    /** The IP header (20 bytes, IHL*4 bytes with options, or 40 bytes for IPv6) does not fit in the frame. */
    TRUNCATED_L3,
    /** The IP version nibble does not match the ethertype. */
    BAD_IP_VERSION,
    /** IPv4 IHL below 5. */
    BAD_IHL,
    /** IPv4 total length runs past the end of the frame. */
    IP_TOTAL_LENGTH_BEYOND_FRAME,
    /** IPv4 total length is shorter than the header it describes. */
    IP_TOTAL_LENGTH_SHORTER_THAN_HEADER,
    /** IPv6 payload length runs past the end of the frame. */
    IPV6_PAYLOAD_LENGTH_BEYOND_FRAME,
    /** The UDP (8), TCP (20) or ICMP/ICMPv6 (8) header does not fit in the IP payload. */
    TRUNCATED_L4,
    /** UDP length below 8 or beyond the IP payload. */
    BAD_UDP_LENGTH,
    /** TCP data offset below 5 words or beyond the IP payload. */
    BAD_TCP_DATA_OFFSET
}
