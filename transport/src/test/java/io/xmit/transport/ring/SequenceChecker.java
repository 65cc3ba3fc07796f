package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumer's check of sequenced test frames: each producer's frames must arrive in order, each exactly once,
 * intact. Runs on the consumer thread; {@link #consumed()} may be read from any thread, the rest once the consumer
 * has stopped (or after a happens-before edge such as an executor hand-off).
 */
final class SequenceChecker implements PacketHandler, PacketBlockHandler
{
    private final long[] expectedSeq;
    private final int lengthSpread;
    private final int jumboLength;
    private final AtomicLong consumed = new AtomicLong();
    private long lost;
    private long duplicated;
    private long corrupt;
    private String firstError;

    SequenceChecker(final int producers, final int lengthSpread, final int jumboLength)
    {
        this.expectedSeq = new long[producers];
        this.lengthSpread = lengthSpread;
        this.jumboLength = jumboLength;
    }

    @Override
    public void onPacket(final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        consumed.lazySet(consumed.get() + 1);
        if (length < TestFrames.MIN_LENGTH)
        {
            error("a frame of " + length + " bytes");
            corrupt++;
            return;
        }
        final int producer = TestFrames.producer(buffer, offset);
        final long seq = TestFrames.seq(buffer, offset);
        if (producer < 0 || producer >= expectedSeq.length)
        {
            error("a frame from producer " + producer);
            corrupt++;
            return;
        }
        final String problem = TestFrames.check(header, buffer, offset, length,
            TestFrames.length(producer, seq, lengthSpread, jumboLength));
        if (null != problem)
        {
            error(problem);
            corrupt++;
        }
        final long expected = expectedSeq[producer];
        if (seq == expected)
        {
            expectedSeq[producer] = seq + 1;
        }
        else if (seq < expected)
        {
            error("producer " + producer + ": seq " + seq + " again, expected " + expected);
            duplicated++;
        }
        else
        {
            error("producer " + producer + ": seq " + seq + " after " + (expected - 1));
            lost += seq - expected;
            expectedSeq[producer] = seq + 1;
        }
    }

    @Override
    public void onBlock(final PacketBlock block)
    {
        while (block.next())
        {
            onPacket(block.header(), block.buffer(), block.frameOffset(), block.frameLength());
        }
    }

    long consumed()
    {
        return consumed.get();
    }

    /** How many frames of {@code producer} arrived in order so far. */
    long inOrder(final int producer)
    {
        return expectedSeq[producer];
    }

    long lost()
    {
        return lost;
    }

    long duplicated()
    {
        return duplicated;
    }

    long corrupt()
    {
        return corrupt;
    }

    String firstError()
    {
        return firstError;
    }

    private void error(final String what)
    {
        if (null == firstError)
        {
            firstError = what;
        }
    }
}
