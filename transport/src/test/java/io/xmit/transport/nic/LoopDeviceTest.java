package io.xmit.transport.nic;

import java.util.Arrays;
import java.util.Random;

import io.xmit.pipeline.flow.Toeplitz;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopDeviceTest
{
    private static final int QUEUES = 4;
    private static final int FRAMES = 512;

    @Test
    void framesCrossIntactOnTheRxQueueJavaToeplitzPredicts()
    {
        try (NicDevice device = NicDevice.open("loop:tx=4,rx=4,ring=1024"))
        {
            for (int sender = 0; sender < 2; sender++)
            {
                final TestFrames frames = frames(FRAMES, new Random(7 + sender));
                sendAll(device.port(sender), frames);
                final int[] queueOf = receiveAll(device.port(1 - sender), frames);
                final Toeplitz toeplitz = Toeplitz.withDefaultKey();
                for (int slot = 0; slot < FRAMES; slot++)
                {
                    final int hash = toeplitz.hash(frames.flows[slot], true);
                    assertEquals((hash & 127) % QUEUES, queueOf[slot], "frame " + slot + " (default table i % 4)");
                }
            }
        }
    }

    @Test
    void rxDescriptorsCarryTheJavaToeplitzHashBitForBit()
    {
        final byte[] key = new byte[Toeplitz.KEY_LENGTH];
        new Random(11).nextBytes(key);
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=1024"))
        {
            device.port(1).setRssKey(key);
            final TestFrames frames = frames(FRAMES, new Random(3));
            sendAll(device.port(0), frames);
            final Toeplitz toeplitz = new Toeplitz(key);
            final RxBurst burst = new RxBurst(FRAMES);
            assertEquals(FRAMES, device.port(1).rxBurst(0, burst));
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (int i = 0; i < FRAMES; i++)
            {
                burst.wrapFrame(i, view);
                final int slot = frames.sequenceOf(view);
                assertEquals(toeplitz.hash(frames.flows[slot], true), burst.rssHash(i), "hash of frame " + slot);
            }
            assertEquals(0, device.port(1).rxRelease(0, FRAMES));
        }
    }

    @Test
    void changingTheIndirectionTableMovesFlows()
    {
        try (NicDevice device = NicDevice.open("loop:tx=4,rx=4,ring=1024"))
        {
            final int[] table = new int[128];
            for (int i = 0; i < table.length; i++)
            {
                table[i] = i < 64 ? 3 : (i * 5) % QUEUES;
            }
            device.port(1).setRssIndirection(table);
            final TestFrames frames = frames(FRAMES, new Random(5));
            sendAll(device.port(0), frames);
            final int[] queueOf = receiveAll(device.port(1), frames);
            final Toeplitz toeplitz = Toeplitz.withDefaultKey();
            int moved = 0;
            for (int slot = 0; slot < FRAMES; slot++)
            {
                final int hash = toeplitz.hash(frames.flows[slot], true);
                assertEquals(table[hash & 127], queueOf[slot], "frame " + slot);
                moved += table[hash & 127] != (hash & 127) % QUEUES ? 1 : 0;
            }
            assertTrue(moved > FRAMES / 4, "the new table moved " + moved + " of " + FRAMES + " flows");
        }
    }

    @Test
    void completionsAddUpToExactlyWhatWasSent()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=2,ring=64"))
        {
            final NicDriver a = device.port(0);
            final NicDriver b = device.port(1);
            final TestFrames frames = frames(64, new Random(9));
            final DescriptorBatch batch = new DescriptorBatch(64);
            final TxCompletion completion = new TxCompletion();
            final RxBurst burst = new RxBurst(64);
            final Random random = new Random(13);
            long sentPackets = 0;
            long sentBytes = 0;
            long completedPackets = 0;
            long completedBytes = 0;
            for (int round = 0; round < 2_000; round++)
            {
                final int queue = random.nextInt(2);
                final int from = random.nextInt(64);
                final int to = from + 1 + random.nextInt(64 - from);
                final int accepted = a.txBurst(queue, frames.describe(batch, from, to));
                assertTrue(accepted >= 0 && accepted <= to - from, "accepted " + accepted);
                for (int i = 0; i < accepted; i++)
                {
                    sentPackets++;
                    sentBytes += frames.lengths[from + i];
                }
                if (random.nextInt(3) == 0)
                {
                    assertEquals(0, a.txReclaim(queue, completion));
                    completedPackets += completion.packets();
                    completedBytes += completion.bytes();
                }
                for (int q = 0; q < 2; q++)
                {
                    final int received = b.rxBurst(q, burst);
                    assertTrue(received >= 0);
                    assertEquals(0, b.rxRelease(q, received));
                }
            }
            for (int q = 0; q < 2; q++)
            {
                assertEquals(0, a.txReclaim(q, completion));
                completedPackets += completion.packets();
                completedBytes += completion.bytes();
                assertEquals(0, a.stats(q).txRingUsed(), "TX ring " + q + " is empty after the last reclaim");
            }
            assertEquals(sentPackets, completedPackets);
            assertEquals(sentBytes, completedBytes);
            final long transmitted = a.stats(0).txPackets() + a.stats(1).txPackets();
            final long transmittedBytes = a.stats(0).txBytes() + a.stats(1).txBytes();
            final long arrived = b.stats(0).rxPackets() + b.stats(1).rxPackets() +
                b.stats(0).rxMissed() + b.stats(1).rxMissed();
            assertEquals(sentPackets, transmitted);
            assertEquals(sentBytes, transmittedBytes);
            assertEquals(sentPackets, arrived, "every transmitted frame was received or counted missed");
        }
    }

    @Test
    void aFullTxRingAcceptsFewerAndCorruptsNothing()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=16"))
        {
            final NicDriver a = device.port(0);
            final NicDriver b = device.port(1);
            final TestFrames frames = frames(32, new Random(17));
            final DescriptorBatch batch = new DescriptorBatch(16);
            assertEquals(10, a.txBurst(0, frames.describe(batch, 0, 10)));
            assertEquals(6, a.txBurst(0, frames.describe(batch, 10, 26)), "only 6 descriptors were free");
            assertEquals(0, a.txBurst(0, frames.describe(batch, 16, 20)));
            assertEquals(16, a.stats(0).txRingUsed());

            final RxBurst burst = new RxBurst(16);
            assertEquals(16, b.rxBurst(0, burst));
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (int i = 0; i < 16; i++)
            {
                burst.wrapFrame(i, view);
                assertTrue(frames.sameBytes(i, view), "frame " + i + " arrived intact and in order");
            }
            assertEquals(0, b.rxRelease(0, 16));

            final TxCompletion completion = new TxCompletion();
            assertEquals(0, a.txReclaim(0, completion));
            assertEquals(16, completion.packets());
            long bytes = 0;
            for (int i = 0; i < 16; i++)
            {
                bytes += frames.lengths[i];
            }
            assertEquals(bytes, completion.bytes());
            assertEquals(0, a.stats(0).txRingUsed());
            assertEquals(16, a.txBurst(0, frames.describe(batch, 16, 32)), "the reclaimed ring takes a full burst");
        }
    }

    @Test
    void aFullRxRingCountsMissedFrames()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=8"))
        {
            final TestFrames frames = frames(8, new Random(19));
            final DescriptorBatch batch = new DescriptorBatch(8);
            final TxCompletion completion = new TxCompletion();
            assertEquals(8, device.port(0).txBurst(0, frames.describe(batch, 0, 8)));
            assertEquals(0, device.port(0).txReclaim(0, completion));
            assertEquals(5, device.port(0).txBurst(0, frames.describe(batch, 0, 5)));
            final QueueStats rx = device.port(1).stats(0);
            assertEquals(8, rx.rxPackets());
            assertEquals(5, rx.rxMissed());
            assertEquals(13, device.port(0).stats(0).txPackets(), "missed frames still left the sender");
        }
    }

    @Test
    void theWireRateHoldsWithinTenPercent()
    {
        final long rate = 200_000;
        // A ring of 4096 holds 20 ms of this wire: the sender keeps it topped up, so the wire never waits for it
        // even when this thread loses its core for a while.
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=4096,rate=200kpps"))
        {
            final NicDriver a = device.port(0);
            final NicDriver b = device.port(1);
            final TestFrames frames = frames(64, new Random(23));
            final DescriptorBatch batch = frames.describe(new DescriptorBatch(64), 0, 64);
            final TxCompletion completion = new TxCompletion();
            final RxBurst burst = new RxBurst(4096);
            topUp(a, batch, completion);
            // The window runs until this thread has run for 300 ms (at most 6 s in all), and is measured two ways.
            // As a whole, for the upper bound: no pause of this thread lets the wire carry more than its rate (the
            // window opens before the count is read and closes after it is read again). Less what of this thread's
            // pauses the ring may not cover, for the lower bound: the wire catches up after a pause until the ring
            // runs dry, and the topped-up ring holds 20 ms of this wire, so of each pause all but its first 10 ms
            // is left out.
            final long start = System.nanoTime();
            final long startPackets = a.stats(0).txPackets();
            long now = start;
            long paused = 0;
            do
            {
                topUp(a, batch, completion);
                drain(b, burst);
                final long later = System.nanoTime();
                if (later - now > 10_000_000L)
                {
                    paused += later - now - 10_000_000L;
                }
                now = later;
            }
            while (now - start - paused < 300_000_000L && now - start < 6_000_000_000L);
            final long carried = a.stats(0).txPackets() - startPackets;
            final long end = System.nanoTime();
            final double overall = carried * 1e9 / (end - start);
            final double active = carried * 1e9 / (end - start - paused);
            assertTrue(overall <= rate * 1.10, "packets/s on a 200 kpps wire over " + (end - start) / 1_000_000 +
                " ms: " + overall);
            assertTrue(active >= rate * 0.90, "packets/s on a 200 kpps wire over " + (end - start - paused) /
                1_000_000 + " ms (the window less what of the sender's pauses the ring could not cover): " + active);
            final QueueStats received = b.stats(0);
            assertEquals(a.stats(0).txPackets(), received.rxPackets() + received.rxMissed(),
                "every frame the wire carried arrived or was counted missed");
        }
    }

    private static void topUp(final NicDriver port, final DescriptorBatch batch, final TxCompletion completion)
    {
        assertEquals(0, port.txReclaim(0, completion));
        int accepted;
        do
        {
            accepted = port.txBurst(0, batch);
            assertTrue(accepted >= 0);
        }
        while (accepted == batch.size());
    }

    private static void drain(final NicDriver port, final RxBurst burst)
    {
        final int received = port.rxBurst(0, burst);
        assertTrue(received >= 0);
        assertEquals(0, port.rxRelease(0, received));
    }

    private static TestFrames frames(final int count, final Random random)
    {
        final TestFrames frames = new TestFrames(count);
        for (int slot = 0; slot < count; slot++)
        {
            frames.write(slot, TestFrames.randomFlow(random), 18 + random.nextInt(400), slot);
        }
        return frames;
    }

    private static void sendAll(final NicDriver port, final TestFrames frames)
    {
        final DescriptorBatch batch = new DescriptorBatch(64);
        final int count = frames.lengths.length;
        for (int from = 0; from < count; from += 64)
        {
            final int to = Math.min(count, from + 64);
            assertEquals(to - from, port.txBurst((from / 64) % port.txQueueCount(), frames.describe(batch, from, to)));
        }
        final TxCompletion completion = new TxCompletion();
        long completed = 0;
        for (int q = 0; q < port.txQueueCount(); q++)
        {
            assertEquals(0, port.txReclaim(q, completion));
            completed += completion.packets();
        }
        assertEquals(count, completed);
    }

    /** Receives every frame on all RX queues, checks its bytes, and returns the queue each slot arrived on. */
    private static int[] receiveAll(final NicDriver port, final TestFrames frames)
    {
        final int[] queueOf = new int[frames.lengths.length];
        Arrays.fill(queueOf, -1);
        final RxBurst burst = new RxBurst(1024);
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        int total = 0;
        for (int q = 0; q < port.rxQueueCount(); q++)
        {
            final int received = port.rxBurst(q, burst);
            for (int i = 0; i < received; i++)
            {
                burst.wrapFrame(i, view);
                final int slot = frames.sequenceOf(view);
                assertEquals(-1, queueOf[slot], "frame " + slot + " arrived once");
                assertTrue(frames.sameBytes(slot, view), "frame " + slot + " arrived intact");
                queueOf[slot] = q;
            }
            assertEquals(0, port.rxRelease(q, received));
            total += received;
        }
        assertEquals(frames.lengths.length, total);
        return queueOf;
    }
}
