package io.xmit.actors;

import java.time.Duration;

import static io.xmit.actors.config.ConfigKey.BUSY_POLL;
import static io.xmit.actors.config.ConfigKey.BUSY_POLL_BUDGET;

/**
 * Busy polling (kernel-semantics §9): a socket whose receive ring is empty polls the channel its traffic arrives on,
 * on its own CPU's thread, for up to {@link #time}, instead of waiting to be woken. Pipeline-wide in
 * {@link PipelineConfig#busyPoll()} ({@code xmit.busy-poll}, {@code busy-poll-budget}, {@code prefer-busy-poll}); per
 * socket in {@link SocketOptions#busyPoll(BusyPoll)}, as {@code SO_BUSY_POLL}, {@code SO_BUSY_POLL_BUDGET} and
 * {@code SO_PREFER_BUSY_POLL} set them.
 *
 * @param time   how long one busy-poll loop may last; {@link Duration#ZERO}: off (the kernel's {@code busy_read} and
 *               {@code SO_BUSY_POLL}, in µs there).
 * @param budget frames per poll of the channel's RX queue (the kernel's {@code BUSY_POLL_BUDGET}, 8 by default).
 * @param prefer keep the channel's interrupt off while the socket keeps polling ({@code SO_PREFER_BUSY_POLL}).
 */
public record BusyPoll(Duration time, int budget, boolean prefer)
{
    /** The kernel's {@code BUSY_POLL_BUDGET}. */
    public static final int DEFAULT_BUDGET = 8;
    /** No busy polling, the kernel's default ({@code busy_read = 0}). */
    public static final BusyPoll OFF = new BusyPoll(Duration.ZERO, DEFAULT_BUDGET, false);

    public BusyPoll
    {
        BUSY_POLL.check(time);
        BUSY_POLL_BUDGET.check(budget);
    }

    /** Busy polling for up to {@code time} a loop, with the kernel's budget, not preferred. */
    public static BusyPoll of(final Duration time)
    {
        return new BusyPoll(time, DEFAULT_BUDGET, false);
    }

    /** Whether a socket with these settings busy-polls at all. */
    public boolean enabled()
    {
        return !time.isZero();
    }

    /** The same, preferring busy polling or not ({@code SO_PREFER_BUSY_POLL}). */
    public BusyPoll preferred(final boolean preferBusyPoll)
    {
        return new BusyPoll(time, budget, preferBusyPoll);
    }
}
