package io.xmit.actors;

import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;
import io.xmit.transport.ring.RingDoorbell;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A million bad frames arrive on the RX queues — truncated, with lengths that lie, bad IP headers, unknown types and
 * random bytes — and every one is counted under its drop reason; nothing throws, nothing is delivered.
 */
@Timeout(120)
class MalformedFramesTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", 20261130L);
    private static final int FRAMES = 1_000_000;
    private static final int BURST = 64;
    private static final int SLOT = 2048;

    private static final int VALID_NO_SOCKET = 0;
    private static final int TRUNCATED = 1;
    private static final int LENGTH_BEYOND_FRAME = 2;
    private static final int BAD_IHL = 3;
    private static final int BAD_VERSION = 4;
    private static final int UNKNOWN_ETHERTYPE = 5;
    private static final int NOT_UDP = 6;
    private static final int RANDOM_BYTES = 7;
    private static final int KINDS = 8;

    @Test
    void everyBadFrameIsCountedUnderItsReason()
    {
        final Random random = new Random(SEED);
        final long[] sent = new long[KINDS];
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=4,ring=1024,frame=2048,rate=0");
            CountersFile counters = CountersFile.create("malformed-frames", CountersFile.DEFAULT_DIRECTORY,
                CountersFile.DEFAULT_CAPACITY))
        {
            final NicDriver sender = device.port(0);
            final NicDriver receiver = device.port(1);
            final RxQueueEngine[] engines = new RxQueueEngine[receiver.rxQueueCount()];
            for (int q = 0; q < engines.length; q++)
            {
                engines[q] = new RxQueueEngine(1, q, receiver, new SocketTable(), new RingDoorbell(() -> { }), BURST,
                    counters, null);
            }
            final UnsafeBuffer frames = new UnsafeBuffer(ByteBuffer.allocateDirect(BURST * SLOT));
            final DescriptorBatch batch = new DescriptorBatch(BURST);
            final TxCompletion completion = new TxCompletion();
            final UdpFrameWriter writer = new UdpFrameWriter();
            final FlowKey flow = new FlowKey();
            for (int done = 0; done < FRAMES; done += BURST)
            {
                batch.clear();
                for (int i = 0; i < BURST; i++)
                {
                    final int kind = random.nextInt(KINDS);
                    sent[kind]++;
                    final int length = write(kind, frames, i * SLOT, random, writer, flow);
                    batch.addExternal(frames.addressOffset() + (long)i * SLOT, length, 0);
                }
                assertEquals(BURST, sender.txBurst(0, batch), "the loop device takes a whole burst");
                sender.txReclaim(0, completion);
                for (final RxQueueEngine engine : engines)
                {
                    while (engine.poll() > 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            }

            final String seed = "seed " + SEED + " (-Dtest.fuzz.seed)";
            long nicPackets = 0;
            for (int q = 0; q < receiver.rxQueueCount(); q++)
            {
                assertEquals(0, receiver.stats(q).rxMissed(), seed);
                nicPackets += receiver.stats(q).rxPackets();
            }
            assertEquals(FRAMES, nicPackets, seed);
            final long malformed = total(counters, CounterType.RX_DROP_MALFORMED);
            final long unsupported = total(counters, CounterType.RX_DROP_UNSUPPORTED);
            final long noSocket = total(counters, CounterType.RX_DROP_NO_SOCKET);
            assertEquals(FRAMES, total(counters, CounterType.RX_PACKETS), seed);
            assertEquals(FRAMES, malformed + unsupported + noSocket, "every frame under one reason; " + seed);
            assertEquals(0, total(counters, CounterType.RX_DELIVERED), seed);
            assertEquals(0, total(counters, CounterType.RX_DROP_FAILED), seed);
            // Random bytes land under any of the three; every other kind under exactly its own.
            final long randomBytes = sent[RANDOM_BYTES];
            final long expectedMalformed = sent[TRUNCATED] + sent[LENGTH_BEYOND_FRAME] + sent[BAD_IHL] +
                sent[BAD_VERSION];
            final long expectedUnsupported = sent[UNKNOWN_ETHERTYPE] + sent[NOT_UDP];
            assertTrue(malformed >= expectedMalformed && malformed <= expectedMalformed + randomBytes,
                "malformed " + malformed + " for " + expectedMalformed + " (+ up to " + randomBytes + " random); " + seed);
            assertTrue(unsupported >= expectedUnsupported && unsupported <= expectedUnsupported + randomBytes,
                "unsupported " + unsupported + " for " + expectedUnsupported + "; " + seed);
            assertTrue(noSocket >= sent[VALID_NO_SOCKET] && noSocket <= sent[VALID_NO_SOCKET] + randomBytes,
                "no socket " + noSocket + " for " + sent[VALID_NO_SOCKET] + "; " + seed);
            assertEquals(randomBytes, malformed + unsupported + noSocket - expectedMalformed - expectedUnsupported -
                sent[VALID_NO_SOCKET], seed);
        }
    }

    /** Writes one frame of {@code kind} at {@code offset}; returns its length. */
    private static int write(final int kind, final UnsafeBuffer buffer, final int offset, final Random random,
        final UdpFrameWriter writer, final FlowKey flow)
    {
        if (RANDOM_BYTES == kind)
        {
            final int length = 1 + random.nextInt(1514);
            for (int i = 0; i < length; i++)
            {
                buffer.putByte(offset + i, (byte)random.nextInt());
            }
            return length;
        }
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002, 1 + random.nextInt(65535), 1 + random.nextInt(65535));
        final int payload = random.nextInt(200);
        final int length = writer.write(buffer, offset, 0x020000000002L, 0x020000000001L, flow, payload);
        final int ip = offset + 14;
        switch (kind)
        {
            case TRUNCATED ->
            {
                return 1 + random.nextInt(41);
            }
            case LENGTH_BEYOND_FRAME -> buffer.putShort(ip + 2, (short)(length - 14 + 1 + random.nextInt(1000)),
                ByteOrder.BIG_ENDIAN);
            case BAD_IHL -> buffer.putByte(ip, (byte)(0x40 | random.nextInt(5)));
            case BAD_VERSION -> buffer.putByte(ip, (byte)(((7 + random.nextInt(8)) << 4) | 5));
            case UNKNOWN_ETHERTYPE -> buffer.putShort(offset + 12, (short)0x88B5, ByteOrder.BIG_ENDIAN);
            case NOT_UDP -> buffer.putByte(ip + 9, (byte)47);
            default ->
            {
            }
        }
        return length;
    }

    private static long total(final CountersFile counters, final CounterType type)
    {
        long sum = 0;
        for (int q = 0; q < 4; q++)
        {
            sum += counters.value(type, CounterScope.rxq(1, q));
        }
        return sum;
    }
}
