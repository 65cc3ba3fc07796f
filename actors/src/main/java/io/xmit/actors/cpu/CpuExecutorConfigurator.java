package io.xmit.actors.cpu;

import akka.dispatch.DispatcherPrerequisites;
import akka.dispatch.ExecutorServiceConfigurator;
import akka.dispatch.ExecutorServiceFactory;
import com.typesafe.config.Config;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The executor of an xmit CPU dispatcher: one {@link CpuThread}, whose CPU index and core come from the dispatcher's
 * configuration ({@code xmit-cpu}, {@code xmit-core}). Akka creates it by class name from the dispatcher's
 * {@code executor} setting.
 */
public final class CpuExecutorConfigurator extends ExecutorServiceConfigurator
{
    /** The most actors one CPU runs. */
    public static final int MAX_ACTORS = 1 << 16;

    private final int cpu;
    private final int core;

    public CpuExecutorConfigurator(final Config config, final DispatcherPrerequisites prerequisites)
    {
        super(config, prerequisites);
        cpu = config.getInt("xmit-cpu");
        core = config.getInt("xmit-core");
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(final String id, final ThreadFactory threadFactory)
    {
        // The run queue holds every mailbox of the CPU at once, since a mailbox is scheduled at most once at a time.
        return () ->
        {
            final CpuRunQueue runQueue = new CpuRunQueue(MAX_ACTORS);
            return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, runQueue,
                task -> new CpuThread(task, id, cpu, core, runQueue));
        };
    }
}
