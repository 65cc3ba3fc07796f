package io.xmit.pipeline.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The one bounded wait the tests share: checks a condition, sleeps 1 ms between checks, and FAILS the test (an
 * {@link AssertionError} from JUnit's {@code fail}) with a message naming what was awaited once the deadline passes.
 * It never falls through: when a method returns, what it waited for holds.
 *
 * <p>Every method has a default deadline, {@link #DEFAULT_TIMEOUT} (a healthy pipeline needs milliseconds), and an
 * overload taking a {@link Duration}. A wait that must not sleep (a tight spin, or one that pumps a pipeline between
 * checks) is not one of these and keeps its own loop.
 */
public final class Await
{
    /** The longest a wait takes unless told otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private Await()
    {
    }

    /** Waits until {@code condition} holds; on timeout fails naming {@code what} and {@code state}'s value then. */
    public static void until(final String what, final BooleanSupplier condition, final Supplier<?> state)
    {
        until(what, condition, state, DEFAULT_TIMEOUT);
    }

    /** As {@link #until(String, BooleanSupplier, Supplier)}, within {@code timeout}. */
    public static void until(
        final String what, final BooleanSupplier condition, final Supplier<?> state, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout + " waiting for " + what + "; state: " + state.get());
            }
            sleepBriefly(what);
        }
    }

    /**
     * Waits until {@code value} reaches {@code expected}, then requires it to be exactly {@code expected}: meant for
     * a counter that only grows, so it waits while the value is below, and fails at once if it is seen above (an
     * overshoot is a failure, not a pass) or when the deadline passes below it.
     *
     * @return the value, equal to {@code expected}.
     */
    public static long exactly(final String what, final long expected, final LongSupplier value)
    {
        return exactly(what, expected, value, DEFAULT_TIMEOUT);
    }

    /** As {@link #exactly(String, long, LongSupplier)}, within {@code timeout}. */
    public static long exactly(final String what, final long expected, final LongSupplier value, final Duration timeout)
    {
        final long seen = reach(what, expected, value, timeout, "exactly ");
        if (seen != expected)
        {
            fail(what + ": expected exactly " + expected + " but it went past, to " + seen);
        }
        return seen;
    }

    /**
     * Waits until {@code value} is at least {@code expected}; fails naming {@code what} and the last value when the
     * deadline passes below it.
     *
     * @return the value seen, at least {@code expected}.
     */
    public static long atLeast(final String what, final long expected, final LongSupplier value)
    {
        return atLeast(what, expected, value, DEFAULT_TIMEOUT);
    }

    /** As {@link #atLeast(String, long, LongSupplier)}, within {@code timeout}. */
    public static long atLeast(final String what, final long expected, final LongSupplier value, final Duration timeout)
    {
        return reach(what, expected, value, timeout, "at least ");
    }

    private static long reach(
        final String what, final long expected, final LongSupplier value, final Duration timeout, final String how)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long seen;
        while ((seen = value.getAsLong()) < expected)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout + " waiting for " + what + " to reach " + how + expected +
                    "; it is " + seen);
            }
            sleepBriefly(what);
        }
        return seen;
    }

    private static void sleepBriefly(final String what)
    {
        try
        {
            Thread.sleep(1);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what, ex);
        }
    }
}
