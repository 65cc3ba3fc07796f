package io.xmit.deploy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time a round's threads used, from {@link ThreadMXBean#getThreadCpuTime}, by role: each xmit CPU's thread
 * (its sockets' handlers, RX queues, qdiscs and TX completions all run there) on its own, and the ActorSystem's other
 * threads (Akka's dispatchers and scheduler: timers, the pipeline's clock, control calls) summed. A share is CPU time
 * over wall time: 1.0 is one core kept busy.
 */
final class ThreadCpu
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * The CPU time of every thread at one moment, by thread id.
     *
     * @param cpus   the xmit CPUs' threads' CPU time, by CPU.
     * @param others the other threads of the ActorSystem, by thread id (a thread started since has none).
     */
    record Sample(long[] cpus, Map<Long, Long> others)
    {
    }

    /**
     * Shares of one window.
     *
     * @param cpus   each xmit CPU thread's share.
     * @param others the ActorSystem's other threads' shares, summed.
     * @param nanos  the CPU time of all of them.
     */
    record Usage(double[] cpus, double others, long nanos)
    {
        /** The xmit CPU threads' shares summed. */
        double xmit()
        {
            double sum = 0;
            for (final double cpu : cpus)
            {
                sum += cpu;
            }
            return sum;
        }

        /** The busiest xmit CPU thread's share: 1.0 means that CPU was the bottleneck. */
        double busiest()
        {
            double most = 0;
            for (final double cpu : cpus)
            {
                most = Math.max(most, cpu);
            }
            return most;
        }
    }

    private ThreadCpu()
    {
    }

    /**
     * Samples {@code cpuThreads} and the live threads whose names start with {@code systemName-}, as Akka names an
     * ActorSystem's threads.
     *
     * @throws IllegalStateException if the JVM does not measure threads' CPU time.
     */
    static Sample sample(final Thread[] cpuThreads, final String systemName)
    {
        if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled())
        {
            throw new IllegalStateException("this JVM does not measure threads' CPU time (ThreadMXBean)");
        }
        final long[] cpus = new long[cpuThreads.length];
        for (int cpu = 0; cpu < cpuThreads.length; cpu++)
        {
            cpus[cpu] = Math.max(0, THREADS.getThreadCpuTime(cpuThreads[cpu].threadId()));
        }
        final Map<Long, Long> others = new HashMap<>();
        final String prefix = systemName + "-";
        for (final ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds()))
        {
            if (null != info && info.getThreadName().startsWith(prefix))
            {
                others.put(info.getThreadId(), Math.max(0, THREADS.getThreadCpuTime(info.getThreadId())));
            }
        }
        return new Sample(cpus, others);
    }

    /** What the threads used between {@code start} and {@code end}, {@code nanos} of wall time apart. */
    static Usage between(final Sample start, final Sample end, final long nanos)
    {
        final double[] cpus = new double[end.cpus().length];
        long total = 0;
        for (int cpu = 0; cpu < cpus.length; cpu++)
        {
            final long used = end.cpus()[cpu] - start.cpus()[cpu];
            cpus[cpu] = (double)used / nanos;
            total += used;
        }
        long others = 0;
        for (final Map.Entry<Long, Long> thread : end.others().entrySet())
        {
            others += Math.max(0, thread.getValue() - start.others().getOrDefault(thread.getKey(), 0L));
        }
        return new Usage(cpus, (double)others / nanos, total + others);
    }
}
