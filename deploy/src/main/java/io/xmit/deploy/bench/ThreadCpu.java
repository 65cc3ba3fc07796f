package io.xmit.deploy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The CPU time a round's pipeline threads used, from {@link ThreadMXBean#getThreadCpuTime}, by role: each xmit CPU's
 * thread on its own (its sockets' handlers, RX queues, qdiscs and TX completions all run there), and the other
 * threads summed per role ({@link #ROLES}), each thread known by the name it is given. A share is CPU time over wall
 * time: 1.0 is one core kept busy.
 */
final class ThreadCpu
{
    /** The ActorSystem's dispatchers and scheduler: timers, the pipeline's clock, control calls. */
    static final String AKKA = "akka";
    /** The embedded Aeron media driver (one shared agent) and the Aeron client's threads. */
    static final String AERON = "aeron";
    /** The emulated device's interrupt thread. */
    static final String DEVICE = "device";
    /** The roles apart from the xmit CPUs, in the order of the figures. */
    static final List<String> ROLES = List.of(AKKA, AERON, DEVICE);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * The CPU time of the threads at one moment.
     *
     * @param cpus  the xmit CPUs' threads' CPU time, by CPU.
     * @param roles per role, thread id → CPU time (a thread started since has none).
     */
    record Sample(long[] cpus, Map<String, Map<Long, Long>> roles)
    {
    }

    /**
     * Shares of one window.
     *
     * @param cpus  each xmit CPU thread's share.
     * @param roles per role, its threads' shares summed.
     * @param nanos the CPU time of all of them.
     */
    record Usage(double[] cpus, Map<String, Double> roles, long nanos)
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

        /** Every role's share and the xmit CPUs' summed. */
        double total()
        {
            return xmit() + roles.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    private ThreadCpu()
    {
    }

    /**
     * Samples {@code cpuThreads} and the live threads of each role: {@code systemName-…} as Akka names an
     * ActorSystem's threads, the media driver's agent ({@code … [sender,receiver,driver-conductor]}) and
     * {@code aeron-…}, and {@code xmit-irq-…}.
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
        final Map<String, Predicate<String>> members = Map.of(
            AKKA, name -> name.startsWith(systemName + "-"),
            AERON, name -> name.endsWith("driver-conductor]") || name.startsWith("aeron-"),
            DEVICE, name -> name.startsWith("xmit-irq-"));
        final Map<String, Map<Long, Long>> roles = new LinkedHashMap<>();
        ROLES.forEach(role -> roles.put(role, new HashMap<>()));
        for (final ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds()))
        {
            if (null == info)
            {
                continue;
            }
            for (final String role : ROLES)
            {
                if (members.get(role).test(info.getThreadName()))
                {
                    roles.get(role).put(info.getThreadId(), Math.max(0, THREADS.getThreadCpuTime(info.getThreadId())));
                }
            }
        }
        return new Sample(cpus, roles);
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
        final Map<String, Double> roles = new LinkedHashMap<>();
        for (final String role : ROLES)
        {
            long used = 0;
            final Map<Long, Long> before = start.roles().get(role);
            for (final Map.Entry<Long, Long> thread : end.roles().get(role).entrySet())
            {
                used += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
            }
            roles.put(role, (double)used / nanos);
            total += used;
        }
        return new Usage(cpus, roles, total);
    }
}
