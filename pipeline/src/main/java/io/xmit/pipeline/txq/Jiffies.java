package io.xmit.pipeline.txq;

/**
 * The kernel's {@code jiffies} for xmit: a coarse clock that moves only when {@link #tick()} is called, every
 * {@link #TICK_NANOS} by the pipeline (HZ = 250). A rule that reads the time on every packet, such as the cached TX
 * queue's age (kernel-semantics §1.6), then costs one load instead of a call to the system clock.
 */
public final class Jiffies implements NanoClock
{
    /** How often the pipeline ticks: 4 ms, one jiffy at HZ = 250. */
    public static final long TICK_NANOS = 4_000_000L;

    private volatile long now = System.nanoTime();

    /** Advances the clock to the system clock's time; called by one ticker. */
    public void tick()
    {
        now = System.nanoTime();
    }

    /** The time of the last tick: at most one tick behind the system clock while the ticker runs. */
    @Override
    public long nanoTime()
    {
        return now;
    }
}
