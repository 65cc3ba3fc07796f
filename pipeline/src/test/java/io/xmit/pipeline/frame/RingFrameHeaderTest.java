package io.xmit.pipeline.frame;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.frame.HexFrames.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingFrameHeaderTest
{
    /** A flag bit the header gives no meaning: flags are stored as they are given. */
    private static final int UNASSIGNED_FLAG = 1;

    @Test
    void writesTheDocumentedLittleEndianLayoutAndReadsItBack()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8 + RingFrameHeader.HEADER_LENGTH]);

        new RingFrameHeader().wrap(buffer, 8)
            .flowHash(0x0102_0304)
            .socketId(0x1112_1314)
            .priority(15)
            .rxQueue(RingFrameHeader.NO_RX_QUEUE)
            .flags(UNASSIGNED_FLAG | RingFrameHeader.FLAG_OOO_OKAY)
            .traceId(0x2122_2324_2526_2728L)
            .enqueueTimeNs(0x3132_3334_3536_3738L);

        final byte[] expected = hex("0000000000000000" +
            "04030201" + "14131211" + "0f00" + "ffff" + "03000000" +
            "2827262524232221" + "3837363534333231");
        assertArrayEquals(expected, buffer.byteArray());

        final RingFrameHeader reader = new RingFrameHeader().wrap((DirectBuffer)buffer, 8);
        assertEquals(0x0102_0304, reader.flowHash());
        assertEquals(0x1112_1314, reader.socketId());
        assertEquals(15, reader.priority());
        assertEquals(-1, reader.rxQueue());
        assertEquals(UNASSIGNED_FLAG | RingFrameHeader.FLAG_OOO_OKAY, reader.flags());
        assertTrue(reader.oooOkay());
        assertEquals(0x2122_2324_2526_2728L, reader.traceId());
        assertEquals(0x3132_3334_3536_3738L, reader.enqueueTimeNs());
        assertEquals(8 + 32, reader.frameOffset());
    }

    @Test
    void putWritesTheSameBytesAsTheSetters()
    {
        final int[][] ints = {
            {0x0102_0304, 0x1112_1314, 15, RingFrameHeader.NO_RX_QUEUE, UNASSIGNED_FLAG},
            {-1, -2, 0xFFFF, Short.MAX_VALUE, -1},
            {0, 0, 0, 0, 0},
            {Integer.MIN_VALUE, Integer.MAX_VALUE, 0x1_0007, -0x1_0002, RingFrameHeader.FLAG_OOO_OKAY},
        };
        for (final int[] f : ints)
        {
            final UnsafeBuffer bySetters = new UnsafeBuffer(new byte[8 + RingFrameHeader.HEADER_LENGTH]);
            final UnsafeBuffer byPut = new UnsafeBuffer(new byte[8 + RingFrameHeader.HEADER_LENGTH]);
            bySetters.setMemory(0, bySetters.capacity(), (byte)0x5A);
            byPut.setMemory(0, byPut.capacity(), (byte)0x5A);

            new RingFrameHeader().wrap(bySetters, 8)
                .flowHash(f[0]).socketId(f[1]).priority(f[2]).rxQueue(f[3]).flags(f[4])
                .traceId(0x2122_2324_2526_2728L).enqueueTimeNs(-3L);
            new RingFrameHeader().wrap(byPut, 8).put(f[0], f[1], f[2], f[3], f[4], 0x2122_2324_2526_2728L, -3L);

            assertArrayEquals(bySetters.byteArray(), byPut.byteArray());
        }
    }

    @Test
    void keepsFlagsIndependentAndRxQueueSigned()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RingFrameHeader.HEADER_LENGTH]);
        final RingFrameHeader header = new RingFrameHeader().wrap(buffer, 0);

        header.flags(RingFrameHeader.FLAG_OOO_OKAY).rxQueue(7);
        assertTrue(header.oooOkay());
        assertEquals(7, header.rxQueue());

        header.flags(UNASSIGNED_FLAG).rxQueue(Short.MAX_VALUE);
        assertEquals(UNASSIGNED_FLAG, header.flags());
        assertFalse(header.oooOkay());
        assertEquals(Short.MAX_VALUE, header.rxQueue());
        assertEquals(RingFrameHeader.NO_FLOW_HASH, header.flowHash());
        assertEquals(RingFrameHeader.NO_TRACE_ID, header.traceId());
    }

    @Test
    void fieldOffsetsMatchTheRingLayout()
    {
        assertEquals(0, RingFrameHeader.FLOW_HASH_OFFSET);
        assertEquals(4, RingFrameHeader.SOCKET_ID_OFFSET);
        assertEquals(8, RingFrameHeader.PRIORITY_OFFSET);
        assertEquals(10, RingFrameHeader.RX_QUEUE_OFFSET);
        assertEquals(12, RingFrameHeader.FLAGS_OFFSET);
        assertEquals(16, RingFrameHeader.TRACE_ID_OFFSET);
        assertEquals(24, RingFrameHeader.ENQUEUE_TIME_NS_OFFSET);
        assertEquals(32, RingFrameHeader.HEADER_LENGTH);
    }
}
