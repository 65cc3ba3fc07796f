package io.xmit.deploy.cluster.data;

import io.aeron.AeronCounters;
import io.aeron.LogBuffers;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.LogBufferDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketPublication;

import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * What the edge's driver knows of one remote socket's ring (a UDP publication to the socket's node), used when the
 * node is gone without leaving to split what the RX queues published to it into what the node's socket is known to
 * have read, what was sent and never confirmed, and what never left the edge.
 * <p>
 * Aeron's sender knows two positions of the ring: its <b>sender position</b> ({@code snd-pos}: the ring sent as
 * datagrams up to there) and its <b>sender limit</b> ({@code snd-lmt}), which each status message from the node's
 * driver moves to the node's consumption position (the lowest position its subscriber has polled to, that is what
 * the socket's actor has handed to its handler) plus the node's receiver window. So the last status message confirms
 * {@code snd-lmt - window} as read. Positions are bytes, frames vary in length: rather than record each frame's
 * position on the RX queues' path, this maps a second view of the ring's log (the publication's log file, as Aeron's
 * {@code LogInspector} does) and counts the frames between positions once, when the node is gone. The log holds them
 * still: the driver cleans only what lies a term behind its sender position, and the sender never runs more than a
 * receiver window (at most half a term) past the confirmed position.
 * <p>
 * Made on the edge's control thread at bind; read and closed there. Nothing on the data path.
 */
final class RemoteRingBooks implements AutoCloseable
{
    private final LogBuffers log;
    private final UnsafeBuffer[] terms;
    private final int termLength;
    private final int positionBitsToShift;
    private final int initialTermId;
    private final CountersReader counters;
    private final long registrationId;
    private final int senderPositionId;
    private final int senderLimitId;
    private final int receiverWindow;
    private long confirmedPosition;
    private long senderPosition;

    private RemoteRingBooks(final LogBuffers log, final CountersReader counters, final long registrationId,
        final int senderPositionId, final int senderLimitId, final int receiverWindow)
    {
        this.log = log;
        this.terms = log.duplicateTermBuffers();
        this.termLength = log.termLength();
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        this.initialTermId = LogBufferDescriptor.initialTermId(log.metaDataBuffer());
        this.counters = counters;
        this.registrationId = registrationId;
        this.senderPositionId = senderPositionId;
        this.senderLimitId = senderLimitId;
        // The node's driver uses at most half a term, whatever its setting (Aeron's receiverWindowLength).
        this.receiverWindow = Math.min(receiverWindow, termLength >> 1);
    }

    /**
     * @param rings          the edge's UDP rings, whose driver sends {@code ring}.
     * @param ring           a ring to a remote socket, just added.
     * @param receiverWindow the window the node's driver announces ({@code rcv-wnd} of its subscription).
     * @throws IllegalStateException if the driver has no sender counters for the ring (not a UDP publication).
     */
    static RemoteRingBooks open(final NetworkRings rings, final PacketPublication ring, final int receiverWindow)
    {
        if (receiverWindow <= 0)
        {
            throw new IllegalArgumentException("receiverWindow must be positive, was " + receiverWindow);
        }
        final long registrationId = ring.registrationId();
        final CountersReader counters = rings.rings().aeron().countersReader();
        final int senderPosition = counterOf(counters, AeronCounters.DRIVER_SENDER_POSITION_TYPE_ID, registrationId);
        final int senderLimit = counterOf(counters, AeronCounters.DRIVER_SENDER_LIMIT_TYPE_ID, registrationId);
        if (CountersReader.NULL_COUNTER_ID == senderPosition || CountersReader.NULL_COUNTER_ID == senderLimit)
        {
            throw new IllegalStateException("ring stream " + ring.streamId() + " (registration " + registrationId +
                ") has no sender position or limit in driver " + rings.rings().directory() + ": not a UDP ring");
        }
        final Path file = rings.rings().directory().resolve("publications").resolve(registrationId + ".logbuffer");
        return new RemoteRingBooks(new LogBuffers(file.toString()), counters, registrationId, senderPosition,
            senderLimit, receiverWindow);
    }

    /**
     * Reads the driver's positions of the ring: call it while the ring is still open, just before it is closed (the
     * driver frees the counters after it). Positions confirmed later are not known; frames sent later went to a
     * node already gone.
     */
    void settle()
    {
        senderPosition = Math.max(0, readCounter(senderPositionId));
        confirmedPosition = Math.min(senderPosition, Math.max(0, readCounter(senderLimitId) - receiverWindow));
    }

    /** The position the node's driver last confirmed its socket had read to (by {@link #settle}). */
    long confirmedPosition()
    {
        return confirmedPosition;
    }

    /** The position up to which the edge's driver had sent the ring (by {@link #settle}). */
    long senderPosition()
    {
        return senderPosition;
    }

    /**
     * The ring's frames from {@code position} to the end of what was committed: call it once no RX queue writes
     * the ring any more (closed). Aeron's padding (an aborted claim, a term's end) is not a frame.
     */
    long framesFrom(final long position)
    {
        long at = position;
        long frames = 0;
        while (true)
        {
            final UnsafeBuffer term = terms[LogBufferDescriptor.indexByPosition(at, positionBitsToShift)];
            final int offset = (int)(at & (termLength - 1));
            final int length = FrameDescriptor.frameLengthVolatile(term, offset);
            final int termId = LogBufferDescriptor.computeTermIdFromPosition(at, positionBitsToShift, initialTermId);
            if (length <= 0 ||
                termId != term.getInt(offset + DataHeaderFlyweight.TERM_ID_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN))
            {
                return frames;
            }
            frames += FrameDescriptor.isPaddingFrame(term, offset) ? 0 : 1;
            at += BitUtil.align(length, FrameDescriptor.FRAME_ALIGNMENT);
        }
    }

    /** Unmaps the second view of the log. Idempotent. */
    @Override
    public void close()
    {
        log.close();
    }

    private long readCounter(final int counterId)
    {
        // A counter freed and reused by another stream is not this ring's: nothing known, nothing confirmed.
        return counters.getCounterState(counterId) == CountersReader.RECORD_ALLOCATED &&
            registrationId == counters.metaDataBuffer().getLong(CountersReader.metaDataOffset(counterId) +
                CountersReader.KEY_OFFSET) ? counters.getCounterValue(counterId) : 0;
    }

    private static int counterOf(final CountersReader counters, final int typeId, final long registrationId)
    {
        final int[] found = {CountersReader.NULL_COUNTER_ID};
        counters.forEach((counterId, type, key, label) ->
        {
            if (type == typeId && key.getLong(0) == registrationId)
            {
                found[0] = counterId;
            }
        });
        return found[0];
    }

    @Override
    public String toString()
    {
        return "RemoteRingBooks{registration=" + registrationId + ", confirmed=" + confirmedPosition + ", sent=" +
            senderPosition + "}";
    }
}
