package io.xmit.transport.ring;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The doorbells of one driver's UDP ring consumers, by stream id, for its receive hook
 * ({@link DoorbellReceiveChannelEndpoint}). The receiving driver is the only one that knows a remote producer's frame
 * arrived, so it runs the producers' half of the wake-up protocol ({@link RingDoorbell#ring()}) in their place.
 * <p>
 * Read on the driver's receiver thread for every datagram, without a lock or an allocation: the table is replaced
 * whole (copy on write) when a consumer is added or removed, which is rare.
 */
final class NetworkDoorbells
{
    private volatile Int2ObjectHashMap<RingDoorbell> byStream = new Int2ObjectHashMap<>();
    private final AtomicLong wakeUps = new AtomicLong();

    synchronized void put(final int streamId, final RingDoorbell doorbell)
    {
        final Int2ObjectHashMap<RingDoorbell> copy = new Int2ObjectHashMap<>(byStream);
        copy.put(streamId, doorbell);
        byStream = copy;
    }

    synchronized void remove(final int streamId)
    {
        final Int2ObjectHashMap<RingDoorbell> copy = new Int2ObjectHashMap<>(byStream);
        copy.remove(streamId);
        byStream = copy;
    }

    /** Driver receiver thread: frames of {@code streamId} were written into its image; wake its consumer if idle. */
    void onFrames(final int streamId)
    {
        final RingDoorbell doorbell = byStream.get(streamId);
        if (null != doorbell && doorbell.ring())
        {
            wakeUps.incrementAndGet();
        }
    }

    /** How many wake-ups the hook has sent (a consumer found idle and woken), over all streams. */
    long wakeUps()
    {
        return wakeUps.get();
    }
}
