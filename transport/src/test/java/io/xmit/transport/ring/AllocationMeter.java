package io.xmit.transport.ring;

import java.lang.management.ManagementFactory;

/**
 * Measures what a workload allocates on the calling thread once it is warm, with
 * {@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}. A copy of the pipeline tests' meter:
 * modules do not share test classes.
 * <p>
 * After the warm-up it measures up to {@link #ROUNDS} rounds and stops at the first that allocates nothing. A
 * real per-operation allocation shows in every round (at least one byte per operation, so a million bytes per
 * round); a one-off event that the JVM may place in any round (a late deoptimisation and recompilation, a
 * constant resolved on first use) shows in one. A result of 0 therefore means the steady state allocates nothing.
 */
public final class AllocationMeter
{
    public static final int ROUNDS = 3;

    /** A workload: runs {@code operations} operations and returns a result the test checks (so none is dead code). */
    @FunctionalInterface
    public interface Workload
    {
        long run(int operations);
    }

    /**
     * @param allocatedBytes what the last measured round allocated (0 if any round allocated nothing).
     * @param result         the last measured round's result.
     * @param rounds         how many rounds were measured.
     */
    public record Measurement(long allocatedBytes, long result, int rounds)
    {
    }

    private AllocationMeter()
    {
    }

    public static Measurement measure(final Workload workload, final int warmUpOperations, final int operations)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        if (!threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled())
        {
            // Unsupported counting reports -1 before and after, which would pass vacuously.
            throw new IllegalStateException("this JVM does not count allocated bytes per thread");
        }

        workload.run(warmUpOperations);
        long bytes = -1;
        long result = 0;
        int rounds = 0;
        while (rounds < ROUNDS && bytes != 0)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            result = workload.run(operations);
            bytes = threads.getCurrentThreadAllocatedBytes() - before;
            rounds++;
        }
        return new Measurement(bytes, result, rounds);
    }
}
