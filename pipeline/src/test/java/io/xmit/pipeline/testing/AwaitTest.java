package io.xmit.pipeline.testing;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AwaitTest
{
    private static final Duration SHORT = Duration.ofMillis(50);

    @Test
    void untilReturnsAtOnceWhenTheConditionAlreadyHolds()
    {
        final AtomicInteger checks = new AtomicInteger();
        final long start = System.nanoTime();
        Await.until("true", () -> checks.incrementAndGet() > 0, () -> "unused");
        assertEquals(1, checks.get());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(1).toNanos());
    }

    @Test
    void untilReturnsAsSoonAsTheConditionHolds()
    {
        final AtomicInteger checks = new AtomicInteger();
        Await.until("the third check", () -> checks.incrementAndGet() >= 3, () -> "unused");
        assertEquals(3, checks.get());
    }

    @Test
    void untilFailsNamingWhatWasAwaitedAndTheState()
    {
        final long start = System.nanoTime();
        final AssertionFailedError error = assertThrows(AssertionFailedError.class,
            () -> Await.until("the moon", () -> false, () -> "state 42", SHORT));
        assertEquals("timed out after PT0.05S waiting for the moon; state: state 42", error.getMessage());
        assertTrue(System.nanoTime() - start >= SHORT.toNanos());
    }

    @Test
    void exactlyReturnsWhenTheValueReachesExpected()
    {
        final AtomicLong value = new AtomicLong();
        assertEquals(3, Await.exactly("the counter", 3, value::incrementAndGet));
    }

    @Test
    void exactlyFailsOnTimeoutNamingTheLastValue()
    {
        final AssertionFailedError error = assertThrows(AssertionFailedError.class,
            () -> Await.exactly("completions", 5, () -> 4, SHORT));
        assertEquals("timed out after PT0.05S waiting for completions to reach exactly 5; it is 4", error.getMessage());
    }

    @Test
    void exactlyFailsAtOnceWhenTheValueGoesPast()
    {
        final long start = System.nanoTime();
        final AssertionFailedError error = assertThrows(AssertionFailedError.class,
            () -> Await.exactly("completions", 5, () -> 6));
        assertEquals("completions: expected exactly 5 but it went past, to 6", error.getMessage());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(1).toNanos());
    }

    @Test
    void atLeastAcceptsAValuePastExpected()
    {
        assertEquals(7, Await.atLeast("completions", 5, () -> 7));
    }

    @Test
    void atLeastFailsOnTimeoutNamingTheLastValue()
    {
        final AssertionFailedError error = assertThrows(AssertionFailedError.class,
            () -> Await.atLeast("restarts", 2, () -> 1, SHORT));
        assertEquals("timed out after PT0.05S waiting for restarts to reach at least 2; it is 1", error.getMessage());
    }
}
