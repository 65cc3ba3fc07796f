package io.xmit.pipeline.xps;

import io.xmit.pipeline.txq.NanoClock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A socket's TX queue selection state (kernel-semantics §1.2–§1.6, §2.4): whether it is connected, its
 * cached TX queue and when that was set, its recorded RX queue and how many of its packets are in flight.
 * <p>
 * "Connected" stands in for the kernel's cached dst: only a connected socket caches a TX queue (§1.2, §1.4)
 * or records an RX queue (§2.4). The socket's owner writes the cached TX queue and its time; the RX path records the
 * RX queue and TX completions count theirs from other threads, so those are volatile or atomic; the in-flight count is
 * the sender's count (a release store per packet) less the completions' (an atomic add per reclaim).
 * <p>
 * The cache ages as in 6.19 (§1.6): with a reselection period {@code p > 0}, a mapping set more than {@code p} ago
 * reads as nothing cached, so a busy flow re-runs XPS or the hash. With {@code p == 0} it never ages, as before 6.19.
 * Time is read from the socket's {@link NanoClock} in nanoseconds, where the kernel counts jiffies.
 */
public final class SocketQueueState
{
    /**
     * The kernel's {@code NO_QUEUE_MAPPING}: the cache refuses it and anything above (§1.3).
     */
    public static final int NO_QUEUE_MAPPING = 0xFFFF;

    /**
     * No cached TX queue or no recorded RX queue.
     */
    public static final int NONE = -1;

    /** A reselection period of 0: the cached queue never ages (the kernel before 6.19, or txq_reselection_ms = 0). */
    public static final long NEVER_RESELECT = 0;

    /**
     * {@code sk_tx_queue_set} refreshes the time of an unchanged mapping once it is older than this: the kernel's
     * {@code HZ}, one second whatever the reselection period (§1.6).
     */
    public static final long REFRESH_NANOS = 1_000_000_000L;

    private static final VarHandle SENT;
    private static final VarHandle COMPLETED;

    static
    {
        try
        {
            SENT = MethodHandles.lookup().findVarHandle(SocketQueueState.class, "sent", long.class);
            COMPLETED = MethodHandles.lookup().findVarHandle(SocketQueueState.class, "completed", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    // Written by the socket's owner (connected) or its RX path (rxQueue) and read by the sender: volatile, which costs
    // the sender a plain load on x86, and the writes are rare (connect, or an RX queue that changed).
    private final NanoClock clock;
    private final long reselectionNanos;
    private volatile boolean connected;
    private int txQueue = NONE;
    /** When {@link #txQueue} was last set or refreshed ({@code sk_tx_queue_mapping_jiffies}); kept only for p > 0. */
    private long txQueueSetAt;

    /** A socket whose cached queue never ages ({@link #NEVER_RESELECT}). */
    public SocketQueueState()
    {
        this(NanoClock.SYSTEM, NEVER_RESELECT);
    }

    /**
     * @param clock            the clock the cached queue's age is read from.
     * @param reselectionNanos {@code txq_reselection_ms} in nanoseconds (§1.6): how long a cached queue is trusted,
     *                         or {@link #NEVER_RESELECT}.
     * @throws IllegalArgumentException if the clock is null or the period negative.
     */
    public SocketQueueState(final NanoClock clock, final long reselectionNanos)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        if (reselectionNanos < 0)
        {
            throw new IllegalArgumentException("TX queue reselection period " + reselectionNanos +
                " ns is negative; 0 means never");
        }
        this.clock = clock;
        this.reselectionNanos = reselectionNanos;
    }
    private volatile int rxQueue = NONE;
    /**
     * Packets handed to a TX queue: written only by the thread sending on the socket (one at a time), so a release
     * store per packet rather than an atomic add; the in-flight count is this less {@link #completed}.
     */
    private volatile long sent;
    /** Packets completed: added to by the completing threads (any TX queue's), atomically. */
    private volatile long completed;

    public boolean connected()
    {
        return connected;
    }

    /**
     * Connects the socket: a new dst, so the cached TX queue is cleared (§1.4).
     */
    public void connect()
    {
        connected = true;
        clearTxQueue();
    }

    /**
     * Disconnects the socket: the dst is reset, so the cached TX queue is cleared (§1.4) and, with no dst,
     * nothing is cached until it connects again. The recorded RX queue is kept, as the kernel keeps
     * {@code sk_rx_queue_mapping}.
     */
    public void disconnect()
    {
        connected = false;
        clearTxQueue();
    }

    /**
     * The cached TX queue as stored ({@code sk_tx_queue_mapping}), or {@link #NONE}, whatever its age.
     */
    public int txQueue()
    {
        return txQueue;
    }

    /**
     * {@code sk_tx_queue_get} (§1.3, §1.6): the cached TX queue, or {@link #NONE} when nothing is cached or, with a
     * reselection period, when the mapping was set more than that period ago ({@code now > setAt + period}).
     */
    public int txQueueGet()
    {
        final int queue = txQueue;
        if (NONE == queue || NEVER_RESELECT == reselectionNanos)
        {
            return queue;
        }
        return clock.nanoTime() - (txQueueSetAt + reselectionNanos) > 0 ? NONE : queue;
    }

    /**
     * {@code sk_tx_queue_set} (§1.3, §1.6): caches {@code queue}, refusing negative values and values
     * {@code >= 0xFFFF}. A new value is stamped with the time; the value already cached only has its time refreshed,
     * and only once it is more than {@link #REFRESH_NANOS} old. Storing is the caller's decision (only connected
     * sockets cache, §1.2).
     *
     * @return whether the value was stored.
     */
    public boolean setTxQueue(final int queue)
    {
        if (queue < 0 || queue >= NO_QUEUE_MAPPING)
        {
            return false;
        }
        if (NEVER_RESELECT == reselectionNanos)
        {
            txQueue = queue;
            return true;
        }
        final long now = clock.nanoTime();
        if (queue != txQueue)
        {
            txQueue = queue;
            txQueueSetAt = now;
        }
        else if (now - (txQueueSetAt + REFRESH_NANOS) > 0)
        {
            txQueueSetAt = now;
        }
        return true;
    }

    /** The reselection period in nanoseconds, or {@link #NEVER_RESELECT}. */
    public long reselectionNanos()
    {
        return reselectionNanos;
    }

    /**
     * {@code sk_tx_queue_clear}: on every dst change (§1.4). A change of the real TX queue count does not
     * clear it; the bound check in {@code pickTx} does.
     */
    public void clearTxQueue()
    {
        txQueue = NONE;
    }

    /**
     * {@code sk_rx_queue_get} (§2.4): the recorded RX queue, or {@link #NONE}.
     */
    public int rxQueue()
    {
        return rxQueue;
    }

    /**
     * {@code sk_mark_napi_id} (§2.4): records the RX queue a packet arrived on, only for a connected socket,
     * only when the packet has one ({@code rxq >= 0}) and only if it differs, so the line is not dirtied per
     * packet.
     */
    public void recordRxQueue(final int rxq)
    {
        if (connected && rxq >= 0 && rxq != rxQueue)
        {
            rxQueue = rxq;
        }
    }

    /**
     * Counts a packet handed to a TX queue, on the thread sending on the socket (one at a time, as for the socket
     * itself), before the packet can complete. Call after {@link #oooOkay()} was read for it: ooo_okay is
     * decided before the packet's own charge (§1.5).
     *
     * @return the in-flight count after the increment.
     */
    public long packetSent()
    {
        final long now = sent + 1;
        SENT.setRelease(this, now);
        return now - completed;
    }

    /**
     * Counts a packet's TX completion; called from the completing thread. Every completion must match one
     * {@link #packetSent()}.
     *
     * @return the in-flight count after the decrement.
     */
    public long packetCompleted()
    {
        return packetsCompleted(1);
    }

    /**
     * Counts {@code packets} TX completions at once (a run of this socket's packets in one reclaim): one atomic
     * instead of one per packet.
     *
     * @return the in-flight count after the decrement.
     */
    public long packetsCompleted(final long packets)
    {
        final long done = (long)COMPLETED.getAndAdd(this, packets) + packets;
        return sent - done;
    }

    /** The packets completed so far (every TX completion and counted drop since the socket opened). */
    public long completed()
    {
        return completed;
    }

    /**
     * The packets sent and not completed. Completions are read first: a packet completes only after it was sent, so
     * the difference is never below what was in flight at the first read, nor negative.
     */
    public long inFlight()
    {
        final long done = completed;
        return sent - done;
    }

    /**
     * ooo_okay, 6.19+ rule for non-TCP sockets (§1.5): none of the socket's packets is still queued or in the
     * NIC, so moving it to another queue cannot reorder it.
     */
    public boolean oooOkay()
    {
        return inFlight() == 0;
    }

    @Override
    public String toString()
    {
        return "SocketQueueState{connected=" + connected + ", txQueue=" + txQueue + ", rxQueue=" + rxQueue +
            ", inFlight=" + inFlight() + "}";
    }
}
