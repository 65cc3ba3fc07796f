package io.xmit.actors.internal.socket;

import io.xmit.actors.BusyPoll;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.internal.channel.Channel;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import java.util.function.BooleanSupplier;

/**
 * A socket's busy polling (kernel-semantics §9.2, the kernel's {@code sk_busy_loop} and {@code napi_busy_loop}), run
 * by its receiver on the socket's CPU when its ring is empty: it polls the channel of the RX queue its last datagram
 * came from ({@code sk_napi_id}) until a datagram is in its own ring, the busy-poll time is up, or other actors of its
 * CPU wait for the thread (the kernel's {@code need_resched}), then hands the channel back. In the last case it has
 * {@link #yielded}: as the kernel's loop gives the CPU up and restarts until its time is up, the socket's actor polls
 * again after the waiting actors and the loop goes on where it stopped, with its first deadline. Single-threaded, as
 * the socket's actor is; allocates nothing.
 * <p>
 * Two rules keep it from stranding a frame or holding a channel for good: a loop that threw keeps the channel
 * until {@link #recover} (the actor's restart, or the closer once the actor has stopped) abandons it, so its owners
 * take over; and a channel deferred with its interrupt off (prefer busy polling, §9.6) is kept only until this
 * socket's next poll, which either polls it again or ends the deferral.
 */
public final class BusyPoller
{
    /** No datagram received yet: no channel to poll (the kernel's {@code sk_napi_id} of 0). */
    private static final int NO_CHANNEL = -1;

    private final Channel[] channels;
    private final long nanos;
    private final int budget;
    private final boolean prefer;
    private final PacketPublication ownRing;
    private final PacketSubscription ownSubscription;
    private final BooleanSupplier needResched;
    private int napiId = NO_CHANNEL;
    /** The channel taken and not yet handed back: set only while a loop runs, or after it threw. */
    private Channel held;
    /** The channel handed back with its interrupt off, until the next poll. */
    private Channel deferred;
    /** The last loop found nothing: the duty cycle's re-poll before it sleeps does not loop again. */
    private boolean timedOut;
    /** The last loop gave the thread up with time left: the next poll goes on with it, from {@link #loopStart}. */
    private boolean yielded;
    private long loopStart;

    /**
     * @param channels the socket's port's channels, by RX queue.
     * @param settings enabled busy-poll settings.
     */
    public BusyPoller(final Channel[] channels, final BusyPoll settings, final PacketPublication ownRing,
        final PacketSubscription ownSubscription)
    {
        this(channels, settings, ownRing, ownSubscription, CpuThread::othersWaiting);
    }

    /**
     * @param needResched whether other work waits for the calling thread (the kernel's {@code need_resched}); the
     *                    CPU's run queue ({@link CpuThread#othersWaiting}), or a test's script.
     */
    public BusyPoller(final Channel[] channels, final BusyPoll settings, final PacketPublication ownRing,
        final PacketSubscription ownSubscription, final BooleanSupplier needResched)
    {
        if (!settings.enabled())
        {
            throw new IllegalArgumentException("busy polling is off: " + settings);
        }
        this.channels = channels;
        this.nanos = settings.time().toNanos();
        this.budget = settings.budget();
        this.prefer = settings.prefer();
        this.ownRing = ownRing;
        this.ownSubscription = ownSubscription;
        this.needResched = needResched;
    }

    /** {@code sk_mark_napi_id}: the channel of the RX queue a datagram came in on, for the next loop. */
    public void recordRxQueue(final int rxQueue)
    {
        if (rxQueue >= 0 && rxQueue < channels.length && channels[rxQueue].hasRx())
        {
            napiId = rxQueue;
        }
    }

    /**
     * One busy-poll loop, the socket's ring being empty: polls the channel until the ring has a datagram, the time is
     * up or other actors of the CPU wait, then hands it back (deferred, preferring busy polling, when it found one or
     * will come back). A loop that other actors cut short with time left {@link #yielded() yielded}: the socket's
     * next poll, after theirs, goes on with the same loop and the same deadline, as the kernel's loop gives the CPU up
     * ({@code cond_resched}) and restarts. No loop without a channel, or right after a loop that found nothing (the
     * duty cycle's last look before it sleeps).
     *
     * @return true if the socket's ring now has datagrams.
     */
    public boolean loop()
    {
        final boolean resuming = yielded;
        yielded = false;
        if (timedOut || NO_CHANNEL == napiId)
        {
            timedOut = false;
            endDeferral();
            return false;
        }
        final Channel channel = channels[napiId];
        if (null != deferred && channel != deferred)
        {
            endDeferral();
        }
        final long start = resuming ? loopStart : System.nanoTime();
        if (!resuming)
        {
            channel.countLoop();
        }
        boolean found;
        boolean timeLeft = true;
        do
        {
            if (null == held && channel.tryBusyPoll(prefer))
            {
                held = channel;
            }
            if (null != held)
            {
                channel.busyPoll(budget);
            }
            found = ringHasFrames();
            if (found)
            {
                break;
            }
            Thread.onSpinWait();
            timeLeft = System.nanoTime() - start < nanos;
        }
        while (timeLeft && !needResched.getAsBoolean());
        yielded = !found && timeLeft;
        loopStart = start;
        // A loop that never took the channel (its actor held it throughout) leaves a deferral of it as it was: only a
        // hand-back replaces it, and only endDeferral ends it, so the channel's actor is never left not arming for
        // a socket that has forgotten it.
        if (null != held)
        {
            final boolean defer = prefer && (found || yielded);
            channel.handBack(budget, defer);
            held = null;
            deferred = defer ? channel : null;
        }
        timedOut = !found && !yielded;
        return found;
    }

    /**
     * Whether the last loop gave the thread up to other actors of its CPU with busy-poll time left: the socket's
     * actor polls again after them (its duty cycle counts it as work), and that poll goes on with the loop.
     */
    public boolean yielded()
    {
        return yielded;
    }

    /**
     * The socket's poll found datagrams without looping: a deferred channel gets its interrupt back (§9.6), and a loop
     * that yielded is over.
     */
    public void endDeferral()
    {
        yielded = false;
        if (null != deferred)
        {
            final Channel channel = deferred;
            deferred = null;
            channel.endDeferral();
        }
    }

    /**
     * After a failure in a loop (the socket's restart), or once the socket's actor has stopped (its close, or the
     * pipeline's stop): a channel still held is abandoned to its owners and a deferred one given its interrupt back.
     */
    public void recover()
    {
        if (null != held)
        {
            final Channel channel = held;
            held = null;
            channel.abandon();
        }
        endDeferral();
        timedOut = false;
        yielded = false;
    }

    private boolean ringHasFrames()
    {
        return ownRing.position() > ownSubscription.position();
    }
}
