package io.xmit.pipeline.txq;

/**
 * A clock the test steps by hand. It can also run the other side of a race at the moment the code under test reads
 * the time ({@link #onNextRead}): where a rule stamps the time between two steps, that read is the window between
 * them.
 */
final class ManualClock implements NanoClock
{
    private long now;
    private Runnable race;

    ManualClock(final long start)
    {
        now = start;
    }

    @Override
    public long nanoTime()
    {
        final Runnable due = race;
        race = null;
        if (null != due)
        {
            due.run();
        }
        return now;
    }

    /** Runs {@code race} inside the next read of the time, once. */
    void onNextRead(final Runnable race)
    {
        this.race = race;
    }

    void set(final long now)
    {
        this.now = now;
    }

    void advance(final long nanos)
    {
        now += nanos;
    }
}
