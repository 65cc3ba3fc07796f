package io.xmit.transport.ring;

/** Receives the runs of frames of a {@link PacketSubscription#blockPoll}. */
@FunctionalInterface
public interface PacketBlockHandler
{
    /**
     * One run of contiguous frames. The block is the subscription's cursor and points into the ring: valid during
     * this call only. The whole block counts as consumed when this returns (or throws).
     */
    void onBlock(PacketBlock block);
}
