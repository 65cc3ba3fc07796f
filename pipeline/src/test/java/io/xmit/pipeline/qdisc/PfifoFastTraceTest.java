package io.xmit.pipeline.qdisc;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.xmit.pipeline.qdisc.Qdisc.NET_XMIT_SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The trace id a packet carries through pfifo_fast beside its tag (xmit: from its ring frame header, so a traced
 * packet stays traced while it waits): enqueue to dequeue, a refused bypass descriptor requeued by {@code complete},
 * and a reused slot, which holds no stale id.
 */
class PfifoFastTraceTest
{
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer external = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));

    @Test
    void traceIdsSurviveTheBacklogAndARequeueAndNoSlotKeepsAStaleOne()
    {
        final PfifoFast q = new PfifoFast(8, 256, 4);
        final DescriptorBatch batch = new DescriptorBatch(4);
        assertEquals(NET_XMIT_SUCCESS, q.enqueue(frame, 0, 64, 0, 7, 0x1234_5678_9ABCL));
        assertEquals(NET_XMIT_SUCCESS, q.enqueue(frame, 0, 64, 0, 8, 0));
        assertEquals(2, q.dequeueBulk(batch, 4, Integer.MAX_VALUE));
        assertEquals(0x1234_5678_9ABCL, batch.trace(0));
        assertEquals(0, batch.trace(1));
        assertEquals(1, batch.tracedCount());
        q.complete(batch, 2);
        assertEquals(0, batch.tracedCount());

        // A bypass burst the driver refused: the external descriptor's id goes into the slot it is copied to.
        batch.addExternal(external.addressOffset(), 60, 0, 9, 42);
        q.complete(batch, 0);
        assertEquals(NET_XMIT_SUCCESS, q.enqueue(frame, 0, 64, 0, 10));
        assertEquals(2, q.dequeueBulk(batch, 4, Integer.MAX_VALUE));
        assertEquals(9, batch.tag(0));
        assertEquals(42, batch.trace(0));
        assertEquals(0, batch.trace(1), "an enqueue without an id, into a slot that once held one");
        q.complete(batch, 2);
    }
}
