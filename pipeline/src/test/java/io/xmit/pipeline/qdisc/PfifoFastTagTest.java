package io.xmit.pipeline.qdisc;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.qdisc.Qdisc.NET_XMIT_DROP;
import static io.xmit.pipeline.qdisc.Qdisc.NET_XMIT_SUCCESS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tag a packet carries through pfifo_fast (xmit: the sending socket's id, whose in-flight count its TX completion
 * releases): from enqueue to the dequeued descriptor, through {@code complete}'s requeue of refused owned and
 * refused external (bypass) descriptors (kernel-semantics §4.6), and through {@code requeue}.
 */
class PfifoFastTagTest
{
    // Priorities landing in each band (kernel-semantics §4.2).
    private static final int BAND0 = 6;
    private static final int BAND1 = 0;
    private static final int BAND2 = 1;

    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[4096]);
    private final UnsafeBuffer view = new UnsafeBuffer();
    /** Native memory for external descriptors, as the bypass points straight into a ring. */
    private final UnsafeBuffer external = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));

    @Test
    void tagsSurviveEnqueueAndDequeueInBandOrder()
    {
        final PfifoFast q = new PfifoFast(16, 256, 8);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 64, BAND2, 101));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 2, 65, BAND1, 102));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 3, 66, BAND0, 103));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 4, 67, BAND1, -1));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 5, 68, BAND0, Integer.MIN_VALUE));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 6, 69, BAND2, Integer.MAX_VALUE));

        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(6, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {3, 5, 2, 4, 1, 6}, ids(batch));
        assertArrayEquals(new int[] {103, Integer.MIN_VALUE, 102, -1, 101, Integer.MAX_VALUE}, tags(batch));
        assertArrayEquals(new int[] {BAND0, BAND0, BAND1, BAND1, BAND2, BAND2}, priorities(batch));
        assertArrayEquals(new int[] {66, 68, 65, 67, 64, 69}, lengths(batch));
        q.complete(batch, 6);
        assertTrue(q.isEmpty());
    }

    @Test
    void anUntaggedEnqueueIsTagZeroEvenInAReusedSlot()
    {
        final PfifoFast q = new PfifoFast(4, 256, 0);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 64, BAND1, 77));
        final DescriptorBatch batch = new DescriptorBatch(4);
        assertEquals(1, q.dequeue(batch));
        final int slot = batch.slot(0);
        assertEquals(77, batch.tag(0));
        q.complete(batch, 1);

        fill(2, 64);
        assertEquals(NET_XMIT_SUCCESS, q.enqueue(frame, 0, 64, BAND1));
        assertEquals(1, q.dequeue(batch));
        assertEquals(slot, batch.slot(0), "the freed slot is the one reused");
        assertEquals(2, idAt(batch, 0));
        assertEquals(0, batch.tag(0), "the slot's old tag does not leak into an untagged packet");
        q.complete(batch, 1);
    }

    @Test
    void refusedOwnedDescriptorsAreRequeuedWithTheirTags()
    {
        final PfifoFast q = new PfifoFast(16, 256, 8);
        for (int id = 1; id <= 5; id++)
        {
            assertEquals(NET_XMIT_SUCCESS, enqueue(q, id, 60 + id, BAND1, 1000 + id));
        }
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(5, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));

        q.complete(batch, 2);
        assertEquals(0, batch.size());
        assertEquals(3, q.requeueLength());
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 6, 66, BAND0, 1006));

        assertEquals(4, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {3, 4, 5, 6}, ids(batch), "the requeue list goes before even band 0 (§4.7a)");
        assertArrayEquals(new int[] {1003, 1004, 1005, 1006}, tags(batch));
        assertArrayEquals(new int[] {BAND1, BAND1, BAND1, BAND0}, priorities(batch));
        assertArrayEquals(new int[] {63, 64, 65, 66}, lengths(batch));
        q.complete(batch, 4);
        assertTrue(q.isEmpty());
    }

    @Test
    void refusedExternalDescriptorsAreCopiedInWithTheirTags()
    {
        final PfifoFast q = new PfifoFast(16, 256, 8);
        final DescriptorBatch batch = new DescriptorBatch(8);
        for (int id = 1; id <= 4; id++)
        {
            assertTrue(batch.addExternal(writeExternal(id, 100 + id), 100 + id, BAND2, 2000 + id));
        }
        assertArrayEquals(new int[] {2001, 2002, 2003, 2004}, tags(batch));
        assertTrue(batch.isExternal(0));

        q.complete(batch, 1);
        assertEquals(3, q.requeueLength());
        assertEquals(4, q.stats().packets(), "bypassed packets are counted as they go (§4.10)");

        assertEquals(3, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {2, 3, 4}, ids(batch));
        assertArrayEquals(new int[] {2002, 2003, 2004}, tags(batch));
        assertArrayEquals(new int[] {BAND2, BAND2, BAND2}, priorities(batch));
        assertArrayEquals(new int[] {102, 103, 104}, lengths(batch));
        for (int i = 0; i < 3; i++)
        {
            assertFalse(batch.isExternal(i), "now in a qdisc slot");
        }
        q.complete(batch, 3);
        assertEquals(4, q.stats().packets(), "not counted again when dequeued from the requeue list");
    }

    @Test
    void aMixedBatchRequeuesOwnedAndExternalInOrderWithTheirTags()
    {
        final PfifoFast q = new PfifoFast(16, 256, 8);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 61, BAND0, 11));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 2, 62, BAND1, 12));
        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(2, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertTrue(batch.addExternal(writeExternal(3, 63), 63, BAND2, 13));
        assertTrue(batch.addExternal(writeExternal(4, 64), 64, BAND0));
        assertTrue(batch.addExternal(writeExternal(5, 65), 65, BAND1, 15));
        assertArrayEquals(new int[] {11, 12, 13, 0, 15}, tags(batch), "the tagless addExternal is tag 0");

        q.complete(batch, 1);
        assertEquals(4, q.requeueLength());
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 6, 66, BAND0, 16));

        assertEquals(5, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {2, 3, 4, 5, 6}, ids(batch));
        assertArrayEquals(new int[] {12, 13, 0, 15, 16}, tags(batch));
        assertArrayEquals(new int[] {BAND1, BAND2, BAND0, BAND1, BAND0}, priorities(batch));
        q.complete(batch, 5);
        assertTrue(q.isEmpty());
    }

    @Test
    void whenSlotsRunOutTheNewestRefusedExternalsAreDroppedAndTheRestKeepTheirTags()
    {
        // One band slot in all plus one headroom slot: 4 slots; three are taken by queued packets.
        final PfifoFast q = new PfifoFast(1, 256, 1);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 61, BAND0, 21));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 2, 62, BAND1, 22));
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 3, 63, BAND2, 23));
        assertEquals(1, q.freeSlots());

        final DescriptorBatch batch = new DescriptorBatch(4);
        assertTrue(batch.addExternal(writeExternal(4, 64), 64, BAND0, 24));
        assertTrue(batch.addExternal(writeExternal(5, 65), 65, BAND0, 25));
        assertTrue(batch.addExternal(writeExternal(6, 66), 66, BAND0, 26));
        q.complete(batch, 0);
        assertEquals(1, q.requeueLength());
        assertEquals(2, q.stats().drops());

        assertEquals(4, q.dequeueBulk(batch, 4, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {4, 1, 2, 3}, ids(batch));
        assertArrayEquals(new int[] {24, 21, 22, 23}, tags(batch));
        q.complete(batch, 4);
    }

    @Test
    void requeueCarriesTheTagAndARunKeepsItsOrder()
    {
        final PfifoFast q = new PfifoFast(16, 256, 8);
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 1, 61, BAND0, 31));
        fill(2, 62);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 62, BAND2, 32));
        fill(3, 63);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 63, BAND1, -33));
        fill(4, 64);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 64, BAND1));
        fill(5, 300);
        assertEquals(NET_XMIT_DROP, q.requeue(frame, 0, 300, BAND1, 35), "longer than a slot");

        final DescriptorBatch batch = new DescriptorBatch(8);
        assertEquals(4, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {2, 3, 4, 1}, ids(batch));
        assertArrayEquals(new int[] {32, -33, 0, 31}, tags(batch), "the tagless requeue is tag 0");
        assertArrayEquals(new int[] {BAND2, BAND1, BAND1, BAND0}, priorities(batch));

        // Refused again: complete's run, then requeue calls continuing it, all ahead of what was queued before.
        assertEquals(NET_XMIT_SUCCESS, enqueue(q, 6, 66, BAND0, 36));
        q.complete(batch, 2);
        fill(7, 67);
        assertEquals(NET_XMIT_SUCCESS, q.requeue(frame, 0, 67, BAND2, 37));
        assertEquals(4, q.dequeueBulk(batch, 8, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {4, 1, 7, 6}, ids(batch));
        assertArrayEquals(new int[] {0, 31, 37, 36}, tags(batch));
        q.complete(batch, 4);
        assertTrue(q.isEmpty());
    }

    @Test
    void aFullBatchRefusesATaggedExternal()
    {
        final DescriptorBatch batch = new DescriptorBatch(2);
        assertTrue(batch.addExternal(writeExternal(1, 60), 60, BAND1, 41));
        assertTrue(batch.addExternal(writeExternal(2, 60), 60, BAND1, 42));
        assertFalse(batch.addExternal(writeExternal(3, 60), 60, BAND1, 43));
        assertEquals(2, batch.size());
        assertArrayEquals(new int[] {41, 42}, tags(batch));
        assertEquals(DescriptorBatch.EXTERNAL, batch.slot(1));
        batch.clear();
        assertTrue(batch.addExternal(writeExternal(3, 60), 60, BAND1));
        assertEquals(0, batch.tag(0), "an entry's tag is rewritten, not left from before the clear");
    }

    private int enqueue(final Qdisc q, final int id, final int length, final int priority, final int tag)
    {
        fill(id, length);
        return q.enqueue(frame, 0, length, priority, tag);
    }

    /** A frame whose first four bytes are {@code id} and the rest {@code id} as bytes. */
    private void fill(final int id, final int length)
    {
        frame.setMemory(0, length, (byte)id);
        frame.putInt(0, id);
    }

    /** Writes frame {@code id} into native memory, 256 bytes apart per id; its address. */
    private long writeExternal(final int id, final int length)
    {
        final int offset = id * 256;
        external.setMemory(offset, length, (byte)id);
        external.putInt(offset, id);
        return external.addressOffset() + offset;
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

    private static int[] tags(final DescriptorBatch batch)
    {
        final int[] tags = new int[batch.size()];
        for (int i = 0; i < tags.length; i++)
        {
            tags[i] = batch.tag(i);
        }
        return tags;
    }

    private static int[] priorities(final DescriptorBatch batch)
    {
        final int[] priorities = new int[batch.size()];
        for (int i = 0; i < priorities.length; i++)
        {
            priorities[i] = batch.priority(i);
        }
        return priorities;
    }

    private static int[] lengths(final DescriptorBatch batch)
    {
        final int[] lengths = new int[batch.size()];
        for (int i = 0; i < lengths.length; i++)
        {
            lengths[i] = batch.length(i);
        }
        return lengths;
    }
}
