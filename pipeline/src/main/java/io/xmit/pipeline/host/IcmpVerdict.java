package io.xmit.pipeline.host;

/**
 * What {@link IcmpFrames} decided about a received frame: answer it ({@link #ECHO_REQUEST},
 * {@link #PORT_UNREACHABLE}) or why not. The ordinal is stable within a build and can index a counter.
 */
public enum IcmpVerdict
{
    /** A valid ICMP echo request (RFC 792) to a unicast address: answer with an echo reply. */
    ECHO_REQUEST,
    /** A valid UDP datagram the caller found no socket for: an ICMP port unreachable may be sent. */
    PORT_UNREACHABLE,
    /** The frame parser dropped it; {@link IcmpFrames#parseStatus()} says why. */
    MALFORMED,
    /** Not IPv4. */
    NOT_IPV4,
    /** The IPv4 header checksum is wrong (RFC 1122 §3.2.1.2: silently discard). */
    BAD_IP_CHECKSUM,
    /** An IPv4 fragment: this pipeline does not reassemble, so it neither answers nor reports fragments. */
    FRAGMENT,
    /** Not ICMP (for echo) or not UDP (for port unreachable, which therefore never answers an ICMP error). */
    WRONG_PROTOCOL,
    /** The ICMP checksum over the ICMP message is wrong. */
    BAD_ICMP_CHECKSUM,
    /** An ICMP message other than an echo request. */
    NOT_ECHO_REQUEST,
    /** The UDP checksum is present and wrong. */
    BAD_UDP_CHECKSUM,
    /**
     * Sent to an IPv4 multicast or broadcast address or a link-layer group address: no ICMP error for it (RFC
     * 1122 §3.2.2), and no echo reply either (Linux's icmp_echo_ignore_broadcasts, on by default).
     */
    BROADCAST_DESTINATION,
    /** The IPv4 or MAC source does not name a single host (RFC 1122 §3.2.2): nothing is sent back to it. */
    BAD_SOURCE
}
