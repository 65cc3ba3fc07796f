package io.xmit.pipeline.qdisc;

import io.xmit.pipeline.AllocationMeter;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The enqueue → bulk dequeue → complete cycle, requeues and the bypass path included, allocates nothing. */
class QdiscAllocationTest
{
    private static final int CYCLES = 1_000_000;

    private final PfifoFast qdisc = new PfifoFast(1000, 2048, 256);
    private final DescriptorBatch batch = new DescriptorBatch(64);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));

    @Test
    void enqueueBulkDequeueCompleteAllocatesNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, CYCLES / 2, CYCLES);

        assertEquals(0, m.allocatedBytes(), "bytes allocated over " + CYCLES + " cycles");
        assertTrue(m.result() > 0);
        assertTrue(qdisc.stats().requeues() > 0);
        assertTrue(qdisc.stats().packets() > CYCLES);
    }

    private long run(final int cycles)
    {
        long checksum = 0;
        for (int i = 0; i < cycles; i++)
        {
            for (int p = 0; p < 4; p++)
            {
                final int length = 64 + ((i + p) & 511);
                frame.putInt(0, i);
                qdisc.enqueue(frame, 0, length, i + p);
            }
            if ((i & 7) == 0)
            {
                batch.addExternal(ring.addressOffset(), 128, i);
            }
            checksum += qdisc.dequeueBulk(batch, 16, 3000);
            final int accepted = (i & 3) == 0 ? batch.size() / 2 : batch.size();
            qdisc.complete(batch, accepted);
            if ((i & 1023) == 0)
            {
                qdisc.requeue(frame, 0, 100, 1);
            }
        }
        return checksum;
    }
}
