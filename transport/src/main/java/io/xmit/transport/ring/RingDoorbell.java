package io.xmit.transport.ring;

import java.lang.invoke.VarHandle;

/**
 * The consumer state word of one ring consumer and the producers' half of the wake-up protocol (stack.md, "Actors
 * draining Aeron rings"): the MISSED protocol of the lockless qdisc, so that a frame is never stranded in a ring
 * while its consumer sleeps.
 * <pre>
 *   RUNNING ──spin budget spent──▶ IDLE ──a producer's CAS; it sends the one wake──▶ SCHEDULED
 *     ▲  ▲                          │                                                   │
 *     │  └─re-poll found work (CAS)─┘                                                   │
 *     └──────────────────────────── the wake's Poll arrives ────────────────────────────┘
 * </pre>
 * Producers call {@link #ring()} after every commit and whenever a claim returns {@code ADMIN_ACTION} (the failed
 * claim may have written the end-of-term padding the consumer is waiting behind); {@link PacketPublication} and
 * {@link PacketClaim} do that themselves. The consumer's half is {@link RingDutyCycle}.
 * <p>
 * The wake callback sends the consumer one {@code Poll} (for an actor: one message to itself); it is also how the
 * consumer schedules its own next {@code Poll}, so at most one is ever in flight. It runs on whichever thread
 * rings or polls, so it must be cheap and must not block.
 * <p>
 * A new doorbell is {@link #IDLE}: the first ring wakes the consumer. An owner that starts (or restarts) a consumer
 * over a ring that may already hold frames calls {@link #ring()} once itself.
 */
public final class RingDoorbell extends PaddedState
{
    /** The consumer is polling, or has its own next {@code Poll} queued; producers need not wake it. */
    public static final int RUNNING = 0;
    /** The consumer went idle after a re-poll that found nothing; the next producer to ring must wake it. */
    public static final int IDLE = 1;
    /** A producer has sent the wake-up; its {@code Poll} is queued and no other producer sends one. */
    public static final int SCHEDULED = 2;

    private final Runnable wake;

    /**
     * @param wake sends the consumer one {@code Poll}; called at most once per idle period by producers, and by
     *             the consumer's {@link RingDutyCycle} to schedule its own next poll.
     */
    public RingDoorbell(final Runnable wake)
    {
        if (null == wake)
        {
            throw new IllegalArgumentException("wake must not be null");
        }
        this.wake = wake;
        STATE.setRelease(this, IDLE);
    }

    /**
     * The producer's check after a commit (or an {@code ADMIN_ACTION}): a full fence, because a commit is only a
     * release store and the state read below could otherwise overtake it; then, if the consumer is idle, the one
     * producer whose CAS moves it to {@link #SCHEDULED} sends the wake-up.
     *
     * @return true if this call sent the wake-up.
     */
    public boolean ring()
    {
        VarHandle.fullFence();
        if (IDLE == (int)STATE.getVolatile(this) && STATE.compareAndSet(this, IDLE, SCHEDULED))
        {
            wake.run();
            return true;
        }
        return false;
    }

    /** {@link #RUNNING}, {@link #IDLE} or {@link #SCHEDULED}; for tests, counters and diagnostics. */
    public int state()
    {
        return (int)STATE.getVolatile(this);
    }

    /** The name of a state, for messages. */
    public static String stateName(final int state)
    {
        return switch (state)
        {
            case RUNNING -> "RUNNING";
            case IDLE -> "IDLE";
            case SCHEDULED -> "SCHEDULED";
            default -> "UNKNOWN(" + state + ")";
        };
    }

    @Override
    public String toString()
    {
        return "RingDoorbell{" + stateName(state()) + "}";
    }

    /**
     * Consumer, on receiving a {@code Poll}: SCHEDULED becomes RUNNING. Only the consumer leaves SCHEDULED, so a
     * plain ordered store is enough.
     *
     * @return false if the consumer is IDLE: this {@code Poll} did not come from the protocol.
     */
    boolean enterRunning()
    {
        final int state = (int)STATE.getVolatile(this);
        if (SCHEDULED == state)
        {
            STATE.setRelease(this, RUNNING);
            return true;
        }
        return RUNNING == state;
    }

    /**
     * Consumer, spin budget spent: publish IDLE before the re-poll. The fence mirrors the producers' one: the
     * re-poll's read of the ring must not overtake this store, or a producer that read RUNNING and a consumer that
     * read an empty ring could both walk away.
     */
    void enterIdle()
    {
        STATE.setVolatile(this, IDLE);
        VarHandle.fullFence();
    }

    /**
     * Consumer, its re-poll found work: take the ring back. False if a producer got there first; its {@code Poll}
     * is then already on its way, and the consumer must not send another.
     */
    boolean tryResume()
    {
        return STATE.compareAndSet(this, IDLE, RUNNING);
    }

    /** Consumer: schedules its own next {@code Poll} through the same callback the producers use. */
    void schedulePoll()
    {
        wake.run();
    }
}
