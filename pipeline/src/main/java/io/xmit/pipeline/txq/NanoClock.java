package io.xmit.pipeline.txq;

/**
 * A monotonic clock in nanoseconds, the stand-in for the kernel's {@code jiffies}. Injected wherever a rule reads
 * the time, so tests can step it by hand.
 */
@FunctionalInterface
public interface NanoClock
{
    NanoClock SYSTEM = System::nanoTime;

    long nanoTime();
}
