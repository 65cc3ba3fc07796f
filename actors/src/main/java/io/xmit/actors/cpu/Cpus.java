package io.xmit.actors.cpu;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.dispatch.DispatcherConfigurator;
import akka.dispatch.Dispatchers;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

import java.util.Map;

/**
 * Registers the dispatchers {@code xmit.cpu-0 … xmit.cpu-(K−1)} with an actor system at run time, so that a
 * pipeline can be embedded in an application's existing {@link ActorSystem} without touching its configuration. If
 * the system's configuration already defines {@code xmit.cpu-i}, that definition is used as it is.
 */
public final class Cpus
{
    /** The dispatcher id of CPU 0; CPU i is {@code xmit.cpu-i}. */
    public static final String DISPATCHER_PREFIX = "xmit.cpu-";

    private Cpus()
    {
    }

    public static String dispatcherId(final int cpu)
    {
        return DISPATCHER_PREFIX + cpu;
    }

    /**
     * Makes CPUs 0..count−1 available in {@code system}.
     *
     * @param cores      the core CPU i is pinned to, or null (or a negative entry) for no pinning.
     * @param throughput the dispatcher's {@code throughput}: messages one actor handles before the thread moves on
     *                   (stack.md: 5–10 where several actors share a CPU).
     * @return the selectors to spawn actors on each CPU.
     */
    public static DispatcherSelector[] register(
        final ActorSystem<?> system, final int count, final int[] cores, final int throughput)
    {
        if (count < 1)
        {
            throw new IllegalArgumentException("cpus must be at least 1, was " + count);
        }
        if (throughput < 1)
        {
            throw new IllegalArgumentException("dispatcher throughput must be at least 1, was " + throughput);
        }
        final Dispatchers dispatchers = system.classicSystem().dispatchers();
        final DispatcherSelector[] selectors = new DispatcherSelector[count];
        for (int cpu = 0; cpu < count; cpu++)
        {
            final String id = dispatcherId(cpu);
            if (!system.settings().config().hasPath(id))
            {
                final int core = null == cores || cpu >= cores.length ? -1 : cores[cpu];
                final Config config = dispatchers.config(id, ConfigFactory.parseMap(Map.of(
                    "type", "Dispatcher",
                    "executor", CpuExecutorConfigurator.class.getName(),
                    "throughput", throughput,
                    "xmit-cpu", cpu,
                    "xmit-core", core,
                    "shutdown-timeout", "1s")));
                dispatchers.registerConfigurator(id, new DispatcherConfigurator(config, dispatchers.prerequisites()));
            }
            selectors[cpu] = DispatcherSelector.fromConfig(id);
        }
        return selectors;
    }
}
