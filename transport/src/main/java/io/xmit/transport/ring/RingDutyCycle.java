package io.xmit.transport.ring;

/**
 * The consumer's half of the wake-up protocol (stack.md, "Actors draining Aeron rings"; the producers' half is
 * {@link RingDoorbell#ring()}): what a ring consumer does with each {@code Poll} it receives. It runs on the
 * consumer's single thread, for an actor inside the handler of its {@code Poll} message:
 * <pre>{@code
 * // once, at setup: the doorbell's wake callback sends this actor one Poll
 * RingDoorbell doorbell = new RingDoorbell(() -> self.tell(Poll.INSTANCE));
 * RingDutyCycle cycle = new RingDutyCycle(doorbell, () -> subscription.poll(handler, 64), spinBudget);
 * doorbell.ring();    // start: look once at what the ring may already hold
 *
 * // on every Poll
 * cycle.onPoll();
 * }</pre>
 * Each {@link #onPoll()} polls once; work done → it sends the next {@code Poll}; nothing → it counts an empty
 * poll and keeps going through the mailbox until the spin budget is spent; then it sets IDLE, polls once more
 * (without that re-poll a frame committed just before IDLE was published is stranded), and if the re-poll found
 * work it takes the ring back with a CAS, unless a producer's wake-up won the race and its {@code Poll} is already
 * queued. So exactly one {@code Poll} is in flight while the consumer is not IDLE, and none while it is.
 * <p>
 * The spin budget trades CPU for latency: going idle at once costs a park/unpark per wake-up (~30 µs RTT here),
 * spinning 20–30 µs of empty polls first gives 1–2.5 µs. Use 0 for throughput-only stages. Not thread-safe: one
 * consumer thread at a time, as an actor guarantees.
 */
public final class RingDutyCycle
{
    private final RingDoorbell doorbell;
    private final RingPoller poller;
    private final int spinBudget;
    private final long spinNanos;
    private int emptyPolls;
    private long spinStart;
    private long idles;
    private long repollHits;

    /**
     * @param doorbell   the consumer's doorbell, shared with the publications that feed it.
     * @param poller     one bounded poll of the consumer's rings.
     * @param spinBudget how many empty polls in a row to spin through before going idle; 0 or more.
     */
    public RingDutyCycle(final RingDoorbell doorbell, final RingPoller poller, final int spinBudget)
    {
        this(doorbell, poller, spinBudget, Long.MAX_VALUE);
    }

    /**
     * A duty cycle whose spinning also ends after {@code spinNanos} of wall time: where many consumers share one
     * thread, each empty poll waits for all the others' turns, so a budget in polls alone would spin far longer
     * than meant.
     *
     * @param spinNanos the longest spin, in nanoseconds from the first empty poll; 0 or more.
     */
    public RingDutyCycle(final RingDoorbell doorbell, final RingPoller poller, final int spinBudget,
        final long spinNanos)
    {
        if (spinNanos < 0)
        {
            throw new IllegalArgumentException("spinNanos must be 0 or more, was " + spinNanos);
        }
        this.spinNanos = spinNanos;
        if (null == doorbell)
        {
            throw new IllegalArgumentException("doorbell must not be null");
        }
        if (null == poller)
        {
            throw new IllegalArgumentException("poller must not be null");
        }
        if (spinBudget < 0)
        {
            throw new IllegalArgumentException("spinBudget must be 0 or more, was " + spinBudget);
        }
        this.doorbell = doorbell;
        this.poller = poller;
        this.spinBudget = spinBudget;
    }

    /**
     * Handles one {@code Poll}: polls, and either schedules the next {@code Poll} through the doorbell's wake
     * callback or leaves the consumer idle for a producer to wake.
     *
     * @return the work done by this {@code Poll} (both polls, if it re-polled).
     */
    public int onPoll()
    {
        if (!doorbell.enterRunning())
        {
            // A Poll from outside the protocol, while idle: look once, but only take the ring back if no producer
            // has scheduled a Poll meanwhile, so that there is never a second one in flight.
            return pollWhileIdle();
        }

        final int work = poller.poll();
        if (work > 0)
        {
            emptyPolls = 0;
            doorbell.schedulePoll();
            return work;
        }
        if (emptyPolls < spinBudget && withinSpinTime())
        {
            emptyPolls++;
            doorbell.schedulePoll();
            return 0;
        }

        emptyPolls = 0;
        idles++;
        doorbell.enterIdle();
        final int repollWork = pollWhileIdle();
        if (repollWork > 0)
        {
            repollHits++;
        }
        return repollWork;
    }

    /** The consumer's doorbell. */
    public RingDoorbell doorbell()
    {
        return doorbell;
    }

    /** The spin budget: empty polls in a row before going idle. */
    public int spinBudget()
    {
        return spinBudget;
    }

    /** How often the consumer went idle; read on the consumer's thread (or after it stopped). */
    public long idles()
    {
        return idles;
    }

    /** How often the re-poll after going idle found work (each one a frame that would have been stranded). */
    public long repollHits()
    {
        return repollHits;
    }

    private boolean withinSpinTime()
    {
        if (Long.MAX_VALUE == spinNanos)
        {
            return true;
        }
        final long now = System.nanoTime();
        if (0 == emptyPolls)
        {
            spinStart = now;
        }
        return now - spinStart < spinNanos;
    }

    private int pollWhileIdle()
    {
        final int work = poller.poll();
        if (work > 0)
        {
            if (doorbell.tryResume())
            {
                doorbell.schedulePoll();
            }
        }
        return work;
    }
}
