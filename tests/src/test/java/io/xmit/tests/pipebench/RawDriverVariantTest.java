package io.xmit.tests.pipebench;

import java.util.concurrent.TimeUnit;

import io.xmit.transport.nic.QueueStats;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver-only ceiling sends exactly its packet budget, in bursts with a short last one, and stops its threads. */
class RawDriverVariantTest
{
    // Not a multiple of the burst, so the last burst of each queue is a short one.
    private static final long PACKETS_PER_QUEUE = 1_000_003;

    @Test
    void deliversExactlyItsBudgetOnEachQueue()
    {
        final RawDriverVariant variant = new RawDriverVariant(PACKETS_PER_QUEUE);
        try (variant)
        {
            variant.start();
            NaivePipelineTest.awaitDelivered(variant, RawDriverVariant.THREADS * PACKETS_PER_QUEUE);
        }
        assertFalse(variant.isRunning());
        for (int queue = 0; queue < RawDriverVariant.THREADS; queue++)
        {
            final QueueStats stats = variant.driverStats(queue);
            assertEquals(PACKETS_PER_QUEUE, stats.txPackets(), "driver-accepted on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE * BenchFrames.FRAME_LENGTH, stats.txBytes(), "bytes on queue " + queue);
            assertEquals(0, stats.txErrors(), "driver errors on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE, variant.delivered(queue), "completions reclaimed on queue " + queue);
        }
    }

    @Test
    void closeStopsTheSendingThreads()
    {
        final RawDriverVariant variant = new RawDriverVariant();
        variant.start();
        final PipelineVariant.Result result = variant.runFor(TimeUnit.MILLISECONDS.toNanos(100));
        variant.close();

        assertTrue(result.packets() > 0, result.toString());
        assertFalse(variant.isRunning());
    }
}
