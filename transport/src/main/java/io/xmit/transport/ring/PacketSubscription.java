package io.xmit.transport.ring;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.BlockHandler;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

import java.util.List;

/**
 * The consumer's side of one ring: polls frames one by one ({@link #poll}), hands over runs of them at once
 * ({@link #blockPoll}), or shows them in place before consuming them ({@link #peek}), with no allocation. Single
 * consumer thread: not thread-safe.
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
    private final ControlledFragmentHandler peekAdapter = this::onPeekedFragment;
    private PacketHandler packetHandler;
    private PacketBlockHandler blockHandler;
    private PacketPeekHandler peekHandler;
    private Image peekImage;
    private Image image;
    private long peekEnd;
    private int peekCount;

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

    /**
     * Hands the frames from the consumer's position on to {@code handler} without consuming them, until the handler
     * ends the peek, a frame is not yet committed, or the term ends. The frames' bytes stay in place and unchanged
     * until {@link #consumePeeked()} (Aeron may clean a term behind the consumer's position, never ahead of it), so
     * a consumer can point a native driver at them and copy out only what the driver did not take.
     *
     * @return the number of frames taken into the peek; 0 if the ring was empty or the first frame was left.
     */
    public int peek(final PacketPeekHandler handler)
    {
        final Image image = firstImage();
        peekImage = image;
        peekCount = 0;
        if (null == image)
        {
            return 0;
        }
        peekHandler = handler;
        final long position = image.position();
        peekEnd = position;
        peekEnd = image.controlledPeek(position, peekAdapter, position + image.termBufferLength());
        return peekCount;
    }

    /**
     * Consumes what the last {@link #peek} handed over (padding included). A no-op after an empty peek. After a peek
     * whose handler threw, consumes the frames before the one that threw.
     */
    public void consumePeeked()
    {
        final Image image = peekImage;
        if (null != image && peekEnd > image.position())
        {
            image.position(peekEnd);
        }
        peekImage = null;
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

    /**
     * The local {@code address:port} a UDP ring ({@link NetworkRings}) receives on, with the port the system chose
     * if it was bound to port 0; null for an IPC ring, and until the driver has bound the socket.
     */
    public String localEndpoint()
    {
        return subscription.resolvedEndpoint();
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
        // Subscription.images() wraps the image array in two new lists on every call, so the hot path keeps the
        // image it found until it closes; a new snapshot (the array may change between a count and an index) is
        // taken only while there is no open image.
        final Image cached = image;
        if (null != cached && !cached.isClosed())
        {
            return cached;
        }
        final List<Image> images = subscription.images();
        final Image first = images.isEmpty() ? null : images.get(0);
        image = first;
        return first;
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        checkLength(length, aeronHeader);
        header.wrap(buffer, offset);
        packetHandler.onPacket(header, buffer, offset + RingFrameHeader.HEADER_LENGTH,
            length - RingFrameHeader.HEADER_LENGTH);
    }

    private ControlledFragmentHandler.Action onPeekedFragment(
        final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        checkLength(length, aeronHeader);
        header.wrap(buffer, offset);
        final int action = peekHandler.onPacket(header, buffer, offset + RingFrameHeader.HEADER_LENGTH,
            length - RingFrameHeader.HEADER_LENGTH);
        if (PacketPeekHandler.ABORT == action)
        {
            return ControlledFragmentHandler.Action.ABORT;
        }
        peekCount++;
        // Kept up to date frame by frame, so that after a handler throws, consumePeeked() consumes exactly the frames
        // the handler had finished with (the one that threw is not among them).
        peekEnd = aeronHeader.position();
        return PacketPeekHandler.BREAK == action ?
            ControlledFragmentHandler.Action.BREAK : ControlledFragmentHandler.Action.CONTINUE;
    }

    private void checkLength(final int length, final Header aeronHeader)
    {
        if (length < RingFrameHeader.HEADER_LENGTH)
        {
            throw new IllegalStateException(
                "ring stream " + streamId + ": a " + length + "-byte message at position " + aeronHeader.position() +
                " is shorter than the xmit header; only PacketPublication may write to an xmit ring");
        }
    }

    private void onBlock(
        final DirectBuffer buffer, final int offset, final int length, final int sessionId, final int termId)
    {
        block.wrap(buffer, offset, length);
        blockHandler.onBlock(block);
    }
}
