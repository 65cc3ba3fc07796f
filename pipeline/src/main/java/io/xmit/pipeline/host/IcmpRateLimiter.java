package io.xmit.pipeline.host;

/**
 * The global ICMP rate limit, a token bucket like Linux's icmp_global_allow: {@code messagesPerSecond} tokens
 * a second (net.ipv4.icmp_msgs_per_sec, 1000) up to {@code burst} (net.ipv4.icmp_msgs_burst, 50); each message
 * takes one, and a message with none left is suppressed and counted. The bucket starts full. Linux also
 * limits per destination (icmp_ratelimit, 1 s per peer for the error types in icmp_ratemask); this class does
 * not. Time is an argument in nanoseconds, so tests are exact. Not thread-safe.
 */
public final class IcmpRateLimiter
{
    public static final int DEFAULT_MESSAGES_PER_SECOND = 1000;
    public static final int DEFAULT_BURST = 50;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long messagesPerSecond;
    /** Credit is kept in message-nanoseconds per second, so that refill is exact integer arithmetic. */
    private final long creditPerMessage = NANOS_PER_SECOND;
    private final long maxCredit;
    private final long maxElapsed;

    private long credit;
    private long lastRefill;
    private boolean started;
    private long allowed;
    private long suppressed;

    /** Linux's defaults: 1000 messages a second, bursts of 50. */
    public IcmpRateLimiter()
    {
        this(DEFAULT_MESSAGES_PER_SECOND, DEFAULT_BURST);
    }

    public IcmpRateLimiter(final int messagesPerSecond, final int burst)
    {
        if (messagesPerSecond <= 0 || burst <= 0)
        {
            throw new IllegalArgumentException(
                "messages per second " + messagesPerSecond + " and burst " + burst + " must be positive");
        }
        this.messagesPerSecond = messagesPerSecond;
        maxCredit = burst * creditPerMessage;
        // Beyond this the bucket is full whatever the rate, and elapsed * rate could overflow.
        maxElapsed = maxCredit / messagesPerSecond + 1;
        credit = maxCredit;
    }

    /**
     * Takes a token for one message at {@code now}.
     *
     * @return true to send it, false when it is suppressed (and counted).
     */
    public boolean tryAcquire(final long now)
    {
        refill(now);
        if (credit >= creditPerMessage)
        {
            credit -= creditPerMessage;
            allowed++;
            return true;
        }
        suppressed++;
        return false;
    }

    /** Whole tokens available at {@code now}. */
    public int tokens(final long now)
    {
        refill(now);
        return (int)(credit / creditPerMessage);
    }

    /** Messages allowed so far. */
    public long allowed()
    {
        return allowed;
    }

    /** Messages suppressed so far (what newer kernels count as OutRateLimitGlobal in /proc/net/snmp). */
    public long suppressed()
    {
        return suppressed;
    }

    private void refill(final long now)
    {
        if (!started)
        {
            started = true;
            lastRefill = now;
            return;
        }
        final long elapsed = now - lastRefill;
        if (elapsed <= 0)
        {
            return;
        }
        lastRefill = now;
        credit = Math.min(maxCredit, credit + Math.min(elapsed, maxElapsed) * messagesPerSecond);
    }
}
