package io.xmit.pipeline.txq;

/** A clock the test steps by hand. */
final class ManualClock implements NanoClock
{
    private long now;

    ManualClock(final long start)
    {
        now = start;
    }

    @Override
    public long nanoTime()
    {
        return now;
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
