package io.xmit.actors.cpu;

import io.xmit.transport.cpu.CpuAffinity;

/**
 * The one thread of an xmit CPU. The CPU index is a final field of the thread rather than a thread-local, so "which
 * CPU am I on" is a type check and a field load on the send path.
 */
public final class CpuThread extends Thread
{
    /** {@link #currentCpu()} on a thread that is not an xmit CPU. */
    public static final int NO_CPU = -1;

    private final int cpu;
    private final int core;
    private final CpuRunQueue runQueue;
    private volatile CpuAffinity.Result pinning;

    CpuThread(final Runnable task, final String name, final int cpu, final int core, final CpuRunQueue runQueue)
    {
        super(task, name);
        this.cpu = cpu;
        this.core = core;
        this.runQueue = runQueue;
        setDaemon(true);
    }

    /** The xmit CPU the calling thread is, or {@link #NO_CPU} off the pipeline's CPUs. */
    public static int currentCpu()
    {
        return Thread.currentThread() instanceof CpuThread thread ? thread.cpu : NO_CPU;
    }

    /**
     * Whether other actors of the calling thread's CPU wait for it (the kernel's {@code need_resched}): a loop that
     * holds the thread, such as a socket's busy poll (kernel-semantics §9.2), ends then. False off the CPUs.
     */
    public static boolean othersWaiting()
    {
        return Thread.currentThread() instanceof CpuThread thread && !thread.runQueue.isEmpty();
    }

    public int cpu()
    {
        return cpu;
    }

    /** The core this thread asked to be pinned to, or -1 when unpinned. */
    public int core()
    {
        return core;
    }

    /** What pinning did, or null before the thread started or when it was not asked to pin. */
    public CpuAffinity.Result pinning()
    {
        return pinning;
    }

    @Override
    public void run()
    {
        if (core >= 0)
        {
            pinning = CpuAffinity.pinCurrentThread(core);
        }
        super.run();
    }
}
