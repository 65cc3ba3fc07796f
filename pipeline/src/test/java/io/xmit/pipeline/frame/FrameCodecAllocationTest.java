package io.xmit.pipeline.frame;

import java.util.Random;

import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.flow.FlowKey;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing and writing are hot paths: after warm-up they allocate nothing on the calling thread. */
class FrameCodecAllocationTest
{
    private static final int WARM_UP = 300_000;
    private static final int MEASURED = 1_000_000;
    private static final int FRAMES = 64;

    @Test
    void parsingAMillionMixedFramesAllocatesNothing()
    {
        final Random random = new Random(42);
        final RandomFrames randomFrames = new RandomFrames();
        final byte[] scratch = new byte[RandomFrames.MAX_FRAME_LENGTH];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FRAMES * RandomFrames.MAX_FRAME_LENGTH]);
        final int[] offsets = new int[FRAMES];
        final int[] lengths = new int[FRAMES];
        for (int i = 0; i < FRAMES; i++)
        {
            final int length = randomFrames.write(random, i % RandomFrames.KINDS, scratch);
            offsets[i] = i * RandomFrames.MAX_FRAME_LENGTH;
            // Every eighth frame is cut short so the drop paths are measured too.
            lengths[i] = i % 8 == 7 ? length / 2 : length;
            buffer.putBytes(offsets[i], scratch, 0, length);
        }
        final FrameParser parser = new FrameParser();
        final ParsedFrame parsed = new ParsedFrame();

        final AllocationMeter.Measurement m = AllocationMeter.measure(
            n -> parseAll(parser, parsed, buffer, offsets, lengths, n), WARM_UP, MEASURED);

        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + MEASURED + " parses");
        assertTrue(m.result() > MEASURED / 2 && m.result() < MEASURED, "mix of OK and dropped frames: " + m.result());
    }

    @Test
    void writingAMillionUdpFramesAndRingHeadersAllocatesNothing()
    {
        final UdpFrameWriter writer = new UdpFrameWriter().vlan(1, 100);
        final RingFrameHeader header = new RingFrameHeader();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[1500]);
        final FlowKey ipv4 = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        final FlowKey ipv6 = FlowKey.parse("udp:[2001:db8::1]:5000-[2001:db8::2]:11211");

        final AllocationMeter.Measurement m = AllocationMeter.measure(
            n -> writeAll(writer, header, buffer, payload, ipv4, ipv6, n), WARM_UP, MEASURED);

        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + MEASURED + " frame writes");
        assertTrue(m.result() > 0);
    }

    private static long parseAll(
        final FrameParser parser,
        final ParsedFrame parsed,
        final DirectBuffer buffer,
        final int[] offsets,
        final int[] lengths,
        final int count)
    {
        long ok = 0;
        for (int i = 0; i < count; i++)
        {
            final int frame = i & (FRAMES - 1);
            if (ParseStatus.OK == parser.parse(buffer, offsets[frame], lengths[frame], parsed))
            {
                ok++;
            }
        }
        return ok;
    }

    private static long writeAll(
        final UdpFrameWriter writer,
        final RingFrameHeader header,
        final UnsafeBuffer buffer,
        final UnsafeBuffer payload,
        final FlowKey ipv4,
        final FlowKey ipv6,
        final int count)
    {
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            header.wrap(buffer, 0).flowHash(i).socketId(7).priority(i & 15).rxQueue(RingFrameHeader.NO_RX_QUEUE)
                .flags(RingFrameHeader.FLAG_OOO_OKAY).traceId(0).enqueueTimeNs(i);
            final FlowKey flow = (i & 1) == 0 ? ipv4 : ipv6;
            final int payloadLength = i & 1023;
            bytes += (i & 2) == 0 ?
                writer.write(buffer, header.frameOffset(), 2, 1, flow, payloadLength) :
                writer.write(buffer, header.frameOffset(), 2, 1, flow, payload, 0, payloadLength);
        }
        return bytes;
    }
}
