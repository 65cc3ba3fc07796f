package io.xmit.actors.internal.channel;

import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RunToken;

import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Channel q of a port: RX queue q and the completions of TX queue q, as a NIC's combined channel is one NAPI instance
 * (kernel-semantics §9.1). One runner at a time runs it, whoever holds its {@link RunToken}: its owners, the RX queue's
 * actor and the TX queue's completion actor (they share CPU {@code q mod cpus}, so between them the token is never
 * contended), or a socket busy-polling it on its own thread (§9.2).
 * <p>
 * <b>Owners</b> ({@link #pollRx}, {@link #pollCompletions}) take the token with {@link RunToken#tryAcquire()}: one
 * that loses has marked it MISSED and does nothing this turn; whoever then releases it rings both owners' doorbells
 * (§9.5), so an owner that went idle meanwhile polls again. A poll that throws keeps the token until its actor's
 * restart runs {@link #recoverRx} or {@link #recoverCompletions}, so nobody runs the engine between a failure and its
 * recovery.
 * <p>
 * <b>A busy poller</b> takes the token quietly ({@link #tryBusyPoll}): if an owner holds it, that owner is running
 * and delivers what the poller waits for. It polls with its budget ({@link #busyPoll}), then {@link #handBack}s the
 * channel: with its interrupt armed and one last look (§9.4), or, preferring busy polling, with the interrupt left off
 * for its next loop ({@link #endDeferral} takes that back). A busy poller that failed or stopped while holding the
 * token {@link #abandon}s it.
 * <p>
 * Completions-only channels (a TX queue with no RX queue of its number) have no RX side and are never busy-polled.
 */
public final class Channel
{
    private static final Logger LOG = LoggerFactory.getLogger(Channel.class);

    private final int index;
    private final RunToken token = new RunToken();
    private final NicDriver driver;
    private final RxQueueEngine rx;
    private final RingDoorbell rxDoorbell;
    private final TxQueueEngine completions;
    private final RingDoorbell completionsDoorbell;
    private final AtomicCounter loops;
    private final AtomicCounter polls;
    private final AtomicCounter packets;
    private final AtomicCounter handBacks;
    private final AtomicCounter completionsRestarts;
    private final AtomicCounter senderReaps;
    /** Whether a sender's failed reap has been logged: the first is, the rest are counted only. */
    private volatile boolean reapFailureLogged;
    /**
     * A socket preferring busy polling handed the channel back with its interrupt off and comes back to it (§9.6):
     * the RX queue's actor does not arm the interrupt when it goes idle meanwhile. Written by the socket's thread,
     * read by the actor's.
     */
    private volatile boolean deferred;
    /**
     * The RX queue's actor wants the token: set before it tries, cleared once it holds it. A busy poller that cannot
     * cover a MISSED mark itself rings only the owners that want it (§9.4, §9.5). Written by the actor's thread.
     */
    private volatile boolean rxWants;
    /** The completions' owner (their actor, or a sender reaping) wants the token, as {@link #rxWants}. */
    private volatile boolean completionsWanted;
    /** The RX queue's actor holds the token (a failure left it so); its thread only. */
    private boolean rxHolds;
    /** The completion actor holds the token (a failure left it so); its thread only. */
    private boolean completionsHolds;

    /**
     * @param rx                  RX queue {@code index}'s engine and its actor's doorbell, or nulls for a channel of
     *                            completions only.
     * @param completions         TX queue {@code index}'s completion engine and its actor's doorbell, or nulls.
     * @param completionsRestarts the TX queue stage's restart counter, which a sender's failed reap counts in too; null
     *                            with no completions.
     */
    public Channel(final int port, final int index, final NicDriver driver, final RxQueueEngine rx,
        final RingDoorbell rxDoorbell, final TxQueueEngine completions, final RingDoorbell completionsDoorbell,
        final AtomicCounter completionsRestarts, final CountersFile counters)
    {
        if ((null == rx) != (null == rxDoorbell) || (null == completions) != (null == completionsDoorbell))
        {
            throw new IllegalArgumentException("channel " + port + "/" + index + ": an engine needs its doorbell");
        }
        this.index = index;
        this.driver = driver;
        this.rx = rx;
        this.rxDoorbell = rxDoorbell;
        this.completions = completions;
        this.completionsDoorbell = completionsDoorbell;
        this.completionsRestarts = completionsRestarts;
        senderReaps = null == completions ? null :
            counters.allocate(CounterType.TXQ_SENDER_REAPS, CounterScope.txq(port, index));
        if (null != rx)
        {
            final CounterScope scope = CounterScope.rxq(port, index);
            loops = counters.allocate(CounterType.BUSY_POLL_LOOPS, scope);
            polls = counters.allocate(CounterType.BUSY_POLL_POLLS, scope);
            packets = counters.allocate(CounterType.BUSY_POLL_PACKETS, scope);
            handBacks = counters.allocate(CounterType.BUSY_POLL_HANDBACKS, scope);
        }
        else
        {
            loops = null;
            polls = null;
            packets = null;
            handBacks = null;
        }
    }

    /** The channel's run token, for tests and diagnostics. */
    public RunToken token()
    {
        return token;
    }

    /** Whether the channel has an RX queue, so a socket can busy-poll it. */
    public boolean hasRx()
    {
        return null != rx;
    }

    /**
     * The RX queue actor's poll (§9.5): the engine's own poll under the token, or nothing if another runner holds it
     * (it was marked MISSED, so this actor's doorbell is rung when the token comes back).
     */
    public int pollRx()
    {
        rxWants = true;
        if (!token.tryAcquire())
        {
            return 0;
        }
        rxWants = false;
        rxHolds = true;
        final int work = rx.poll(!deferred);
        rxHolds = false;
        release();
        return work;
    }

    /** The completion actor's poll (§9.5), as {@link #pollRx} is the RX queue actor's. */
    public int pollCompletions()
    {
        completionsWanted = true;
        if (!token.tryAcquire())
        {
            return 0;
        }
        completionsWanted = false;
        completionsHolds = true;
        final int work = completions.poll();
        completionsHolds = false;
        release();
        return work;
    }

    /**
     * A sender's reap after a burst it ran in its own context (kernel-semantics §7.7, virtio_net's
     * {@code free_old_xmit} in {@code start_xmit}): on the sender's thread, under the token taken as an owner takes it,
     * the completions are polled as the completion actor polls them (BQL, the sockets released in completion order, a
     * stopped queue woken and its qdisc rung, the books). The completion actor is rung only for what the sender could
     * not do: the token is held (it is marked MISSED, and the holder's release rings both owners, §9.5), or packets are
     * still in the driver, which completes them later. A reap that fails is recovered at once, counted as a restart of
     * the TX queue stage (the first logged) and left to the actor; the sender's send stands.
     */
    public void reapCompletions()
    {
        completionsWanted = true;
        if (!token.tryAcquire())
        {
            return;
        }
        completionsWanted = false;
        senderReaps.incrementRelease();
        boolean settled = false;
        try
        {
            completions.poll();
            settled = completions.settled();
        }
        catch (final RuntimeException | Error ex)
        {
            recoverFailedReap(ex);
        }
        finally
        {
            release();
            if (!settled)
            {
                completionsDoorbell.ring();
            }
        }
    }

    /** A failure in a sender's reap, under the token: counted, the first logged, and the engine recovered at once. */
    private void recoverFailedReap(final Throwable ex)
    {
        completionsRestarts.increment();
        if (!reapFailureLogged)
        {
            reapFailureLogged = true;
            LOG.warn("{}: reaping TX completions in a sender's context failed; recovered, the completion actor " +
                "takes over (later failures are counted in stage_restarts only)", this, ex);
        }
        completions.recover();
    }

    /** The RX queue actor's restart: if its failed poll left it holding the token, the engine recovers, then lets go. */
    public void recoverRx()
    {
        if (rxHolds)
        {
            rx.recover();
            rxHolds = false;
            release();
        }
    }

    /** The completion actor's restart, as {@link #recoverRx} is the RX queue actor's. */
    public void recoverCompletions()
    {
        if (completionsHolds)
        {
            completions.recover();
            completionsHolds = false;
            release();
        }
    }

    /**
     * A busy poller's take (§9.2, the kernel's {@code napi_busy_loop} taking {@code SCHED}): quietly, since an owner
     * that holds the token is running and delivers what the poller waits for. Preferring busy polling, the RX
     * queue's interrupt goes off while the poller holds the channel (§9.6).
     *
     * @return true if the caller now holds the channel and must {@link #handBack} (or {@link #abandon}) it.
     */
    public boolean tryBusyPoll(final boolean prefer)
    {
        if (!token.tryAcquireQuietly())
        {
            return false;
        }
        if (prefer)
        {
            driver.armRx(index, false);
        }
        return true;
    }

    /** One turn of the loop's start, counted once per loop. */
    public void countLoop()
    {
        loops.incrementRelease();
    }

    /**
     * One busy poll, by the token's holder: up to {@code budget} frames of the RX queue, delivered to whichever
     * sockets they are for, and the TX queue's completions.
     *
     * @return the frames the RX queue handled.
     */
    public int busyPoll(final int budget)
    {
        polls.incrementRelease();
        final int found = rx.poll(budget, false);
        if (found > 0)
        {
            packets.getAndAddRelease(found);
        }
        if (null != completions)
        {
            completions.poll();
        }
        return found;
    }

    /**
     * The busy poller gives the channel back (§9.4, the kernel's {@code busy_poll_stop}). Unless {@code defer}, the
     * queue is polled once more, with the RX queue's interrupt armed first if its actor is idle, so a frame that
     * landed after the poller's last look either is in that poll or raises the interrupt; an actor that is scheduled
     * (a Poll queued or running, spinning through empty polls included) polls again and arms the interrupt itself
     * when it goes idle, as a NAPI instance the softirq holds keeps its interrupt off: armed under it, the next frame
     * would wake the interrupt thread for a queue that is being polled (an actor that goes idle meanwhile finds the
     * token held by this poll, marks it MISSED and is rung at the release, §9.5). If frames are still waiting (a
     * burst not finished, or a full budget), the RX queue's actor carries on; so it does if the last look only
     * finished a burst a budget left: that look never read the shim, so it armed nothing, and a frame that came after
     * the burst would wait with the interrupt off (§9.6 took it off) and the actor idle. With {@code defer} (prefer busy
     * polling, §9.6) the interrupt stays off and nothing more is polled: the poller comes back at once, or calls
     * {@link #endDeferral}.
     * If an owner (or a sender reaping) was turned away meanwhile, the poller does not ring it: as the kernel's
     * {@code busy_poll_stop} clears MISSED and polls once more itself, it takes the channel back quietly, looks at
     * the RX queue and the completions once more, and rings only the side that still has work (frames past the
     * budget, packets still in the driver). Ringing both owners at every such release woke the owners of a channel
     * on another CPU for nothing, transaction after transaction, and they spun there, contending for the token, on
     * the cores the busy poller needs (docs/benchmarks.md, log, 2026-12-02 09:22). A mark it cannot cover (an owner
     * took the channel first, or marked it again during that look) rings the owners that want the token.
     */
    public void handBack(final int budget, final boolean defer)
    {
        handBacks.incrementRelease();
        deferred = defer;
        boolean more = false;
        boolean armed = false;
        if (!defer)
        {
            // A look that only finishes a burst a budget left never reads the shim, so it cannot arm first.
            final boolean burstLeft = rx.inBurst();
            armed = RingDoorbell.IDLE == rxDoorbell.state();
            final int found = rx.poll(budget, armed);
            if (found > 0)
            {
                packets.getAndAddRelease(found);
            }
            more = burstLeft || found == budget || rx.inBurst();
        }
        if (token.release())
        {
            more = lookOnceMoreForTheTurnedAway(budget, !defer && !armed) || more;
        }
        if (more)
        {
            rxDoorbell.ring();
        }
    }

    /**
     * §9.4: an owner was turned away while the busy poller held the channel; the poller's own last look covers what
     * it came for. Rings the completions' owner if packets are still in the driver, and whoever marked the token
     * again or took it first (their work is not covered).
     *
     * @param mayArm the hand-back does not defer and has not armed the interrupt yet.
     * @return true if RX frames are still waiting, for the caller to ring the RX queue's actor.
     */
    private boolean lookOnceMoreForTheTurnedAway(final int budget, final boolean mayArm)
    {
        if (!token.tryAcquireQuietly())
        {
            ringTheWanting();
            return false;
        }
        final boolean burstLeft = rx.inBurst();
        // An actor turned away goes idle without arming (it arms only under the token): the look arms for it, unless
        // the interrupt is off for a deferral or the hand-back's first look armed it already.
        final int found = rx.poll(budget, mayArm && RingDoorbell.IDLE == rxDoorbell.state());
        if (found > 0)
        {
            packets.getAndAddRelease(found);
        }
        final boolean unsettled = null != completions && completionsUnsettledAfterPoll();
        if (token.release())
        {
            ringTheWanting();
        }
        if (unsettled)
        {
            completionsDoorbell.ring();
        }
        return burstLeft || found == budget || rx.inBurst();
    }

    private boolean completionsUnsettledAfterPoll()
    {
        completions.poll();
        return !completions.settled();
    }

    /** Rings the owners that want the token (each sets its mark before it tries). */
    private void ringTheWanting()
    {
        if (rxWants)
        {
            rxDoorbell.ring();
        }
        if (null != completionsDoorbell && completionsWanted)
        {
            completionsDoorbell.ring();
        }
    }

    /**
     * Ends a deferral (§9.6): the RX queue's actor is rung, and it takes the queue back as after any wake-up, going
     * idle through its duty cycle (interrupt armed, then one more look). Any thread.
     */
    public void endDeferral()
    {
        deferred = false;
        rxDoorbell.ring();
    }

    /**
     * A busy poller that failed, or was stopped, while holding the channel (its thread's work is the caller's now):
     * the step the failure interrupted is finished or undone, the token given back and both owners rung, so they go
     * on where the poller stopped and arm the interrupt when they go idle. Nothing is stranded.
     */
    public void abandon()
    {
        deferred = false;
        rx.recover();
        if (null != completions)
        {
            completions.recover();
        }
        token.release();
        ringOwners();
    }

    /** Gives the token back; a MISSED mark means an owner was turned away: both are rung (§9.5). */
    private void release()
    {
        if (token.release())
        {
            ringOwners();
        }
    }

    private void ringOwners()
    {
        if (null != rxDoorbell)
        {
            rxDoorbell.ring();
        }
        if (null != completionsDoorbell)
        {
            completionsDoorbell.ring();
        }
    }

    @Override
    public String toString()
    {
        return "Channel{" + index + ", " + token + "}";
    }
}
