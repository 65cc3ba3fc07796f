package io.xmit.transport.nic;

import java.util.Optional;

import io.xmit.pipeline.qdisc.DescriptorBatch;

/**
 * One port of a NIC device, as the pipeline's actors drive it: burst transmit and receive, completions, RX
 * interrupts, statistics, RSS settings and fault injection.
 * <p>
 * The burst calls are the hot path: they return a count, or a negative errno ({@link Errno}) as a value, and
 * allocate nothing. Control calls throw {@link NicException} naming what was refused. Calls on different
 * queues may run on different threads; {@code txBurst} and {@code txReclaim} of one queue may overlap;
 * {@code rxBurst} and {@code rxRelease} of one RX queue belong to one thread at a time.
 */
public interface NicDriver
{
    /** This port's index on its device (0 = A, 1 = B). */
    int port();

    int txQueueCount();

    int rxQueueCount();

    /** Descriptors per TX and per RX ring; the largest burst. */
    int ringSize();

    /** The largest frame length accepted, in bytes. */
    int maxFrame();

    /** The kernel interface this port drives (afpacket): its MAC and MTU; empty for loop and null. */
    default Optional<NicLink> link()
    {
        return Optional.empty();
    }

    /**
     * Hands the batch's descriptors to TX queue {@code queue}; the shim copies the frames before returning.
     *
     * @return how many it accepted, from the first (fewer than the batch holds when the ring is short of free
     * descriptors), or a negative errno with none accepted.
     */
    int txBurst(int queue, DescriptorBatch batch);

    /**
     * Reports into {@code out} the packets and bytes completed on {@code queue} since the previous reclaim, and
     * frees their descriptors.
     *
     * @return 0 or a negative errno.
     */
    int txReclaim(int queue, TxCompletion out);

    /**
     * Fills {@code burst} with up to {@code burst.capacity()} received frames of RX queue {@code queue}, oldest
     * first; they stay valid until {@link #rxRelease(int, int)}.
     *
     * @return how many (also {@code burst.count()}), or a negative errno.
     */
    int rxBurst(int queue, RxBurst burst);

    /**
     * Returns the {@code count} oldest handed-out frames of RX queue {@code queue} to the ring.
     *
     * @return 0 or a negative errno ({@code -EINVAL} if fewer are out).
     */
    int rxRelease(int queue, int count);

    /**
     * Arms (or disarms) RX queue {@code queue}'s interrupt: an armed queue that receives frames disarms itself
     * and signals the device's interrupt thread once. Frames that arrived before the arming raise nothing, so a
     * poller that found its queue empty arms it and then polls once more before it sleeps (NAPI's rule).
     *
     * @return 0 or a negative errno.
     */
    int armRx(int queue, boolean armed);

    /** Queue {@code queue}'s counters (0 ≤ queue &lt; max(tx, rx) queues). */
    QueueStats stats(int queue);

    /** Sets a fault on this port; see {@link NicFault}. */
    void fault(NicFault fault, int queue, long value);

    /**
     * Resets TX queue {@code queue}, as a driver's {@code ndo_tx_timeout} does for the TX watchdog
     * (kernel-semantics §8.2): a hung queue runs again and the frames waiting in its ring leave, in order.
     * Any thread; calls on one queue may overlap {@code txBurst} and {@code txReclaim}.
     */
    void txReset(int queue);

    /** Sets the 40-byte Toeplitz key this port receives with. */
    void setRssKey(byte[] key);

    /** Sets the 128-entry indirection table (RX queue per {@code hash % 128}) this port receives with. */
    void setRssIndirection(int[] table);
}
