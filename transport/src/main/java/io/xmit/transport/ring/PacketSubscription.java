package io.xmit.transport.ring;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.BlockHandler;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

import java.util.List;

/**
 * The consumer's side of one ring: polls frames one by one ({@link #poll}) or hands over runs of them at once
 * ({@link #blockPoll}), with no allocation. Single consumer thread: not thread-safe.
 * <p>
 * All the ring's publications in one {@link Rings} share one Aeron session, so the subscription sees one image and
 * one ordered stream. A handler that throws gets its exception back out of the poll; the frame (for a block poll:
 * the whole block) counts as consumed.
 */
public final class PacketSubscription implements AutoCloseable
{
    /** {@link #position()} when the ring has no publication yet. */
    public static final long NO_POSITION = Aeron.NULL_VALUE;

    private final Subscription subscription;
    private final int streamId;
    private final int minBlockLength;
    private final RingFrameHeader header = new RingFrameHeader();
    private final PacketBlock block = new PacketBlock();
    private final FragmentHandler fragmentAdapter = this::onFragment;
    private final BlockHandler blockAdapter = this::onBlock;
    private PacketHandler packetHandler;
    private PacketBlockHandler blockHandler;

    PacketSubscription(final Subscription subscription, final int streamId, final int mtuLength)
    {
        this.subscription = subscription;
        this.streamId = streamId;
        this.minBlockLength = mtuLength;
    }

    /**
     * Delivers up to {@code frameLimit} frames to {@code handler}, in ring order.
     *
     * @return the number of frames delivered.
     */
    public int poll(final PacketHandler handler, final int frameLimit)
    {
        packetHandler = handler;
        return subscription.poll(fragmentAdapter, frameLimit);
    }

    /**
     * Hands over the run of complete frames that starts at the consumer's position, at most
     * {@code blockLengthLimit} bytes of messages (headers and alignment included), in one call to {@code handler}.
     * A block ends at a term's end, at a frame not yet committed, or at the limit; padding at the start of a block
     * is handed over (and skipped by the block's cursor), so a block may hold no frame.
     *
     * @param blockLengthLimit at least {@link #minBlockLength()}, so that the longest frame always fits.
     * @return the bytes consumed, padding included; 0 if the ring was empty.
     * @throws IllegalArgumentException if {@code blockLengthLimit} is below {@link #minBlockLength()}: a longer frame
     *                                  would stall the ring for good.
     */
    public long blockPoll(final PacketBlockHandler handler, final int blockLengthLimit)
    {
        if (blockLengthLimit < minBlockLength)
        {
            throw new IllegalArgumentException(
                "blockLengthLimit must be at least " + minBlockLength + " (the ring's MTU), was " + blockLengthLimit);
        }
        blockHandler = handler;
        return subscription.blockPoll(blockAdapter, blockLengthLimit);
    }

    /** The smallest block length limit: the longest message (the ring's MTU). */
    public int minBlockLength()
    {
        return minBlockLength;
    }

    /** The ring's Aeron stream id. */
    public int streamId()
    {
        return streamId;
    }

    /** The consumer's position in the ring (for restart and resume), or {@link #NO_POSITION} without an image. */
    public long position()
    {
        final Image image = firstImage();
        return null == image ? NO_POSITION : image.position();
    }

    /** Where this subscription joined the ring, or {@link #NO_POSITION} without an image. */
    public long joinPosition()
    {
        final Image image = firstImage();
        return null == image ? NO_POSITION : image.joinPosition();
    }

    /** True once a publication's image is available, that is once frames can arrive. */
    public boolean isConnected()
    {
        return subscription.isConnected();
    }

    public boolean isClosed()
    {
        return subscription.isClosed();
    }

    /** Releases the subscription; polls afterwards return 0. Idempotent. */
    @Override
    public void close()
    {
        subscription.close();
    }

    @Override
    public String toString()
    {
        return "PacketSubscription{stream=" + streamId + ", position=" + position() + "}";
    }

    private Image firstImage()
    {
        // A snapshot: the image array may change between a count and an index.
        final List<Image> images = subscription.images();
        return images.isEmpty() ? null : images.get(0);
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        if (length < RingFrameHeader.HEADER_LENGTH)
        {
            throw new IllegalStateException(
                "ring stream " + streamId + ": a " + length + "-byte message at position " + aeronHeader.position() +
                " is shorter than the xmit header; only PacketPublication may write to an xmit ring");
        }
        header.wrap(buffer, offset);
        packetHandler.onPacket(header, buffer, offset + RingFrameHeader.HEADER_LENGTH,
            length - RingFrameHeader.HEADER_LENGTH);
    }

    private void onBlock(
        final DirectBuffer buffer, final int offset, final int length, final int sessionId, final int termId)
    {
        block.wrap(buffer, offset, length);
        blockHandler.onBlock(block);
    }
}
