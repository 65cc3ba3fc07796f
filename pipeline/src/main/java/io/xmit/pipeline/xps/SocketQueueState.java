package io.xmit.pipeline.xps;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A socket's TX queue selection state (kernel-semantics §1.2–§1.5, §2.4): whether it is connected, its
 * cached TX queue, its recorded RX queue and how many of its packets are in flight.
 * <p>
 * "Connected" stands in for the kernel's cached dst: only a connected socket caches a TX queue (§1.2, §1.4)
 * or records an RX queue (§2.4). The socket's owner writes the cached TX queue; the RX path records the RX queue and
 * TX completions decrement the in-flight count from other threads, so those are volatile or atomic.
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

    private static final VarHandle IN_FLIGHT;

    static
    {
        try
        {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(SocketQueueState.class, "inFlight", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    // Written by the socket's owner (connected) or its RX path (rxQueue) and read by the sender: volatile, which costs
    // the sender a plain load on x86, and the writes are rare (connect, or an RX queue that changed).
    private volatile boolean connected;
    private int txQueue = NONE;
    private volatile int rxQueue = NONE;
    private volatile long inFlight;

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
     * {@code sk_tx_queue_get} (§1.3): the cached TX queue, or {@link #NONE}.
     */
    public int txQueue()
    {
        return txQueue;
    }

    /**
     * {@code sk_tx_queue_set} (§1.3): caches {@code queue}, refusing negative values and values
     * {@code >= 0xFFFF}. Storing is the caller's decision (only connected sockets cache, §1.2).
     *
     * @return whether the value was stored.
     */
    public boolean setTxQueue(final int queue)
    {
        if (queue < 0 || queue >= NO_QUEUE_MAPPING)
        {
            return false;
        }
        txQueue = queue;
        return true;
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
     * Counts a packet handed to a TX queue. Call after {@link #oooOkay()} was read for it: ooo_okay is
     * decided before the packet's own charge (§1.5).
     *
     * @return the in-flight count after the increment.
     */
    public long packetSent()
    {
        return (long)IN_FLIGHT.getAndAdd(this, 1L) + 1;
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
        return (long)IN_FLIGHT.getAndAdd(this, -packets) - packets;
    }

    public long inFlight()
    {
        return inFlight;
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
