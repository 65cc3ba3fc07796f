package io.xmit.deploy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;

/**
 * The threads of a {@code cluster} bench process that carry its data path, and the bytes they allocated: each thread
 * that runs a data-path callback (a client's or a service's handler, the pacer, an echo loop) enters itself once, and
 * the process adds the threads it knows by name (the Aeron media driver's, the Akka dispatcher that runs the data
 * plane's actors). Entering allocates nothing: a thread already in is found by a scan of a fixed array.
 */
final class DataPathThreads
{
    /** More than any bench process has: two xmit CPUs, a pacer, a receiver, a few dispatcher threads. */
    static final int CAPACITY = 32;

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private final AtomicLongArray ids = new AtomicLongArray(CAPACITY);
    private final Predicate<String> named;

    /** @param named the names of the data path's threads that no callback enters (e.g. the media driver's). */
    DataPathThreads(final Predicate<String> named)
    {
        this.named = named;
    }

    /** The embedded media driver's agent (one shared thread) and the Aeron client's threads, as Aeron names them. */
    static boolean aeron(final String name)
    {
        return name.endsWith("driver-conductor]") || name.startsWith("aeron-");
    }

    /** Notes the calling thread as one of the data path's. */
    void enter()
    {
        final long id = Thread.currentThread().threadId();
        for (int i = 0; i < CAPACITY; i++)
        {
            final long at = ids.get(i);
            if (at == id)
            {
                return;
            }
            if (0 == at && (ids.compareAndSet(i, 0, id) || ids.get(i) == id))
            {
                return;
            }
        }
        throw new IllegalStateException("more than " + CAPACITY + " data-path threads");
    }

    /**
     * Bytes allocated so far by each data-path thread alive, by thread id.
     *
     * @throws IllegalStateException if this JVM does not count threads' allocations.
     */
    Map<Long, Long> allocated()
    {
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled())
        {
            throw new IllegalStateException("this JVM does not count the bytes threads allocate (ThreadMXBean)");
        }
        final Map<Long, Long> bytes = new HashMap<>();
        for (int i = 0; i < CAPACITY && 0 != ids.get(i); i++)
        {
            bytes.put(ids.get(i), THREADS.getThreadAllocatedBytes(ids.get(i)));
        }
        for (final ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds()))
        {
            if (null != info && named.test(info.getThreadName()))
            {
                bytes.put(info.getThreadId(), THREADS.getThreadAllocatedBytes(info.getThreadId()));
            }
        }
        bytes.values().removeIf(value -> value < 0);
        return bytes;
    }

    /** What the threads allocated between two of {@link #allocated()}; a thread started since counts from 0. */
    static long between(final Map<Long, Long> before, final Map<Long, Long> after)
    {
        long sum = 0;
        for (final Map.Entry<Long, Long> thread : after.entrySet())
        {
            sum += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
        }
        return sum;
    }
}
