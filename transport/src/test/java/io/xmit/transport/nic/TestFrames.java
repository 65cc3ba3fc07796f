package io.xmit.transport.nic;

import java.util.Random;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * UDP frames in native memory for driving the shim: each slot holds one frame whose payload starts with a
 * sequence number followed by bytes derived from it, so a receiver can tell which frame it got and whether its
 * bytes are intact.
 */
final class TestFrames
{
    static final int SLOT = 2048;
    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;

    private final UdpFrameWriter writer = new UdpFrameWriter();
    final UnsafeBuffer buffer;
    final int[] lengths;
    final FlowKey[] flows;

    TestFrames(final int slots)
    {
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * SLOT, 64));
        lengths = new int[slots];
        flows = new FlowKey[slots];
    }

    static FlowKey randomFlow(final Random random)
    {
        if (random.nextInt(4) == 0)
        {
            return new FlowKey().setIpv6(FlowKey.PROTO_UDP, random.nextLong(), random.nextLong(),
                random.nextLong(), random.nextLong(), 1 + random.nextInt(65535), 1 + random.nextInt(65535));
        }
        return new FlowKey().setIpv4(FlowKey.PROTO_UDP, random.nextInt(), random.nextInt(),
            1 + random.nextInt(65535), 1 + random.nextInt(65535));
    }

    /** Writes frame {@code slot}: a UDP datagram of {@code flow} carrying sequence {@code seq}. */
    int write(final int slot, final FlowKey flow, final int payloadLength, final int seq)
    {
        final int offset = slot * SLOT;
        final int payload = offset + writer.headerLength(flow.family());
        buffer.putInt(payload, seq);
        for (int i = 4; i < payloadLength; i++)
        {
            buffer.putByte(payload + i, (byte)(seq * 31 + i));
        }
        final int length = writer.write(buffer, offset, MAC_B, MAC_A, flow, payloadLength);
        if (length <= 0)
        {
            throw new IllegalStateException("frame writer failed: " + length);
        }
        lengths[slot] = length;
        flows[slot] = flow;
        return length;
    }

    long address(final int slot)
    {
        return buffer.addressOffset() + (long)slot * SLOT;
    }

    /** The sequence number in a received frame (untagged IPv4 or IPv6, as written here). */
    int sequenceOf(final UnsafeBuffer frame)
    {
        final int family = frame.getByte(12) == (byte)0x86 ? FlowKey.FAMILY_IPV6 : FlowKey.FAMILY_IPV4;
        return frame.getInt(writer.headerLength(family));
    }

    /** Whether {@code frame} equals slot {@code slot}'s bytes exactly. */
    boolean sameBytes(final int slot, final UnsafeBuffer frame)
    {
        if (frame.capacity() != lengths[slot])
        {
            return false;
        }
        for (int i = 0; i < lengths[slot]; i++)
        {
            if (frame.getByte(i) != buffer.getByte(slot * SLOT + i))
            {
                return false;
            }
        }
        return true;
    }

    /** Fills {@code batch} with descriptors for slots {@code from} until {@code to}. */
    DescriptorBatch describe(final DescriptorBatch batch, final int from, final int to)
    {
        batch.clear();
        for (int slot = from; slot < to; slot++)
        {
            batch.addExternal(address(slot), lengths[slot], 0);
        }
        return batch;
    }
}
