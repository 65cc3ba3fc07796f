package io.xmit.pipeline.txq;

import java.lang.invoke.VarHandle;

/**
 * BQL bound to one TX queue: the kernel's netdev_tx_sent_queue / netdev_tx_completed_queue /
 * netdev_tx_reset_queue (kernel-semantics §7.2, §7.3, §7.5), which turn {@link DynamicQueueLimits} into the
 * STACK_XOFF bit of a {@link TxQueueState}. Both use the queue's clock.
 * <p>
 * {@link #sent(int)} runs where packets are handed to the driver (the qdisc's thread) and {@link #completed(int, int)}
 * where completions are reaped (the TX queue's thread). The full fences pair up so that one side always sees the
 * other's update: either the sender's re-check finds room, or the completer finds STACK_XOFF set and clears it.
 */
public final class ByteQueueLimits
{
    private final TxQueueState state;
    private final DynamicQueueLimits dql;

    public ByteQueueLimits(final TxQueueState state)
    {
        this(state, DynamicQueueLimits.DEFAULT_HOLD_TIME_NS);
    }

    public ByteQueueLimits(final TxQueueState state, final long holdTimeNs)
    {
        if (null == state)
        {
            throw new IllegalArgumentException("state must not be null");
        }
        this.state = state;
        this.dql = new DynamicQueueLimits(state.clock(), holdTimeNs);
    }

    public TxQueueState state()
    {
        return state;
    }

    public DynamicQueueLimits dql()
    {
        return dql;
    }

    /** qdisc_avail_bulklimit (§6.1): the byte budget for a bulk dequeue, 0 or less means no bulking. */
    public int avail()
    {
        return dql.avail();
    }

    /**
     * netdev_tx_sent_queue (§7.2): account bytes given to the driver; over the limit, stop the queue with
     * STACK_XOFF unless a concurrent completion has made room in the meantime.
     *
     * @return true if the queue is left stopped by BQL.
     * @throws IllegalArgumentException if {@code bytes} exceeds {@link DynamicQueueLimits#DQL_MAX_OBJECT}.
     */
    public boolean sent(final int bytes)
    {
        return sentBurst(bytes, bytes);
    }

    /**
     * netdev_tx_sent_queue for each packet of a burst the driver took at once (§6.4, §7.2): with xmit_more on all
     * but the last, the kernel accounts each packet's bytes and tests the limit only after the last. Told in one
     * call, as here, the limits end the same — {@code num_queued} grows by the burst's bytes and DQL's last object is
     * the last packet ({@code lastPacketBytes}), not the burst — for one update instead of one per packet.
     *
     * @param bytes           the burst's bytes.
     * @param lastPacketBytes the last packet's bytes.
     * @return true if the queue is left stopped by BQL.
     * @throws IllegalArgumentException if {@code lastPacketBytes} is not in {@code 0..bytes} or exceeds
     *                                  {@link DynamicQueueLimits#DQL_MAX_OBJECT}.
     */
    public boolean sentBurst(final int bytes, final int lastPacketBytes)
    {
        dql.queued(bytes, lastPacketBytes);
        if (dql.avail() >= 0)
        {
            return false;
        }
        state.txStarted(state.clock().nanoTime());
        state.setStackXoff();
        VarHandle.fullFence();
        if (dql.avail() >= 0)
        {
            state.clearStackXoff();
            return false;
        }
        return true;
    }

    /**
     * netdev_tx_completed_queue (§7.3): account completed bytes; if that made room and this call cleared
     * STACK_XOFF, the qdisc must be scheduled unless the queue is still stopped for another reason.
     *
     * @param packets completed packets (the kernel passes them for statistics only).
     * @return true if the caller must schedule the queue's qdisc.
     * @throws IllegalArgumentException if {@code bytes} exceeds the bytes in flight (P5).
     */
    public boolean completed(final int packets, final int bytes)
    {
        if (0 == bytes)
        {
            return false;
        }
        dql.completed(bytes);
        VarHandle.fullFence();
        if (dql.avail() < 0)
        {
            return false;
        }
        return state.testAndClearStackXoff() && !state.stopped();
    }

    /** netdev_tx_reset_queue (§7.5): clear STACK_XOFF, then reset the limits. */
    public void reset()
    {
        state.clearStackXoff();
        dql.reset();
    }
}
