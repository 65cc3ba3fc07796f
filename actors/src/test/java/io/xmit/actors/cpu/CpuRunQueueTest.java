package io.xmit.actors.cpu;

import io.xmit.pipeline.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuRunQueueTest
{
    @Test
    @Timeout(60)
    void aTakerThatSleepsBetweenBurstsMissesNoTask() throws Exception
    {
        // Two producers hand over tasks in small bursts with pauses, so the taker parks and wakes over and over:
        // a lost wake-up would leave it asleep with tasks queued and the test would time out.
        final CpuRunQueue queue = new CpuRunQueue(64);
        final int perProducer = 200_000;
        final long[] ran = new long[1];
        final Runnable task = () -> ran[0]++;
        final List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < 2; p++)
        {
            producers.add(Thread.ofPlatform().start(() ->
            {
                for (int i = 0; i < perProducer; i++)
                {
                    while (!queue.offer(task))
                    {
                        Thread.onSpinWait();
                    }
                    if (i % 1000 == 999)
                    {
                        LockSupport.parkNanos(20_000);
                    }
                }
            }));
        }
        for (int i = 0; i < 2 * perProducer; i++)
        {
            queue.take().run();
        }
        for (final Thread producer : producers)
        {
            producer.join();
        }
        assertEquals(2L * perProducer, ran[0]);
        assertNull(queue.poll(1, TimeUnit.MILLISECONDS), "nothing left over");
    }

    @Test
    void offeringAndTakingAllocateNothing()
    {
        final CpuRunQueue queue = new CpuRunQueue(1024);
        final Runnable task = () -> { };
        final AllocationMeter.Measurement measured = AllocationMeter.measure(operations ->
        {
            long taken = 0;
            for (int i = 0; i < operations; i++)
            {
                queue.offer(task);
                taken += null == queue.poll() ? 0 : 1;
            }
            return taken;
        }, 100_000, 1_000_000);
        assertEquals(1_000_000, measured.result());
        assertEquals(0, measured.allocatedBytes());
    }

    @Test
    void aFullQueueRefusesAndDrainsInOrder()
    {
        final CpuRunQueue queue = new CpuRunQueue(2);
        final Runnable a = () -> { };
        final Runnable b = () -> { };
        assertTrue(queue.offer(a));
        assertTrue(queue.offer(b));
        assertFalse(queue.offer(() -> { }));
        assertEquals(0, queue.remainingCapacity());
        assertFalse(queue.remove(a), "a scheduled task stays scheduled");
        final List<Runnable> drained = new ArrayList<>();
        assertEquals(2, queue.drainTo(drained));
        assertSame(a, drained.get(0));
        assertSame(b, drained.get(1));
        assertEquals(0, queue.size());
    }
}
