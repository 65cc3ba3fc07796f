package io.xmit.pipeline.qdisc;

import org.agrona.DirectBuffer;

/**
 * A queueing discipline for one TX queue, the kernel's Qdisc_ops kept as small (kernel-semantics §4): enqueue a
 * packet by copying it in, dequeue into a {@link DescriptorBatch} in bulk, complete the batch once the driver has
 * taken what it could. One owner drives it; nothing here is thread-safe and nothing allocates per packet.
 */
public interface Qdisc
{
    int NET_XMIT_SUCCESS = 0;
    int NET_XMIT_DROP = 1;

    /**
     * Copy {@code length} bytes of {@code src} at {@code offset} in; {@link #NET_XMIT_SUCCESS} or
     * {@link #NET_XMIT_DROP}.
     *
     * @throws IndexOutOfBoundsException if the bytes lie outside {@code src}; nothing is changed then.
     */
    int enqueue(DirectBuffer src, int offset, int length, int priority);

    /**
     * {@link #enqueue(DirectBuffer, int, int, int)} with a tag (xmit: the sending socket's id) that the packet's
     * descriptor carries when it is dequeued ({@link DescriptorBatch#tag(int)}).
     */
    int enqueue(DirectBuffer src, int offset, int length, int priority, int tag);

    /**
     * try_bulk_dequeue_skb (§6.1): append up to {@code maxPackets} packets to {@code batch}, the first one always
     * (if any), more only while the remaining {@code byteBudget} (BQL avail) stays positive.
     *
     * @return the number of packets appended.
     * @throws IllegalArgumentException if {@code batch} already holds another qdisc's packets.
     */
    int dequeueBulk(DescriptorBatch batch, int maxPackets, int byteBudget);

    /** q->dequeue: exactly one packet, no bulking. */
    default int dequeue(final DescriptorBatch batch)
    {
        return dequeueBulk(batch, 1, 0);
    }

    /**
     * The driver took the first {@code accepted} descriptors of {@code batch}: free them, requeue the rest at the
     * head in order (§4.6), and empty the batch.
     */
    void complete(DescriptorBatch batch, int accepted);

    /**
     * dev_requeue_skb for a packet that never was in this qdisc (§4.6): copy it to the head. Such a packet left
     * through the bypass, so it is counted in bstats here (§4.10), not when it is dequeued again.
     *
     * @throws IndexOutOfBoundsException if the bytes lie outside {@code src}; nothing is changed then.
     */
    int requeue(DirectBuffer src, int offset, int length, int priority);

    /** {@link #requeue(DirectBuffer, int, int, int)} with the packet's tag. */
    int requeue(DirectBuffer src, int offset, int length, int priority, int tag);

    /** The length of the packet the next dequeue returns, or -1 when empty. */
    int peekLength();

    /** No packet queued, the requeue list included: the bypass condition (§4.3, §4.4). */
    boolean isEmpty();

    /** qdisc_reset (§5.6): drop everything queued; cumulative counters stay. */
    void reset();

    QdiscStats stats();

    default int qlen()
    {
        return stats().qlen();
    }

    default long backlog()
    {
        return stats().backlog();
    }
}
