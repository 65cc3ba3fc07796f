package io.xmit.pipeline.host;

/**
 * What {@link ArpFrames#parse} made of a frame: a {@link #REQUEST} or a {@link #REPLY}, or why it is not a
 * usable Ethernet/IPv4 ARP packet (RFC 826). The ordinal is stable within a build and can index a drop counter.
 */
public enum ArpStatus
{
    /** An ARP request (operation 1); the parsed fields are set. */
    REQUEST,
    /** An ARP reply (operation 2); the parsed fields are set. */
    REPLY,
    /** The offset or length arguments do not describe a region inside the buffer. */
    INVALID_BOUNDS,
    /** The Ethernet header, the 802.1Q tag or the 28-byte ARP packet does not fit in the frame. */
    TRUNCATED,
    /** The EtherType, after at most one 802.1Q tag, is not ARP (0x0806). */
    NOT_ARP,
    /** Hardware type other than Ethernet (1), protocol type other than IPv4, or lengths other than 6 and 4. */
    UNSUPPORTED_FORMAT,
    /** An operation other than request and reply (RARP, InARP and the rest are not for a host of this kind). */
    BAD_OPERATION,
    /** The sender MAC is a group (multicast or broadcast) address, or the sender IPv4 is multicast or broadcast. */
    BAD_SENDER;

    /** True when the frame was not an ARP request or reply one can act on. */
    public boolean isMalformed()
    {
        return this != REQUEST && this != REPLY;
    }
}
