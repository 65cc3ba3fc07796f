package io.xmit.transport.ring;

import io.aeron.Publication;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

/**
 * The producers' side of one ring: an Aeron IPC publication that many threads share (a concurrent publication),
 * carrying one message per packet, the {@link RingFrameHeader} followed by the Ethernet frame, each written in
 * place and never fragmented. After every commit, and on every {@link #ADMIN_ACTION}, it rings the consumer's
 * {@link RingDoorbell}.
 * <p>
 * Errors are values: {@link #send} and {@link #tryClaim} return the new ring position, or one of the negative
 * results below. Nothing on the send path throws or allocates, except for misuse (a negative length, a source
 * buffer too short for the frame). Back-pressure is never a silent loss: it is reported, and the caller decides.
 * <p>
 * Thread-safe. The {@link #send} form keeps one {@link PacketClaim} per thread that uses it (made on that thread's
 * first send); the {@link #tryClaim} form uses the claim its caller owns.
 */
public final class PacketPublication implements AutoCloseable
{
    /** No consumer is subscribed to the ring. */
    public static final long NOT_CONNECTED = Publication.NOT_CONNECTED;
    /** The ring is full: the consumer is half a term behind. Retry later, or drop and count it. */
    public static final long BACK_PRESSURED = Publication.BACK_PRESSURED;
    /** The ring moved to its next term while claiming (the doorbell has been rung); retry at once. */
    public static final long ADMIN_ACTION = Publication.ADMIN_ACTION;
    /** The publication, or the {@link Rings} it belongs to, is closed. */
    public static final long CLOSED = Publication.CLOSED;
    /** The ring's log has reached its largest possible position; it must be replaced. */
    public static final long MAX_POSITION_EXCEEDED = Publication.MAX_POSITION_EXCEEDED;
    /** The frame is longer than the ring's {@link #maxFrameLength()}; nothing was written. */
    public static final long FRAME_TOO_LONG = -16;

    private final Publication publication;
    private final RingDoorbell doorbell;
    private final int streamId;
    private final int maxFrameLength;
    private final ThreadLocal<PacketClaim> sendClaims = ThreadLocal.withInitial(PacketClaim::new);

    PacketPublication(
        final Publication publication,
        final RingDoorbell doorbell,
        final int streamId,
        final int maxFrameLength)
    {
        if (publication.maxPayloadLength() < RingFrameHeader.HEADER_LENGTH + maxFrameLength)
        {
            publication.close();
            throw new IllegalStateException(
                "ring stream " + streamId + ": the publication carries at most " + publication.maxPayloadLength() +
                " bytes unfragmented, less than the header and a " + maxFrameLength + "-byte frame");
        }
        this.publication = publication;
        this.doorbell = doorbell;
        this.streamId = streamId;
        this.maxFrameLength = maxFrameLength;
    }

    /** A claim for {@link #tryClaim}, to be used by one thread at a time. */
    public PacketClaim newClaim()
    {
        return new PacketClaim();
    }

    /**
     * Claims space for a header and a frame of {@code frameLength} bytes, to be written in place through
     * {@code claim} and then committed or aborted.
     *
     * @return the ring position after the frame (positive) if claimed, else {@link #NOT_CONNECTED},
     * {@link #BACK_PRESSURED}, {@link #ADMIN_ACTION}, {@link #CLOSED}, {@link #MAX_POSITION_EXCEEDED} or
     * {@link #FRAME_TOO_LONG}.
     * @throws IllegalArgumentException if {@code frameLength} is negative.
     * @throws IllegalStateException    if {@code claim} still holds a frame.
     */
    public long tryClaim(final int frameLength, final PacketClaim claim)
    {
        if (frameLength > maxFrameLength || frameLength < 0)
        {
            return rejectLength(frameLength);
        }
        if (claim.isActive())
        {
            throw new IllegalStateException("the claim still holds a frame: commit or abort it first");
        }

        final long result = publication.tryClaim(RingFrameHeader.HEADER_LENGTH + frameLength, claim.bufferClaim());
        if (result > 0)
        {
            claim.claimed(doorbell, frameLength);
        }
        else if (ADMIN_ACTION == result)
        {
            // This claim may have written the end-of-term padding the consumer waits behind (stack.md). With the
            // driver on its own thread the producer's retry commits and rings anyway; with a driver that runs only
            // when the consumer does, the publisher limit cannot move while it sleeps, and this ring is the way out.
            doorbell.ring();
        }
        return result;
    }

    /**
     * {@link #tryClaim}, tried once more after an {@link #ADMIN_ACTION} (the term rotated under this claim, and the
     * next term has room): what every producer does, since the first refusal is no sign the ring is full.
     *
     * @return as {@link #tryClaim}; {@link #ADMIN_ACTION} only if the second try also met one.
     */
    public long tryClaimRetrying(final int frameLength, final PacketClaim claim)
    {
        final long result = tryClaim(frameLength, claim);
        return ADMIN_ACTION == result ? tryClaim(frameLength, claim) : result;
    }

    /**
     * Copies one frame into the ring behind a header made of the given fields (see {@link RingFrameHeader}).
     *
     * @return the ring position after the frame (positive) if sent, else one of the negative results of
     * {@link #tryClaim}.
     * @throws IllegalArgumentException if {@code length} is negative.
     * @throws IndexOutOfBoundsException if {@code frame} holds fewer than {@code length} bytes from {@code offset};
     *                                   the claim is then aborted.
     */
    public long send(
        final int flowHash,
        final int socketId,
        final int priority,
        final int rxQueue,
        final int flags,
        final long traceId,
        final long enqueueTimeNs,
        final DirectBuffer frame,
        final int offset,
        final int length)
    {
        final PacketClaim claim = sendClaims.get();
        final long result = tryClaim(length, claim);
        if (result > 0)
        {
            try
            {
                claim.putHeader(flowHash, socketId, priority, rxQueue, flags, traceId, enqueueTimeNs);
                claim.buffer().putBytes(claim.frameOffset(), frame, offset, length);
            }
            catch (final RuntimeException ex)
            {
                claim.abort();
                throw ex;
            }
            claim.commit();
        }
        return result;
    }

    /** The longest Ethernet frame this ring carries. */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /** The ring's Aeron stream id. */
    public int streamId()
    {
        return streamId;
    }

    /**
     * The Aeron publication's registration id: the key of its counters in the driver (sender position and limit of
     * a UDP ring) and the name of its log file.
     */
    public long registrationId()
    {
        return publication.registrationId();
    }

    /** The doorbell this publication rings. */
    public RingDoorbell doorbell()
    {
        return doorbell;
    }

    /** The position the next frame will be written at (for restart and resume), or {@link #CLOSED}. */
    public long position()
    {
        return publication.position();
    }

    /**
     * How many bytes of messages the producers may still claim before {@link #BACK_PRESSURED} (each frame takes its
     * length plus 64 bytes of headers, aligned to 32); negative when over the limit. The limit is moved on by the
     * driver's duty cycle as the consumer advances, so this lags the consumer a little.
     */
    public long availableWindow()
    {
        return publication.availableWindow();
    }

    /** True while the ring has a consumer. */
    public boolean isConnected()
    {
        return publication.isConnected();
    }

    public boolean isClosed()
    {
        return publication.isClosed();
    }

    /** Releases the publication; sends afterwards return {@link #CLOSED}. Idempotent. */
    @Override
    public void close()
    {
        publication.close();
    }

    /** The name of a result, for messages and logs: "BACK_PRESSURED", or "position 4096". */
    public static String resultName(final long result)
    {
        if (result > 0)
        {
            return "position " + result;
        }
        if (FRAME_TOO_LONG == result)
        {
            return "FRAME_TOO_LONG";
        }
        return Publication.errorString(result);
    }

    @Override
    public String toString()
    {
        return "PacketPublication{stream=" + streamId + ", position=" + position() + ", " + doorbell + "}";
    }

    private long rejectLength(final int frameLength)
    {
        if (frameLength < 0)
        {
            throw new IllegalArgumentException("frame length must not be negative, was " + frameLength);
        }
        return FRAME_TOO_LONG;
    }
}
