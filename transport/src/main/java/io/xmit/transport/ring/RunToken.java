package io.xmit.transport.ring;

/**
 * The right to run one single-writer engine (a qdisc, or a channel's RX queue and completions), held by one runner at
 * a time: its actor, which owns it by default, or a thread that borrows it, such as a sender taking the qdisc's bypass
 * in its own context or a socket busy-polling its channel. It has the semantics of the kernel's
 * {@code qdisc_run_begin}/{@code qdisc_run_end} for a lockless qdisc and of a NAPI instance's {@code SCHED} bit: a
 * try-lock that never waits, and a MISSED mark so that work a loser brought is not stranded.
 * <pre>
 *   FREE ──tryAcquire()──▶ HELD ──a loser's tryAcquire()──▶ HELD_MISSED
 *    ▲                      │                                  │
 *    └──── release(): false ┘          release(): true ────────┘ (the holder must see that the engine runs again)
 * </pre>
 * A runner that loses {@link #tryAcquire()} marks the token MISSED and walks away, leaving its work to the holder;
 * the holder's {@link #release()} then answers true, and the holder makes sure the engine runs again, for example by
 * ringing its actor's doorbell (the kernel's {@code __netif_schedule} after {@code qdisc_run_end} found MISSED). A
 * loser tries once more after marking, so that a holder releasing at that moment, before it could see the mark, does
 * not leave the loser's work behind.
 * <p>
 * The acquiring CAS and the releasing swap order everything the engine wrote: whatever a holder wrote before its
 * release is seen by the next holder after its acquire, on whatever thread. An engine that moves between threads this
 * way stays single-writer.
 */
public final class RunToken extends PaddedState
{
    /** Nobody runs the engine. */
    public static final int FREE = 0;
    /** One runner holds the engine. */
    public static final int HELD = 1;
    /** One runner holds the engine, and another wanted to run it while it did. */
    public static final int HELD_MISSED = 2;

    /**
     * Takes the token if it is free. If not, marks it MISSED (the holder will see to it that the engine runs again)
     * and tries once more, in case the holder released before it could see the mark.
     *
     * @return true if the caller now holds the token and must {@link #release()} it.
     */
    public boolean tryAcquire()
    {
        if (STATE.compareAndSet(this, FREE, HELD))
        {
            return true;
        }
        STATE.compareAndSet(this, HELD, HELD_MISSED);
        return STATE.compareAndSet(this, FREE, HELD);
    }

    /**
     * Takes the token if it is free, and leaves no mark if it is not: for a runner that will come back by itself (a
     * poll of its own that it repeats), so that the holder is not asked to hand over for nothing.
     *
     * @return true if the caller now holds the token and must {@link #release()} it.
     */
    public boolean tryAcquireQuietly()
    {
        return STATE.compareAndSet(this, FREE, HELD);
    }

    /**
     * Gives the token back.
     *
     * @return true if another runner wanted the engine while it was held: the caller must see to it that the engine
     * runs again (its work may be waiting).
     * @throws IllegalStateException if the token was not held.
     */
    public boolean release()
    {
        final int previous = (int)STATE.getAndSet(this, FREE);
        if (FREE == previous)
        {
            throw new IllegalStateException("run token released while free");
        }
        return HELD_MISSED == previous;
    }

    /** {@link #FREE}, {@link #HELD} or {@link #HELD_MISSED}; for tests and diagnostics. */
    public int state()
    {
        return (int)STATE.getVolatile(this);
    }

    @Override
    public String toString()
    {
        return "RunToken{" + switch (state())
        {
            case FREE -> "FREE";
            case HELD -> "HELD";
            case HELD_MISSED -> "HELD_MISSED";
            default -> "UNKNOWN";
        } + "}";
    }
}
