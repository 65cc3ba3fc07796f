package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.QueueStats;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The naive pipeline delivers exactly what its senders send, across three actors and the shim, and leaves no
 * thread behind. Counts only: nothing here depends on timing except the bounded waits.
 */
class NaivePipelineTest
{
    private static final long PACKETS_PER_QUEUE = 100_003;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(8);

    @Test
    void deliversExactlyTheSentPacketsToTheDriverAndCountsEachCompletionOnce()
    {
        final NaivePipeline pipeline = new NaivePipeline(PACKETS_PER_QUEUE);
        try (pipeline)
        {
            pipeline.start();
            awaitDelivered(pipeline, NaivePipeline.CPUS * PACKETS_PER_QUEUE);
        }
        for (int queue = 0; queue < NaivePipeline.CPUS; queue++)
        {
            final QueueStats stats = pipeline.driverStats(queue);
            assertEquals(PACKETS_PER_QUEUE, stats.txPackets(), "driver-accepted on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE * BenchFrames.FRAME_LENGTH, stats.txBytes(), "bytes on queue " + queue);
            assertEquals(0, stats.txErrors(), "driver errors on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE, pipeline.delivered(queue), "completions counted on queue " + queue);
            assertEquals(0, pipeline.drops(queue), "qdisc drops on queue " + queue);
        }
    }

    @Test
    void closeTerminatesTheActorSystemAndItsThreads() throws InterruptedException
    {
        final NaivePipeline pipeline = new NaivePipeline();
        pipeline.start();
        pipeline.runFor(TimeUnit.MILLISECONDS.toNanos(100));
        pipeline.close();

        assertTrue(pipeline.isTerminated());
        assertTrue(pipeline.delivered() > 0);
        final String prefix = pipeline.systemName() + "-";
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (liveThreads(prefix) > 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertEquals(0, liveThreads(prefix), "threads named " + prefix + "*");
    }

    @Test
    void measuresAWindowOfDeliveredPacketsAndTheirAllocations()
    {
        try (NaivePipeline pipeline = new NaivePipeline())
        {
            pipeline.start();
            final TxVariant.Result result = pipeline.runFor(TimeUnit.MILLISECONDS.toNanos(200));
            assertTrue(result.packets() > 0, result.toString());
            assertTrue(result.nanos() >= TimeUnit.MILLISECONDS.toNanos(200), result.toString());
            // A byte[] of 64 bytes alone is 80 bytes on the heap: a per-packet design cannot go below it.
            assertTrue(result.bytesPerPacket() >= 80, result.toString());
        }
    }

    /** Waits until {@code variant} delivered {@code packets}, exactly ({@link Await#exactly}), within 8 s. */
    static void awaitDelivered(final TxVariant variant, final long packets)
    {
        Await.exactly(variant.name() + " delivered", packets, variant::delivered, Duration.ofNanos(WAIT_NANOS));
    }

    private static long liveThreads(final String prefix)
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(prefix) && thread.isAlive())
            .count();
    }
}
