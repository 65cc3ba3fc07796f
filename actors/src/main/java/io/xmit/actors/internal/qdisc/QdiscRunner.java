package io.xmit.actors.internal.qdisc;

import io.xmit.actors.QueueBooks;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RunToken;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;

/**
 * Who runs the qdisc of one TX queue. Its {@link QdiscEngine} has one writer at a time: the holder of its
 * {@link RunToken}, the kernel's {@code qdisc_run_begin}/{@code qdisc_run_end} (kernel-semantics §5.2). The qdisc's
 * actor is the default holder: each of its turns runs under the token. A sender that has just committed its packet
 * and finds the qdisc idle (its doorbell IDLE: the actor is not running it) and the TX queue awake may win the token
 * and run one turn itself, on its own thread: the NOLOCK bypass in the sender's context, {@code __dev_xmit_skb} →
 * {@code sch_direct_xmit} (§4.4).
 * <p>
 * With the same conditions, and the qdisc empty (no backlog, nothing in its band rings), a sender takes the direct
 * path before it claims ring space at all (§4.4a): {@link #tryDirect} wins the token, the sender writes its frame
 * into the engine's staging area and {@link #directCommit} stages it, sending the staged frames in one
 * {@code tx_burst} at the end of the sender's run, and releases the token. No ring, no claim, no doorbell.
 * <p>
 * After a burst in the sender's context (either form) the sender reaps the TX queue's completions itself, through the
 * queue's channel, and wakes the completion actor only for what it could not do (§7.7): the engine knows it runs for
 * a sender ({@link QdiscEngine#senderContext}) while a sender holds the token.
 * <p>
 * Nothing is stranded (§5.5): a runner that loses the token marks it MISSED and walks away, and whoever releases it
 * with the mark rings the qdisc's doorbell, so the actor runs again if it was idle (if it is running, its duty cycle
 * polls again anyway). A sender that ran a turn also rings when work may remain: the quota was used up, or a backlog
 * is left for the actor to send.
 * <p>
 * Failures: an actor's turn that throws keeps the token through the supervisor's {@link #recover()}, which releases
 * it after the engine has recovered. A sender's turn that throws recovers at once under the token, counts a restart of
 * the qdisc stage (as the supervisor counts one), logs the first such failure, releases and rings: its packet was
 * committed to the ring before the turn, so the send's result stands.
 * <p>
 * Everything else that reads or writes the engine borrows the token ({@link #books}, {@link #backlog},
 * {@link #dropLeftovers}): it spins with {@link RunToken#tryAcquireQuietly()} until the holder is done. The holder is
 * the actor (whose mailbox these messages share, so it is never inside a turn then) or a sender, whose turn is bounded
 * by the quota, so the spin is short.
 */
public final class QdiscRunner implements StageEngine
{
    private static final Logger LOG = LoggerFactory.getLogger(QdiscRunner.class);
    private static final int DONE = 0;
    private static final int MORE = 1;
    private static final int KEPT = 2;
    /** {@link #tryDirect}: the direct path is not open; the frame goes into its ring. */
    public static final int NO_DIRECT = -1;

    private final QdiscEngine engine;
    private final PacketPublication[] bands;
    private final RunToken token = new RunToken();
    private final RingDoorbell doorbell;
    private final TxQueueState state;
    private final int quota;
    private final boolean senderBypass;
    private final AtomicCounter restarts;
    private final AtomicCounter senderRuns;
    private final String name;
    /**
     * A failed turn kept the token for {@link #recover()}: the actor's (on its thread), or a sender's whose own
     * recovery failed too. Read by the actor, or by a stop's thread once the actor has terminated.
     */
    private volatile boolean keptByFailedTurn;
    /** Whether a sender's failed turn has been logged: the first is, the rest are counted only. */
    private volatile boolean senderFailureLogged;

    /**
     * @param engine       the qdisc, run only through this runner from now on.
     * @param bands        the producers' side of the engine's band rings, band 0 first: where the direct path looks
     *                     whether a ring holds a frame the qdisc has not taken yet.
     * @param doorbell     the doorbell of the qdisc's actor, which its band rings share.
     * @param state        the TX queue's state: a stopped or frozen queue is no bypass for a sender.
     * @param quota        packets per turn ({@code qdisc.quota}): a sender's turn that used it up leaves the rest to
     *                     the actor.
     * @param senderBypass whether senders may run the qdisc in their own context ({@code qdisc.sender-bypass}).
     * @param restarts     the qdisc stage's restart counter, which a failed sender's turn counts in too.
     * @param senderRuns   turns run by senders ({@code qdisc_sender_runs}).
     */
    public QdiscRunner(final QdiscEngine engine, final PacketPublication[] bands, final RingDoorbell doorbell,
        final TxQueueState state, final int quota, final boolean senderBypass, final AtomicCounter restarts,
        final AtomicCounter senderRuns)
    {
        this.engine = engine;
        this.bands = bands.clone();
        this.doorbell = doorbell;
        this.state = state;
        this.quota = quota;
        this.senderBypass = senderBypass;
        this.restarts = restarts;
        this.senderRuns = senderRuns;
        this.name = "qdisc " + engine.port() + "/" + engine.txq();
    }

    /**
     * The actor's turn: one engine turn under the token; held by a sender, nothing (the token is marked MISSED, and
     * the sender's release rings the doorbell).
     */
    @Override
    public int poll()
    {
        if (!token.tryAcquire())
        {
            if (keptByFailedTurn)
            {
                // A sender's turn failed and so did its recovery: the token stays with the qdisc, and the supervisor's
                // restart recovers it.
                throw new IllegalStateException(name + ": a turn in a sender's context failed and its recovery too; " +
                    "the actor's restart recovers the qdisc");
            }
            return 0;
        }
        final int work;
        try
        {
            work = engine.poll();
        }
        catch (final RuntimeException | Error ex)
        {
            keptByFailedTurn = true;
            throw ex;
        }
        release();
        return work;
    }

    /**
     * After a failure (the supervisor's restart) or at a stop, once the actor no longer runs: recovers the engine
     * under the token: the one a failed turn kept, or else the token taken now. A recovery that throws keeps it too,
     * for the next one.
     */
    @Override
    public void recover()
    {
        while (!keptByFailedTurn && !token.tryAcquireQuietly())
        {
            Thread.onSpinWait();
        }
        keptByFailedTurn = true;
        engine.recover();
        keptByFailedTurn = false;
        release();
    }

    @Override
    public void armCrash(final int points)
    {
        engine.armCrash(points);
    }

    /**
     * The sender's side of {@code __dev_xmit_skb} (§4.4): commits the sender's frame, claimed in one of this qdisc's
     * band rings, and sees that it is sent. With the sender bypass on, a qdisc whose actor is idle (its doorbell
     * IDLE), a TX queue neither stopped nor frozen, and the token won, the sender runs one turn here (ring → driver,
     * bulk and BQL as the actor would); otherwise it rings the doorbell as any producer does. A lost token is marked
     * MISSED, and its holder rings.
     *
     * @return true if this sender ran a turn.
     */
    public boolean commit(final PacketClaim claim)
    {
        if (!senderBypass)
        {
            claim.commit();
            return false;
        }
        claim.commitWithoutRing();
        return afterCommit();
    }

    /**
     * The same for frames already committed into this qdisc's rings without ringing (a run of sends with more to
     * follow, the kernel's xmit_more, ends here): the sender runs a turn for all of them, or rings.
     *
     * @return true if this sender ran a turn.
     */
    public boolean afterCommit()
    {
        if (!senderBypass)
        {
            doorbell.ring();
            return false;
        }
        // The commit is a release store: the fence keeps the doorbell's read from overtaking it, as ring() does.
        VarHandle.fullFence();
        if (RingDoorbell.IDLE != doorbell.state() || state.frozenOrStopped())
        {
            doorbell.ring();
            return false;
        }
        if (!token.tryAcquire())
        {
            return false;
        }
        engine.senderContext(true);
        senderRuns.incrementRelease();
        endSenderTurn(senderTurn());
        return true;
    }

    /**
     * One turn on the sender's thread, under the token; a failure is recovered from at once.
     *
     * @return {@link #MORE} if work may remain for the actor (the quota was used up, or a backlog is left: the queue
     * stopped, or a failure put a batch back), {@link #DONE} if not, {@link #KEPT} if the recovery failed too and
     * the token is kept for the actor's supervisor.
     */
    private int senderTurn()
    {
        try
        {
            return engine.poll() >= quota || engine.backlog() > 0 ? MORE : DONE;
        }
        catch (final RuntimeException | Error ex)
        {
            return recoverSenderFailure(ex);
        }
    }

    /**
     * The direct path's admission (§4.4a): the qdisc's actor idle (its doorbell IDLE), the TX queue neither stopped
     * nor frozen, the token won, and under it no backlog, every band ring read to its end (not read on a streak) and
     * room in the driver. A token held by another runner is not marked: the sender's frame then goes into its ring, and
     * that commit wakes the qdisc.
     *
     * @param streak the sender's socket staged its latest packet on this qdisc and has put none into a ring since:
     *               no frame of that socket is in a band ring, so the rings' positions are not read (per-socket
     *               order needs nothing more; another socket's frame committed to a ring meanwhile may be overtaken,
     *               as a sender on another CPU may overtake it in the kernel).
     * @return the offset in {@link #staging()} to write the frame at, with the token now held by the caller, who
     * must end with {@link #directCommit} or {@link #directAbort()}; or {@link #NO_DIRECT}, the token not held.
     */
    public int tryDirect(final boolean streak)
    {
        if (!senderBypass || RingDoorbell.IDLE != doorbell.state() || state.frozenOrStopped() ||
            !token.tryAcquireQuietly())
        {
            return NO_DIRECT;
        }
        engine.senderContext(true);
        int offset = NO_DIRECT;
        int outcome = DONE;
        try
        {
            offset = engine.directOffset(streak ? null : bands);
        }
        catch (final RuntimeException | Error ex)
        {
            outcome = recoverSenderFailure(ex);
        }
        if (NO_DIRECT == offset)
        {
            endSenderTurn(outcome);
        }
        return offset;
    }

    /** Where a sender that won {@link #tryDirect} writes its frame; only while it holds the token. */
    public MutableDirectBuffer staging()
    {
        return engine.staging();
    }

    /**
     * Stages the frame the sender wrote at {@code offset} (counted in {@code qdisc_direct}) and, at the end of a run
     * ({@code more} false) or when the staging is full, sends the staged frames in one {@code tx_burst}; then
     * releases the token, ringing the actor if the burst left a backlog. The packet is the qdisc's from here, whatever
     * happens next: a failure is recovered from as a failed sender's turn is, and the send's result stands.
     */
    public void directCommit(final int offset, final int length, final int priority, final int socketId,
        final long traceId, final boolean more)
    {
        int outcome = DONE;
        try
        {
            outcome = engine.directCommit(offset, length, priority, socketId, traceId, more) ? MORE : DONE;
        }
        catch (final RuntimeException | Error ex)
        {
            outcome = recoverSenderFailure(ex);
        }
        endSenderTurn(outcome);
    }

    /** The sender that won {@link #tryDirect} staged nothing (its frame could not be written): releases the token. */
    public void directAbort()
    {
        endSenderTurn(DONE);
    }

    /** Releases the token after a sender's turn or direct send (a failed recovery keeps it); rings if work is left. */
    private void endSenderTurn(final int outcome)
    {
        engine.senderContext(false);
        if (KEPT == outcome)
        {
            doorbell.ring();
        }
        else if (!release() && MORE == outcome)
        {
            doorbell.ring();
        }
    }

    /**
     * A failure on a sender's thread under the token: counted as a restart of the qdisc stage, the first one logged,
     * and recovered from at once.
     *
     * @return {@link #MORE}: the actor takes over what is left; {@link #KEPT} if the recovery failed too.
     */
    private int recoverSenderFailure(final Throwable ex)
    {
        restarts.increment();
        if (!senderFailureLogged)
        {
            senderFailureLogged = true;
            LOG.warn("{}: a turn in a sender's context failed; recovered, the actor takes over (later failures " +
                "are counted in stage_restarts only)", name, ex);
        }
        try
        {
            engine.recover();
            return MORE;
        }
        catch (final RuntimeException | Error again)
        {
            LOG.error("{}: recovering from a failed turn in a sender's context failed; the token stays with " +
                "the qdisc for its actor's supervisor", name, again);
            keptByFailedTurn = true;
            return KEPT;
        }
    }

    /** The TX queue's books, read between turns under the token. */
    public QueueBooks books(final TxQueueEngine txq)
    {
        acquireQuietly();
        try
        {
            return engine.books(txq);
        }
        finally
        {
            release();
        }
    }

    /** Packets in the backlog, read under the token. */
    public int backlog()
    {
        acquireQuietly();
        try
        {
            return engine.backlog();
        }
        finally
        {
            release();
        }
    }

    /** A graceful stop's last step ({@link QdiscEngine#dropLeftovers()}), under the token. */
    public int dropLeftovers()
    {
        acquireQuietly();
        try
        {
            return engine.dropLeftovers();
        }
        finally
        {
            release();
        }
    }

    /** The run token; for tests and diagnostics. */
    public RunToken token()
    {
        return token;
    }

    /** Senders may run this qdisc in their own context. */
    public boolean senderBypass()
    {
        return senderBypass;
    }

    /**
     * Waits for the token without marking it: a borrower comes back by itself.
     *
     * @throws IllegalStateException if a failed turn keeps the token: it waits for {@link #recover()}, not for a
     *                               turn to end (on the actor's thread, this failure brings the supervisor's restart).
     */
    private void acquireQuietly()
    {
        while (!token.tryAcquireQuietly())
        {
            if (keptByFailedTurn)
            {
                throw new IllegalStateException(name + ": a failed turn keeps the run token until the qdisc recovers");
            }
            Thread.onSpinWait();
        }
    }

    /** Releases the token; if another runner wanted the qdisc meanwhile, rings so that the actor runs again. */
    private boolean release()
    {
        if (token.release())
        {
            doorbell.ring();
            return true;
        }
        return false;
    }
}
