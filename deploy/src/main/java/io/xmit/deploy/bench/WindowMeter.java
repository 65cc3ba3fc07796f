package io.xmit.deploy.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Measures a window of steady-state traffic from the outside: the delivered-packet counter and the allocation
 * counters of the pipeline's threads, read before and after, so the variant's own threads do no bookkeeping.
 */
final class WindowMeter
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private WindowMeter()
    {
    }

    /**
     * @param delivered packets that reached the driver so far, readable from any thread.
     * @param threadIds the threads whose allocations count as the pipeline's.
     * @param nanos     how long to wait.
     */
    static TxVariant.Result measure(final LongSupplier delivered, final long[] threadIds, final long nanos)
    {
        final long allocatedBefore = allocatedBytes(threadIds);
        final long packetsBefore = delivered.getAsLong();
        final long start = System.nanoTime();
        final long deadline = start + nanos;
        long now = start;
        while (now < deadline)
        {
            LockSupport.parkNanos(deadline - now);
            now = System.nanoTime();
        }
        final long packetsAfter = delivered.getAsLong();
        final long elapsed = System.nanoTime() - start;
        final long allocatedAfter = allocatedBytes(threadIds);
        return new TxVariant.Result(packetsAfter - packetsBefore, elapsed, allocatedAfter - allocatedBefore);
    }

    /** The sum over live threads; a thread that has ended reports -1 and is left out. */
    static long allocatedBytes(final long[] threadIds)
    {
        long total = 0;
        for (final long bytes : THREADS.getThreadAllocatedBytes(threadIds))
        {
            if (bytes > 0)
            {
                total += bytes;
            }
        }
        return total;
    }
}
