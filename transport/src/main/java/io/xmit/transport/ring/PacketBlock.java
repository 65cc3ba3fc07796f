package io.xmit.transport.ring;

import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A run of contiguous ring messages handed over at once by {@link PacketSubscription#blockPoll}, and a cursor over
 * the frames in it. Reused by its subscription: no object per block or per frame.
 * <pre>
 *  offset ─▶ ┌────────────────────┬───────────────────┬──────────────┬─ pad to 32 ─┐┌─ next message ...
 *            │ Aeron data header  │ xmit header       │ Ethernet     │             ││
 *            │ 32 bytes           │ 32 bytes          │ frame        │             ││
 *            └────────────────────┴───────────────────┴──────────────┴─────────────┘└──
 * </pre>
 * Each message starts on a 32-byte boundary; its Aeron frame length (little-endian int at 0) covers both headers
 * and the frame, not the alignment. A padding message (Aeron type {@code PAD}) fills a term's end, or an aborted
 * claim; {@link #next()} skips it. The raw view ({@link #buffer()}, {@link #offset()}, {@link #length()}) is what a
 * bulk consumer copies or hands to a driver in one piece.
 * <pre>{@code
 * while (block.next())
 * {
 *     use(block.header().socketId(), block.buffer(), block.frameOffset(), block.frameLength());
 * }
 * }</pre>
 */
public final class PacketBlock
{
    private static final int MESSAGE_HEADERS_LENGTH = DataHeaderFlyweight.HEADER_LENGTH + RingFrameHeader.HEADER_LENGTH;

    private final RingFrameHeader header = new RingFrameHeader();
    private DirectBuffer buffer;
    private int offset;
    private int length;
    private int cursor;
    private int frameOffset;
    private int frameLength;

    PacketBlock()
    {
    }

    void wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        rewind();
    }

    /** The ring's term buffer holding the block. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Where the block's first message (its Aeron data header) starts in {@link #buffer()}. */
    public int offset()
    {
        return offset;
    }

    /** The block's length in bytes: whole aligned messages, padding included. */
    public int length()
    {
        return length;
    }

    /** Moves the cursor back before the first frame. */
    public void rewind()
    {
        cursor = offset;
        frameOffset = -1;
        frameLength = -1;
    }

    /**
     * Moves the cursor to the next frame, skipping padding.
     *
     * @return false when the block has no more frames.
     */
    public boolean next()
    {
        final int end = offset + length;
        while (cursor < end)
        {
            final int messageOffset = cursor;
            final int messageLength = buffer.getInt(messageOffset + DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET,
                ByteOrder.LITTLE_ENDIAN);
            cursor += BitUtil.align(messageLength, FrameDescriptor.FRAME_ALIGNMENT);
            if (DataHeaderFlyweight.HDR_TYPE_DATA == buffer.getShort(
                messageOffset + DataHeaderFlyweight.TYPE_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN))
            {
                header.wrap(buffer, messageOffset + DataHeaderFlyweight.HEADER_LENGTH);
                frameOffset = messageOffset + MESSAGE_HEADERS_LENGTH;
                frameLength = messageLength - MESSAGE_HEADERS_LENGTH;
                return true;
            }
        }
        frameOffset = -1;
        frameLength = -1;
        return false;
    }

    /** The current frame's xmit header, wrapped read-only; valid after {@link #next()} returned true. */
    public RingFrameHeader header()
    {
        return header;
    }

    /** Where the current frame's Ethernet bytes start in {@link #buffer()}; -1 before the first or after the last. */
    public int frameOffset()
    {
        return frameOffset;
    }

    /** The current frame's length; -1 before the first or after the last. */
    public int frameLength()
    {
        return frameLength;
    }

    @Override
    public String toString()
    {
        return "PacketBlock{offset=" + offset + ", length=" + length + ", cursor=" + cursor + "}";
    }
}
