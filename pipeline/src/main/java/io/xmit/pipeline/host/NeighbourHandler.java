package io.xmit.pipeline.host;

import org.agrona.DirectBuffer;

/**
 * What the {@link NeighbourTable} asks its owner (the TX path of one port) to do. Called on the owner's thread
 * from inside {@link NeighbourTable#hold}, {@link NeighbourTable#onArp} and {@link NeighbourTable#poll}.
 */
public interface NeighbourHandler
{
    /**
     * Transmit a frame that was held while its next hop resolved. Its Ethernet destination is already the
     * resolved MAC. The bytes are the table's and valid only during the call: copy them into a TX ring.
     *
     * @param tag what the frame was held with (a socket id for in-flight accounting, for instance).
     */
    void transmit(DirectBuffer buffer, int offset, int length, long tag);

    /** A held frame was dropped; the table has counted it under {@code reason}. */
    void dropped(long tag, NeighbourDrop reason);

    /**
     * Send an ARP request for {@code ip} ({@link ArpFrames#writeRequest}) to {@code destinationMac}: broadcast
     * while the entry is INCOMPLETE, the cached MAC when re-confirming a stale one.
     */
    void solicit(int ip, long destinationMac);

    /** Resolution of {@code ip} failed; its entry is gone and its held frames were dropped first. */
    void failed(int ip);
}
