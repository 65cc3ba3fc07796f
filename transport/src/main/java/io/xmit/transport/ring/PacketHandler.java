package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

/** Receives the frames of a {@link PacketSubscription#poll}, one call per frame. */
@FunctionalInterface
public interface PacketHandler
{
    /**
     * One frame. The header flyweight and the buffer are the subscription's and the ring's: valid during this call
     * only, read-only. Copy what must outlive it.
     *
     * @param header      the frame's xmit header, wrapped read-only.
     * @param buffer      the ring's term buffer.
     * @param frameOffset where the Ethernet frame starts in {@code buffer}.
     * @param frameLength the Ethernet frame's length.
     */
    void onPacket(RingFrameHeader header, DirectBuffer buffer, int frameOffset, int frameLength);
}
