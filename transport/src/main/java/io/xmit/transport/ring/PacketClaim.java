package io.xmit.transport.ring;

import io.aeron.logbuffer.BufferClaim;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.MutableDirectBuffer;

/**
 * Space claimed in a ring for one frame, written in place: fill in the {@link #header()} (or call
 * {@link #putHeader}) and the frame at {@link #frameOffset()} in {@link #buffer()}, then {@link #commit()} or
 * {@link #abort()}. One claim object per producer thread, reused for every frame; get it from
 * {@link PacketPublication#newClaim()} and pass it to {@link PacketPublication#tryClaim(int, PacketClaim)}.
 * <pre>{@code
 * long result = publication.tryClaim(length, claim);
 * if (result > 0)
 * {
 *     claim.putHeader(flowHash, socketId, priority, rxQueue, flags, traceId, nowNs);
 *     writer.write(claim.buffer(), claim.frameOffset(), ...);
 *     claim.commit();
 * }
 * }</pre>
 * Until it is committed or aborted, a claim holds up the consumer at its position (frames claimed after it wait
 * too), so write it at once and never leave it open across a blocking call. Commit and abort both ring the
 * consumer's doorbell: an abort turns the claim into padding that frames committed after it were waiting behind.
 */
public final class PacketClaim
{
    private final BufferClaim bufferClaim = new BufferClaim();
    private final RingFrameHeader header = new RingFrameHeader();
    private RingDoorbell doorbell;
    private int frameLength;
    private boolean active;

    /** A claim for any ring's {@link PacketPublication#tryClaim}, used by one thread at a time. */
    public PacketClaim()
    {
    }

    /** Called by the publication after a successful claim. */
    void claimed(final RingDoorbell doorbell, final int frameLength)
    {
        this.doorbell = doorbell;
        this.frameLength = frameLength;
        this.active = true;
        header.wrap(bufferClaim.buffer(), bufferClaim.offset());
    }

    BufferClaim bufferClaim()
    {
        return bufferClaim;
    }

    /** True between a successful claim and its commit or abort. */
    public boolean isActive()
    {
        return active;
    }

    /**
     * The xmit header of the claimed frame, writable. The claimed space is zeroed, which reads as flow hash 0
     * ("not computed") and RX queue 0 (not {@link RingFrameHeader#NO_RX_QUEUE}): set every field that matters.
     */
    public RingFrameHeader header()
    {
        return header;
    }

    /** Writes all seven header fields (see {@link RingFrameHeader}). */
    public void putHeader(
        final int flowHash,
        final int socketId,
        final int priority,
        final int rxQueue,
        final int flags,
        final long traceId,
        final long enqueueTimeNs)
    {
        header.put(flowHash, socketId, priority, rxQueue, flags, traceId, enqueueTimeNs);
    }

    /** The buffer the frame is written into: the ring's term buffer, valid until commit or abort. */
    public MutableDirectBuffer buffer()
    {
        return bufferClaim.buffer();
    }

    /** Where the Ethernet frame starts in {@link #buffer()}. */
    public int frameOffset()
    {
        return bufferClaim.offset() + RingFrameHeader.HEADER_LENGTH;
    }

    /** The length of the Ethernet frame that was claimed. */
    public int frameLength()
    {
        return frameLength;
    }

    /** Makes the frame visible to the consumer and rings its doorbell. */
    public void commit()
    {
        checkActive();
        active = false;
        bufferClaim.commit();
        doorbell.ring();
    }

    /**
     * Makes the frame visible to the consumer without ringing its doorbell: for a producer that then either runs the
     * consumer's work itself or rings, as the qdisc's sender bypass does. The caller must do one or the other, or the
     * frame may wait for the consumer's next wake-up.
     */
    public void commitWithoutRing()
    {
        checkActive();
        active = false;
        bufferClaim.commit();
    }

    /** Gives the space up: the consumer skips it as padding. Rings the doorbell, as frames may wait behind it. */
    public void abort()
    {
        checkActive();
        active = false;
        bufferClaim.abort();
        doorbell.ring();
    }

    private void checkActive()
    {
        if (!active)
        {
            throw new IllegalStateException("no frame is claimed: commit and abort follow one successful tryClaim");
        }
    }
}
