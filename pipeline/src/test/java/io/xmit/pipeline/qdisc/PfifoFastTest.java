package io.xmit.pipeline.qdisc;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.qdisc.Qdisc.NET_XMIT_DROP;
import static io.xmit.pipeline.qdisc.Qdisc.NET_XMIT_SUCCESS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PfifoFastTest
{
    // Priorities landing in each band (kernel-semantics §4.2).
    private static final int BAND0 = 6;
    private static final int BAND1 = 0;
    private static final int BAND2 = 1;

    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[4096]);
    private final UnsafeBuffer view = new UnsafeBuffer();

    /** Enqueue a frame whose first four bytes are {@code id} and the rest {@code id} as bytes. */
    private int enqueue(final Qdisc q, final int id, final int length, final int priority)
    {
        fill(id, length);
        return q.enqueue(frame, 0, length, priority);
    }

    private void fill(final int id, final int length)
    {
        frame.setMemory(0, length, (byte)id);
        if (length >= 4)
        {
            frame.putInt(0, id);
        }
    }

    private int idAt(final DescriptorBatch batch, final int index)
    {
        view.wrap(batch.address(index), batch.length(index));
        return view.getInt(0);
    }

    private int[] ids(final DescriptorBatch batch)
    {
        final int[] ids = new int[batch.size()];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = idAt(batch, i);
        }
        return ids;
    }

    /** Dequeue everything one by one and return the ids in order. */
    private int[] drain(final PfifoFast q)
    {
        final DescriptorBatch batch = new DescriptorBatch(q.qlen() + 1);
        while (q.dequeue(batch) == 1)
        {
            assertStatsConsistent(q);
        }
        final int[] ids = ids(batch);
        q.complete(batch, batch.size());
        return ids;
    }

    /** qlen counts the bands and the requeue list (§4.6). */
    private static void assertStatsConsistent(final PfifoFast q)
    {
        int queued = q.requeueLength();
        for (int band = 0; band < PfifoFast.BANDS; band++)
        {
            queued += q.bandLength(band);
        }
        assertEquals(queued, q.qlen());
        assertEquals(q.qlen() == 0, q.isEmpty());
        if (q.qlen() == 0)
        {
            assertEquals(0, q.backlog());
        }
    }

    @Test
    void prio2bandMatchesKernelTableForAll16Priorities()
    {
        // kernel-semantics §4.2: priorities 0–15 → 1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1.
        final int[] expected = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
        for (int priority = 0; priority < 16; priority++)
        {
            assertEquals(expected[priority], PfifoFast.prio2band(priority), "priority " + priority);
            // Only priority & 15 counts.
            assertEquals(expected[priority], PfifoFast.prio2band(priority + 16 * 7), "priority " + (priority + 112));
        }
        assertEquals(1, PfifoFast.prio2band(-16));
    }

    @Test
    void limitIsPerBandAndDropsAreCounted()
    {
        // kernel-semantics §4.2: each band has its own limit; a full band drops (drops++, NET_XMIT_DROP).
        final PfifoFast q = new PfifoFast(4, 256, 8);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(NET_XMIT_SUCCESS, enqueue(q, i, 100, BAND0));
        }
        assertEquals(NET_XMIT_DROP, enqueue(q, 99, 100, BAND0));
        assertEquals(1, q.stats().drops());
        assertEquals(4, q.bandLength(0));

        // The other bands are not affected by band 0 being full.
        for (int i = 0; i < 4; i++)
        {
            assertEquals(NET_XMIT_SUCCESS, enqueue(q, 10 + i, 100, BAND1));
            assertEquals(NET_XMIT_SUCCESS, enqueue(q, 20 + i, 100, BAND2));
        }
        assertEquals(NET_XMIT_DROP, enqueue(q, 98, 100, BAND2));
        assertEquals(2, q.stats().drops());
        assertEquals(12, q.qlen());
        assertEquals(1200, q.backlog());
        assertEquals(0, q.stats().oversize());
        assertStatsConsistent(q);
    }

    @Test
    void dequeueIsStrictPriorityAndFifoWithinBand()
    {
        // kernel-semantics §4.2: strict priority 0→2, FIFO inside a band.
        final PfifoFast q = new PfifoFast(16, 128, 4);
        enqueue(q, 20, 64, BAND2);
        enqueue(q, 10, 64, BAND1);
        enqueue(q, 21, 64, BAND2);
        enqueue(q, 0, 64, BAND0);
        enqueue(q, 11, 64, 4);
        enqueue(q, 1, 64, 7);
        enqueue(q, 22, 64, 5);
        assertArrayEquals(new int[] { 0, 1, 10, 11, 20, 21, 22 }, drain(q));
        assertTrue(q.isEmpty());
    }

    @Test
    void bulkDequeueStopsWhenByteBudgetIsSpent()
    {
        // kernel-semantics §6.1: budget = 3000 − 1000 = 2000 > 0 → take 2nd (1000 left) → take 3rd (0 left) → stop.
        final PfifoFast q = new PfifoFast(16, 1024, 16);
        for (int i = 0; i < 6; i++)
        {
            enqueue(q, i, 1000, BAND1);
        }
        final DescriptorBatch batch = new DescriptorBatch(64);
        assertEquals(3, q.dequeueBulk(batch, 64, 3000));
        assertArrayEquals(new int[] { 0, 1, 2 }, ids(batch));
        assertEquals(3, q.qlen());
        assertEquals(3000, q.backlog());
        q.complete(batch, 3);

        // budget 3001: 2001 → 1001 → 1 → −999: the budget only has to be positive before each extra packet.
        enqueue(q, 6, 1000, BAND1);
        assertEquals(4, q.dequeueBulk(batch, 64, 3001));
        assertArrayEquals(new int[] { 3, 4, 5, 6 }, ids(batch));
        q.complete(batch, 4);
        assertStatsConsistent(q);
    }

    @Test
    void bulkDequeueAlwaysTakesTheFirstPacket()
    {
        // kernel-semantics §6.1: the first packet is dequeued before the budget is computed.
        final PfifoFast q = new PfifoFast(16, 2048, 16);
        enqueue(q, 1, 1500, BAND1);
        enqueue(q, 2, 1500, BAND1);
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(1, q.dequeueBulk(batch, 8, 500));
        assertEquals(1500, batch.length(0));
        assertEquals(1, q.qlen());
        q.complete(batch, 1);
    }

    @Test
    void bulkDequeueWithoutBqlTakesExactlyOnePacket()
    {
        // kernel-semantics §6.1: a driver without BQL has avail 0, so no bulking.
        final PfifoFast q = new PfifoFast(16, 128, 16);
        for (int i = 0; i < 4; i++)
        {
            enqueue(q, i, 64, BAND1);
        }
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(1, q.dequeueBulk(batch, 8, 0));
        assertEquals(2, q.dequeueBulk(batch, 8, -100) + q.dequeue(batch));
        assertArrayEquals(new int[] { 0, 1, 2 }, ids(batch));
        q.complete(batch, 3);
    }

    @Test
    void bulkDequeueIsBoundedByPacketCountAndBatchRoom()
    {
        final PfifoFast q = new PfifoFast(16, 128, 16);
        for (int i = 0; i < 10; i++)
        {
            enqueue(q, i, 64, BAND1);
        }
        final DescriptorBatch batch = new DescriptorBatch(3);
        assertEquals(2, q.dequeueBulk(batch, 2, 1_000_000));
        assertEquals(1, q.dequeueBulk(batch, 64, 1_000_000));
        assertEquals(0, q.dequeueBulk(batch, 64, 1_000_000));
        assertArrayEquals(new int[] { 0, 1, 2 }, ids(batch));
        q.complete(batch, 3);
        assertEquals(0, q.dequeueBulk(batch, 0, 1_000_000));
        assertEquals(7, q.qlen());
    }

    @Test
    void bulkDequeueSpansBandsInPriorityOrder()
    {
        final PfifoFast q = new PfifoFast(16, 128, 16);
        enqueue(q, 20, 100, BAND2);
        enqueue(q, 10, 100, BAND1);
        enqueue(q, 0, 100, BAND0);
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(3, q.dequeueBulk(batch, 8, 10_000));
        assertArrayEquals(new int[] { 0, 10, 20 }, ids(batch));
        q.complete(batch, 3);
    }

    @Test
    void partialAcceptRequeuesTheRestAtTheHeadInOrder()
    {
        // kernel-semantics §4.6: refused packets are requeued (requeues++, qlen/backlog back); §4.7a: the requeue
        // list is dequeued before the bands, even before a higher band.
        final PfifoFast q = new PfifoFast(16, 128, 16);
        for (int i = 1; i <= 6; i++)
        {
            enqueue(q, i, 100, BAND1);
        }
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(4, q.dequeueBulk(batch, 4, 100_000));
        assertEquals(2, q.qlen());
        assertEquals(200, q.backlog());

        q.complete(batch, 1);
        assertTrue(batch.isEmpty());
        assertEquals(3, q.stats().requeues());
        assertEquals(3, q.requeueLength());
        assertEquals(5, q.qlen());
        assertEquals(500, q.backlog());
        assertStatsConsistent(q);

        enqueue(q, 7, 100, BAND0);
        // Take two of the three requeued, refuse both: they go back ahead of the third.
        assertEquals(2, q.dequeueBulk(batch, 2, 100_000));
        assertArrayEquals(new int[] { 2, 3 }, ids(batch));
        q.complete(batch, 0);
        assertEquals(5, q.stats().requeues());

        assertArrayEquals(new int[] { 2, 3, 4, 7, 5, 6 }, drain(q));
        assertTrue(q.isEmpty());
        assertEquals(0, q.backlog());
    }

    @Test
    void bstatsCountEachPacketOnceAtFirstDequeue()
    {
        // kernel-semantics §4.10: the enqueue path counts bstats at dequeue; a requeued packet is not counted again.
        final PfifoFast q = new PfifoFast(16, 128, 16);
        enqueue(q, 1, 100, BAND1);
        enqueue(q, 2, 50, BAND1);
        final DescriptorBatch batch = new DescriptorBatch(8);
        q.dequeueBulk(batch, 8, 10_000);
        assertEquals(2, q.stats().packets());
        assertEquals(150, q.stats().bytes());
        q.complete(batch, 0);
        q.dequeueBulk(batch, 8, 10_000);
        q.complete(batch, 2);
        assertEquals(2, q.stats().packets());
        assertEquals(150, q.stats().bytes());
    }

    @Test
    void requeueCopiesToTheHeadKeepingTheOrderOfARun()
    {
        // kernel-semantics §4.6: dev_requeue_skb for bypass leftovers.
        final PfifoFast q = new PfifoFast(16, 128, 16);
        enqueue(q, 9, 100, BAND0);
        fill(1, 100);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 100, BAND2));
        fill(2, 80);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 80, BAND2));
        assertEquals(2, q.stats().requeues());
        assertEquals(3, q.qlen());
        assertEquals(280, q.backlog());
        assertEquals(100, q.peekLength());

        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(1, q.dequeue(batch));
        // A new run after a dequeue goes ahead of what is left (packet 2).
        fill(3, 60);
        q.requeue(frame, 0, 60, BAND1);
        fill(4, 60);
        q.requeue(frame, 0, 60, BAND1);
        q.complete(batch, 1);
        assertArrayEquals(new int[] { 3, 4, 2, 9 }, drain(q));
        // §4.10: requeue() counts the four bypass leftovers as they arrive, the band dequeue counts packet 9,
        // and dequeuing requeued packets counts nothing more.
        assertEquals(5, q.stats().packets());
        assertEquals(400, q.stats().bytes());
    }

    @Test
    void refusedExternalDescriptorsAreCopiedIntoTheRequeueList()
    {
        // The bypass path: descriptors point into the ring; bstats count them (§4.10), refused ones are requeued
        // (§4.6) by copying their bytes, and later requeue calls continue the same run.
        final PfifoFast q = new PfifoFast(16, 128, 16);
        enqueue(q, 9, 100, BAND0);
        final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
        final DescriptorBatch batch = new DescriptorBatch(8);
        for (int i = 0; i < 3; i++)
        {
            ring.setMemory(i * 128, 100, (byte)(i + 1));
            ring.putInt(i * 128, i + 1);
            assertTrue(batch.addExternal(ring.addressOffset() + i * 128, 100 - i, BAND2));
            assertTrue(batch.isExternal(i));
        }
        q.complete(batch, 1);
        assertEquals(3, q.stats().packets());
        assertEquals(100 + 99 + 98, q.stats().bytes());
        assertEquals(2, q.stats().requeues());
        assertEquals(3, q.qlen());
        assertEquals(100 + 99 + 98, q.backlog());

        fill(4, 70);
        q.requeue(frame, 0, 70, BAND1);

        // Overwrite the ring: the qdisc holds its own copies now.
        ring.setMemory(0, 1024, (byte)0);
        final DescriptorBatch out = new DescriptorBatch(8);
        assertEquals(4, q.dequeueBulk(out, 8, 100_000));
        assertArrayEquals(new int[] { 2, 3, 4, 9 }, ids(out));
        assertEquals(99, out.length(0));
        assertEquals(BAND2, out.priority(0));
        assertFalse(out.isExternal(0));
        view.wrap(out.address(1), out.length(1));
        assertEquals((byte)3, view.getByte(97));
        q.complete(out, 4);
        // The three external ones at their completion, packet 4 at its requeue (both bypass leftovers, §4.10),
        // packet 9 at its dequeue from its band.
        assertEquals(5, q.stats().packets());
    }

    @Test
    void oversizeFramesAreDroppedAndCountedSeparately()
    {
        final PfifoFast q = new PfifoFast(16, 128, 16);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 128, BAND1));
        assertEquals(NET_XMIT_DROP, enqueue(q, 2, 129, BAND1));
        assertEquals(NET_XMIT_DROP, q.requeue(frame, 0, 129, BAND1));
        assertEquals(NET_XMIT_DROP, q.enqueue(frame, 0, -1, BAND1));
        assertEquals(3, q.stats().oversize());
        assertEquals(3, q.stats().drops());
        assertEquals(1, q.qlen());
        assertEquals(128, q.backlog());
    }

    @Test
    void slotsBeyondTheBandsBoundPacketsOutsideThem()
    {
        // Headroom 0: every slot is needed by the bands, so a packet held in a batch blocks one enqueue.
        final PfifoFast q = new PfifoFast(2, 64, 0);
        for (int i = 0; i < 2; i++)
        {
            enqueue(q, i, 64, BAND0);
            enqueue(q, 10 + i, 64, BAND1);
            enqueue(q, 20 + i, 64, BAND2);
        }
        assertEquals(0, q.freeSlots());
        final DescriptorBatch batch = new DescriptorBatch(4);
        q.dequeue(batch);
        assertEquals(NET_XMIT_DROP, enqueue(q, 3, 64, BAND0));
        assertEquals(1, q.stats().drops());
        q.complete(batch, 1);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 3, 64, BAND0));
    }

    @Test
    void statsStayConsistentThroughEveryOperation()
    {
        final PfifoFast q = new PfifoFast(8, 256, 32);
        final DescriptorBatch batch = new DescriptorBatch(5);
        long expectedBacklog = 0;
        int expectedQlen = 0;
        for (int round = 0; round < 50; round++)
        {
            for (int i = 0; i < 3; i++)
            {
                final int length = 60 + (round * 7 + i * 13) % 190;
                if (enqueue(q, round * 10 + i, length, round + i) == NET_XMIT_SUCCESS)
                {
                    expectedBacklog += length;
                    expectedQlen++;
                }
                assertEquals(expectedQlen, q.qlen());
                assertEquals(expectedBacklog, q.backlog());
            }
            q.dequeueBulk(batch, 5, round % 4 * 200);
            final long taken = batch.bytes();
            expectedBacklog -= taken;
            expectedQlen -= batch.size();
            assertEquals(expectedQlen, q.qlen());
            assertEquals(expectedBacklog, q.backlog());
            assertStatsConsistent(q);

            final int accepted = round % (batch.size() + 1);
            long refused = 0;
            for (int i = accepted; i < batch.size(); i++)
            {
                refused += batch.length(i);
            }
            expectedQlen += batch.size() - accepted;
            expectedBacklog += refused;
            q.complete(batch, accepted);
            assertEquals(expectedQlen, q.qlen());
            assertEquals(expectedBacklog, q.backlog());
            assertStatsConsistent(q);
        }
        assertEquals(8 * 3 + 32, q.freeSlots() + q.qlen());
    }

    @Test
    void peekLengthShowsTheNextPacket()
    {
        final PfifoFast q = new PfifoFast(16, 128, 16);
        assertEquals(-1, q.peekLength());
        enqueue(q, 1, 70, BAND2);
        assertEquals(70, q.peekLength());
        enqueue(q, 2, 90, BAND0);
        assertEquals(90, q.peekLength());
        final DescriptorBatch batch = new DescriptorBatch(1);
        q.dequeue(batch);
        q.complete(batch, 0);
        assertEquals(90, q.peekLength());
    }

    @Test
    void resetEmptiesEverythingButKeepsCumulativeCounters()
    {
        // kernel-semantics §5.6: reset empties the queue; qlen/backlog go to 0.
        final PfifoFast q = new PfifoFast(8, 128, 8);
        for (int i = 0; i < 5; i++)
        {
            enqueue(q, i, 100, i);
        }
        enqueue(q, 99, 200, BAND1);
        final DescriptorBatch batch = new DescriptorBatch(4);
        q.dequeueBulk(batch, 2, 10_000);
        q.complete(batch, 1);
        q.dequeue(batch);
        assertEquals(1, q.stats().drops());

        q.reset();
        assertTrue(q.isEmpty());
        assertEquals(0, q.qlen());
        assertEquals(0, q.backlog());
        assertEquals(0, q.requeueLength());
        assertEquals(-1, q.peekLength());
        assertEquals(1, q.stats().drops());
        assertEquals(1, q.stats().requeues());
        assertEquals(2, q.stats().packets());
        // The batch still owns its slot; completing it after the reset releases it normally.
        assertEquals(8 * 3 + 8 - 1, q.freeSlots());
        q.complete(batch, 1);
        assertEquals(8 * 3 + 8, q.freeSlots());
        assertEquals(0, q.dequeue(batch));
    }

    @Test
    void descriptorsPointAtAlignedOffHeapCopies()
    {
        final PfifoFast q = new PfifoFast(4, 100, 4);
        enqueue(q, 0x01020304, 100, BAND1);
        enqueue(q, 0x05060708, 33, BAND1);
        final DescriptorBatch batch = new DescriptorBatch(4);
        q.dequeueBulk(batch, 4, 10_000);
        for (int i = 0; i < 2; i++)
        {
            assertEquals(0, batch.address(i) & 63, "64-byte aligned slot");
            assertTrue(batch.slot(i) >= 0);
        }
        view.wrap(batch.address(1), batch.length(1));
        assertEquals(0x05060708, view.getInt(0));
        assertEquals((byte)0x08, view.getByte(32));
        assertEquals(33, batch.length(1));
        assertEquals(133, batch.bytes());
        q.complete(batch, 2);
    }

    @Test
    void misuseIsRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> new PfifoFast(0, 2048, 0));
        assertThrows(IllegalArgumentException.class, () -> new PfifoFast(1000, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PfifoFast(1000, 2048, -1));
        assertThrows(IllegalArgumentException.class, () -> new PfifoFast(1 << 24, 1 << 20, 0));
        assertThrows(IllegalArgumentException.class, () -> new DescriptorBatch(0));

        final PfifoFast q = new PfifoFast(4, 64, 4);
        final PfifoFast other = new PfifoFast(4, 64, 4);
        enqueue(q, 1, 64, BAND1);
        final DescriptorBatch batch = new DescriptorBatch(2);
        q.dequeue(batch);
        assertThrows(IllegalArgumentException.class, () -> q.complete(batch, 2));
        assertThrows(IllegalArgumentException.class, () -> q.complete(batch, -1));
        assertThrows(IllegalArgumentException.class, () -> other.complete(batch, 1));
        assertThrows(IllegalStateException.class, batch::clear);
        q.complete(batch, 1);
        batch.clear();
        assertTrue(batch.addExternal(0x1000, 10, 0));
        assertTrue(batch.addExternal(0x2000, 10, 0));
        assertFalse(batch.addExternal(0x3000, 10, 0));
        batch.clear();
        assertEquals(0, batch.size());
    }

    @Test
    void defaultsMatchTheKernel()
    {
        // kernel-semantics §4.2: tx_queue_len 1000 per band.
        final PfifoFast q = new PfifoFast();
        assertEquals(1000, q.bandLimit());
        assertEquals(2048, q.slotSize());
        assertEquals(3 * 1000 + PfifoFast.DEFAULT_HEADROOM_SLOTS, q.freeSlots());
    }

    @Test
    void aSourceTooShortThrowsWithoutLosingASlot()
    {
        final PfifoFast q = new PfifoFast(4, 128, 0);
        final int free = q.freeSlots();
        final UnsafeBuffer shortSource = new UnsafeBuffer(new byte[16]);
        assertThrows(IndexOutOfBoundsException.class, () -> q.enqueue(shortSource, 0, 64, BAND0));
        assertThrows(IndexOutOfBoundsException.class, () -> q.requeue(shortSource, 8, 16, BAND0));
        assertEquals(free, q.freeSlots());
        assertEquals(0, q.qlen());
        assertEquals(0, q.backlog());
    }

    @Test
    void aBatchHoldingAnotherQdiscsSlotsIsRefusedBeforeItIsMixed()
    {
        final PfifoFast a = new PfifoFast(4, 128, 4);
        final PfifoFast b = new PfifoFast(4, 128, 4);
        enqueue(a, 1, 100, BAND0);
        enqueue(b, 2, 100, BAND0);
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(1, a.dequeue(batch));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> b.dequeue(batch));
        assertTrue(ex.getMessage().contains("batch holds slots of PfifoFast"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.complete(batch, 1));
        assertEquals(1, b.qlen());
        a.complete(batch, 1);
        assertEquals(1, b.dequeue(batch));
    }

    @Test
    void refusedExternalDescriptorsBeyondTheFreeSlotsDropTheNewestAndKeepTheOldest()
    {
        // Two free slots, four refused bypass descriptors: the two oldest are requeued in order, the two newest
        // are counted as drops.
        final PfifoFast q = new PfifoFast(1, 128, 0);
        enqueue(q, 7, 100, BAND0);
        final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(4 * 128));
        final DescriptorBatch batch = new DescriptorBatch(8);
        for (int i = 0; i < 4; i++)
        {
            ring.putInt(i * 128, 10 + i);
            batch.addExternal(ring.addressOffset() + i * 128, 100, BAND0);
        }
        assertEquals(2, q.freeSlots());
        q.complete(batch, 0);
        assertEquals(2, q.stats().drops());
        assertEquals(2, q.requeueLength());
        assertArrayEquals(new int[] { 10, 11, 7 }, drain(q));
    }

    /** §4.2: a bulk bounded to bands 0..lastBand takes the requeue list, then those bands, and never a later band. */
    @Test
    void section4_2BulkDequeueStopsAtTheLastBandItMayTake()
    {
        final PfifoFast q = new PfifoFast(16, 64, 8);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 64, BAND2));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 2, 64, BAND0));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 3, 64, BAND1));
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(1, q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 0));
        assertArrayEquals(new int[] {2}, ids(batch));
        q.complete(batch, 1);
        assertEquals(1, q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 1));
        assertArrayEquals(new int[] {3}, ids(batch));
        q.complete(batch, 0);
        assertEquals(1, q.requeueLength());
        assertEquals(1, q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 0), "the requeue list, whatever its band");
        assertArrayEquals(new int[] {3}, ids(batch));
        q.complete(batch, 1);
        assertEquals(0, q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 1));
        assertEquals(1, q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 2));
        assertArrayEquals(new int[] {1}, ids(batch));
        q.complete(batch, 1);
        assertTrue(q.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> q.dequeueBulk(batch, 8, Integer.MAX_VALUE, 3));
        assertThrows(IllegalArgumentException.class, () -> q.dequeueBulk(batch, 8, Integer.MAX_VALUE, -1));
    }

    /** §4.5: a batch the driver failed is dropped whole: slots back in the free list, counted, nothing requeued. */
    @Test
    void section4_5DiscardDropsTheWholeBatchAndFreesItsSlots()
    {
        final PfifoFast q = new PfifoFast(4, 64, 0);
        for (int id = 0; id < 4; id++)
        {
            assertEquals(NET_XMIT_SUCCESS, enqueue(q, id, 64, BAND1));
        }
        final int freeBefore = q.freeSlots();
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(3, q.dequeueBulk(batch, 3, Integer.MAX_VALUE));
        fill(9, 64);
        final UnsafeBuffer external = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        external.putBytes(0, frame, 0, 64);
        assertTrue(batch.addExternal(external.addressOffset(), 64, BAND1));
        q.discard(batch);
        assertTrue(batch.isEmpty());
        assertEquals(freeBefore + 3, q.freeSlots());
        assertEquals(4, q.stats().drops());
        assertEquals(0, q.requeueLength());
        assertEquals(1, q.qlen());
        assertArrayEquals(new int[] {3}, drain(q));
    }
}
