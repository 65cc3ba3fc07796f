package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@code cluster} bench process's echoes did with the requests they polled: replied, gave up on a reply still
 * back-pressured after {@link BenchPipeline#REPLY_TRIES} tries, or had it refused for any other reason (not
 * connected, stopped). Each request an echo did not reply to is one the load never sees answered, lost under one of
 * these two reasons. Counted from any echo thread; nothing allocated.
 */
final class EchoCounts
{
    private final AtomicLong echoed = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    void echoed()
    {
        echoed.incrementAndGet();
    }

    void backPressured()
    {
        backPressured.incrementAndGet();
    }

    void refused()
    {
        refused.incrementAndGet();
    }

    /** Requests polled so far, whatever became of their replies. */
    long handled()
    {
        return echoed.get() + backPressured.get() + refused.get();
    }

    /** {@code BACK_PRESSURED REFUSED}: the replies given up on, by reason, as a child answers {@code refused}. */
    String lost()
    {
        return backPressured.get() + " " + refused.get();
    }
}
