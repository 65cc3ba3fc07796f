package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Sequenced, checksummed test frames: producer id (int) and sequence (long) in the first 12 bytes, then bytes that
 * follow from both, so a consumer can check every byte, the length and every header field of every frame.
 */
final class TestFrames
{
    static final int MIN_LENGTH = 12;

    private TestFrames()
    {
    }

    /** A length from 12 to 12 + spread - 1 that follows from producer and sequence; every 997th is {@code jumbo}. */
    static int length(final int producer, final long seq, final int spread, final int jumbo)
    {
        if (seq % 997 == 996)
        {
            return jumbo;
        }
        return MIN_LENGTH + (int)((mix(producer, seq) >>> 33) % spread);
    }

    static void writeFrame(
        final MutableDirectBuffer buffer, final int offset, final int producer, final long seq, final int length)
    {
        buffer.putInt(offset, producer);
        buffer.putLong(offset + 4, seq);
        final int base = (int)(seq * 31 + producer * 7);
        for (int i = MIN_LENGTH; i < length; i++)
        {
            buffer.putByte(offset + i, (byte)(base + i));
        }
    }

    /** Writes the frame, then the header through the claim, from the same producer and sequence. */
    static void writeClaim(final PacketClaim claim, final int producer, final long seq)
    {
        final int length = claim.frameLength();
        writeFrame(claim.buffer(), claim.frameOffset(), producer, seq, length);
        claim.putHeader(checksum(claim.buffer(), claim.frameOffset(), length), producer, (int)(seq & 15), producer,
            (int)(seq & 3), seq, ~seq);
    }

    /** Sends frame {@code seq} of {@code producer} once, in place through {@code claim} or by copy from {@code scratch}. */
    static long offer(
        final PacketPublication publication,
        final boolean inPlace,
        final PacketClaim claim,
        final MutableDirectBuffer scratch,
        final int producer,
        final long seq,
        final int length)
    {
        if (!inPlace)
        {
            return send(publication, scratch, producer, seq, length);
        }
        final long result = publication.tryClaim(length, claim);
        if (result > 0)
        {
            writeClaim(claim, producer, seq);
            claim.commit();
        }
        return result;
    }

    /** Sends a frame written into {@code scratch} with {@link PacketPublication#send}. */
    static long send(
        final PacketPublication publication,
        final MutableDirectBuffer scratch,
        final int producer,
        final long seq,
        final int length)
    {
        writeFrame(scratch, 0, producer, seq, length);
        return publication.send(checksum(scratch, 0, length), producer, (int)(seq & 15), producer, (int)(seq & 3), seq,
            ~seq, scratch, 0, length);
    }

    static int checksum(final DirectBuffer buffer, final int offset, final int length)
    {
        int h = 1;
        for (int i = 0; i < length; i++)
        {
            h = 31 * h + buffer.getByte(offset + i);
        }
        return h;
    }

    /** The producer id of a frame. */
    static int producer(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset);
    }

    /** The sequence number of a frame. */
    static long seq(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + 4);
    }

    /**
     * Checks everything but the sequence order.
     *
     * @return null if the frame is intact, else what is wrong with it.
     */
    static String check(
        final RingFrameHeader header,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int expectedLength)
    {
        if (length < MIN_LENGTH)
        {
            return "frame of " + length + " bytes";
        }
        final int producer = producer(buffer, offset);
        final long seq = seq(buffer, offset);
        if (length != expectedLength)
        {
            return "producer " + producer + " seq " + seq + ": length " + length + ", expected " + expectedLength;
        }
        final int base = (int)(seq * 31 + producer * 7);
        for (int i = MIN_LENGTH; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte)(base + i))
            {
                return "producer " + producer + " seq " + seq + ": byte " + i + " differs";
            }
        }
        if (header.flowHash() != checksum(buffer, offset, length) || header.socketId() != producer ||
            header.priority() != (int)(seq & 15) || header.rxQueue() != producer || header.flags() != (int)(seq & 3) ||
            header.traceId() != seq || header.enqueueTimeNs() != ~seq)
        {
            return "producer " + producer + " seq " + seq + ": header fields differ";
        }
        return null;
    }

    private static long mix(final int producer, final long seq)
    {
        long z = seq * 0x9E3779B97F4A7C15L + producer;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
