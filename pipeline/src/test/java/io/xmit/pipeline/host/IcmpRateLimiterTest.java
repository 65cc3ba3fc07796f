package io.xmit.pipeline.host;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The global ICMP token bucket with Linux's defaults: 1000 messages a second, bursts of 50. */
class IcmpRateLimiterTest
{
    private static final long MILLI = 1_000_000L;
    private static final long START = 123_456_789_000L;

    private final IcmpRateLimiter limiter = new IcmpRateLimiter();

    @Test
    void allowsABurstOf50AtOnceThenSuppressesAndCounts()
    {
        for (int i = 0; i < 50; i++)
        {
            assertTrue(limiter.tryAcquire(START), "message " + i);
        }
        for (int i = 0; i < 10; i++)
        {
            assertFalse(limiter.tryAcquire(START));
        }

        assertEquals(50, limiter.allowed());
        assertEquals(10, limiter.suppressed());
        assertEquals(0, limiter.tokens(START));
    }

    @Test
    void refillsOneTokenPerMillisecond()
    {
        drain(START);

        assertFalse(limiter.tryAcquire(START + MILLI - 1));
        assertTrue(limiter.tryAcquire(START + MILLI));
        assertFalse(limiter.tryAcquire(START + MILLI));
        assertEquals(2, limiter.tokens(START + 4 * MILLI - 1), "2.999 ms of credit");
        assertEquals(3, limiter.tokens(START + 4 * MILLI));
    }

    @Test
    void sustainsExactly1000MessagesASecondUnderOverload()
    {
        drain(START);
        int sent = 0;
        for (long t = START + 100_000L; t <= START + 1000 * MILLI; t += 100_000L)
        {
            for (int i = 0; i < 3; i++)
            {
                sent += limiter.tryAcquire(t) ? 1 : 0;
            }
        }

        assertEquals(1000, sent);
    }

    @Test
    void anIdleBucketFillsOnlyToTheBurstEvenAfterYears()
    {
        drain(START);

        assertEquals(50, limiter.tokens(START + 3L * 365 * 24 * 3600 * 1_000_000_000L));
        assertEquals(50, limiter.tokens(Long.MAX_VALUE));
    }

    @Test
    void aClockThatStandsStillOrStepsBackAddsNothing()
    {
        drain(START);

        assertEquals(0, limiter.tokens(START - 10 * MILLI));
        assertEquals(0, limiter.tokens(START));
    }

    @Test
    void honoursOtherRatesAndBursts()
    {
        final IcmpRateLimiter slow = new IcmpRateLimiter(3, 2);
        assertTrue(slow.tryAcquire(0));
        assertTrue(slow.tryAcquire(0));
        assertFalse(slow.tryAcquire(333_333_333L));
        assertTrue(slow.tryAcquire(333_333_334L));

        assertThrows(IllegalArgumentException.class, () -> new IcmpRateLimiter(0, 50));
        assertThrows(IllegalArgumentException.class, () -> new IcmpRateLimiter(1000, 0));
    }

    private void drain(final long now)
    {
        while (limiter.tryAcquire(now))
        {
            assertTrue(limiter.allowed() <= 50);
        }
    }
}
