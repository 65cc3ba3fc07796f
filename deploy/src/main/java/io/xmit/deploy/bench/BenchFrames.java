package io.xmit.deploy.bench;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import org.agrona.MutableDirectBuffer;

/**
 * The traffic every variant sends: 64-byte UDP/IPv4 frames of one flow per producer, each written afresh (new IPv4
 * identification, new checksums) so that building a frame is part of every variant's per-packet cost.
 */
final class BenchFrames
{
    static final int FRAME_LENGTH = 64;

    private static final int HEADERS_LENGTH = 14 + 20 + 8;
    private static final int PAYLOAD_LENGTH = FRAME_LENGTH - HEADERS_LENGTH;
    private static final long DESTINATION_MAC = 0x02_00_00_00_00_02L;
    private static final long SOURCE_MAC = 0x02_00_00_00_00_01L;
    private static final int SOURCE_IP = 0x0A_00_00_01;
    private static final int DESTINATION_IP = 0x0A_00_00_02;
    private static final int SOURCE_PORT = 5000;
    private static final int DESTINATION_PORT = 11211;

    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final FlowKey flow = new FlowKey();

    /** @param producer the producer's index; each gets its own source address and port. */
    BenchFrames(final int producer)
    {
        flow.setIpv4(FlowKey.PROTO_UDP, SOURCE_IP + producer, DESTINATION_IP, SOURCE_PORT + producer,
            DESTINATION_PORT);
    }

    /**
     * Writes the next frame at {@code offset}.
     *
     * @return {@link #FRAME_LENGTH}.
     * @throws IllegalStateException if the frame does not fit: a sizing mistake in the variant.
     */
    int write(final MutableDirectBuffer buffer, final int offset)
    {
        final int length = writer.write(buffer, offset, DESTINATION_MAC, SOURCE_MAC, flow, PAYLOAD_LENGTH);
        if (FRAME_LENGTH != length)
        {
            throw new IllegalStateException("frame writer returned " + length + " at offset " + offset);
        }
        return length;
    }
}
