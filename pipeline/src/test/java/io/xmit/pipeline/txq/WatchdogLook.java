package io.xmit.pipeline.txq;

/** What the TX watchdog reads of a queue (kernel-semantics §8.2): whether it is stopped, and for how long. */
final class WatchdogLook
{
    /** A queue that is not stopped (DRV_XOFF or STACK_XOFF). */
    static final long RUNNING = -1;

    private WatchdogLook()
    {
    }

    /** How long the queue has been stopped as the watchdog reckons it (now − transStart), or {@link #RUNNING}. */
    static long stoppedFor(final TxQueueState state)
    {
        return state.stopped() ? state.clock().nanoTime() - state.transStart() : RUNNING;
    }
}
