package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

/**
 * Receives the frames of a {@link PacketSubscription#peek peek}: each one stays in the ring, unconsumed and
 * unchanged, until the consumer calls {@link PacketSubscription#consumePeeked()}, so its bytes can be handed to a
 * native driver by address in the meantime.
 */
@FunctionalInterface
public interface PacketPeekHandler
{
    /** Take this frame into the peek and look at the next one. */
    int CONTINUE = 0;
    /** Take this frame into the peek and end it. */
    int BREAK = 1;
    /** Leave this frame in the ring, not part of the peek, and end it. */
    int ABORT = 2;

    /**
     * One frame, offered to the peek.
     *
     * @param header      the frame's xmit header, wrapped read-only.
     * @param buffer      the ring's term buffer; its bytes stay put until the peek is consumed.
     * @param frameOffset where the Ethernet frame starts in {@code buffer}.
     * @param frameLength the Ethernet frame's length.
     * @return {@link #CONTINUE}, {@link #BREAK} or {@link #ABORT}.
     */
    int onPacket(RingFrameHeader header, DirectBuffer buffer, int frameOffset, int frameLength);
}
