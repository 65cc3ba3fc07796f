package io.xmit.pipeline.frame;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight over the xmit header in front of every Ethernet frame in an xmit ring: what the sender decided
 * about the packet that the qdisc, the TX queue and the tracer need later. Little-endian, 32 bytes; the
 * Ethernet frame follows at {@link #HEADER_LENGTH}.
 * <pre>
 *  offset  type   field
 *   0      int    flowHash       0 = not computed
 *   4      int    socketId
 *   8      short  priority       skb->priority; only priority &amp; 15 is used (pfifo_fast band, XPS tc)
 *  10      short  rxQueue        recorded RX queue, -1 = none
 *  12      int    flags          TX rings: bit 1 = ooo_okay; host rings: the frame's kind
 *  16      long   traceId        0 = not traced
 *  24      long   enqueueTimeNs
 *  32      ...    Ethernet frame
 * </pre>
 */
public final class RingFrameHeader extends Flyweight<RingFrameHeader>
{
    public static final int FLOW_HASH_OFFSET = 0;
    public static final int SOCKET_ID_OFFSET = 4;
    public static final int PRIORITY_OFFSET = 8;
    public static final int RX_QUEUE_OFFSET = 10;
    public static final int FLAGS_OFFSET = 12;
    public static final int TRACE_ID_OFFSET = 16;
    public static final int ENQUEUE_TIME_NS_OFFSET = 24;
    public static final int HEADER_LENGTH = 32;

    public static final int NO_FLOW_HASH = 0;
    public static final int NO_RX_QUEUE = -1;
    public static final long NO_TRACE_ID = 0;
    public static final int FLAG_OOO_OKAY = 1 << 1;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Where the Ethernet frame starts in the wrapped buffer. */
    public int frameOffset()
    {
        return offset + HEADER_LENGTH;
    }

    public int flowHash()
    {
        return buffer.getInt(offset + FLOW_HASH_OFFSET, ORDER);
    }

    public int socketId()
    {
        return buffer.getInt(offset + SOCKET_ID_OFFSET, ORDER);
    }

    public int priority()
    {
        return buffer.getShort(offset + PRIORITY_OFFSET, ORDER);
    }

    public int rxQueue()
    {
        return buffer.getShort(offset + RX_QUEUE_OFFSET, ORDER);
    }

    public int flags()
    {
        return buffer.getInt(offset + FLAGS_OFFSET, ORDER);
    }

    /** The transport's ooo_okay: the cached TX queue may be re-chosen for this packet (kernel-semantics §1.5). */
    public boolean oooOkay()
    {
        return (flags() & FLAG_OOO_OKAY) != 0;
    }

    public long traceId()
    {
        return buffer.getLong(offset + TRACE_ID_OFFSET, ORDER);
    }

    public long enqueueTimeNs()
    {
        return buffer.getLong(offset + ENQUEUE_TIME_NS_OFFSET, ORDER);
    }

    public RingFrameHeader flowHash(final int flowHash)
    {
        mutableBuffer.putInt(offset + FLOW_HASH_OFFSET, flowHash, ORDER);
        return this;
    }

    public RingFrameHeader socketId(final int socketId)
    {
        mutableBuffer.putInt(offset + SOCKET_ID_OFFSET, socketId, ORDER);
        return this;
    }

    public RingFrameHeader priority(final int priority)
    {
        mutableBuffer.putShort(offset + PRIORITY_OFFSET, (short)priority, ORDER);
        return this;
    }

    public RingFrameHeader rxQueue(final int rxQueue)
    {
        mutableBuffer.putShort(offset + RX_QUEUE_OFFSET, (short)rxQueue, ORDER);
        return this;
    }

    public RingFrameHeader flags(final int flags)
    {
        mutableBuffer.putInt(offset + FLAGS_OFFSET, flags, ORDER);
        return this;
    }

    public RingFrameHeader traceId(final long traceId)
    {
        mutableBuffer.putLong(offset + TRACE_ID_OFFSET, traceId, ORDER);
        return this;
    }

    public RingFrameHeader enqueueTimeNs(final long enqueueTimeNs)
    {
        mutableBuffer.putLong(offset + ENQUEUE_TIME_NS_OFFSET, enqueueTimeNs, ORDER);
        return this;
    }

    /**
     * Writes all seven fields in four 8-byte stores, the same bytes as the seven setters: the producers' hot path.
     * Each setter is a bounds-checked store that reloads the flyweight's buffer and offset, as the store before it
     * may have changed them; seven of them measurably slowed the 2-producer ring (see {@code RingBenchmark}).
     */
    public RingFrameHeader put(
        final int flowHash,
        final int socketId,
        final int priority,
        final int rxQueue,
        final int flags,
        final long traceId,
        final long enqueueTimeNs)
    {
        final MutableDirectBuffer buffer = mutableBuffer;
        final int offset = this.offset;
        buffer.putLong(offset + FLOW_HASH_OFFSET, (flowHash & 0xFFFF_FFFFL) | ((long)socketId << 32), ORDER);
        buffer.putLong(offset + PRIORITY_OFFSET,
            (priority & 0xFFFFL) | ((rxQueue & 0xFFFFL) << 16) | ((long)flags << 32), ORDER);
        buffer.putLong(offset + TRACE_ID_OFFSET, traceId, ORDER);
        buffer.putLong(offset + ENQUEUE_TIME_NS_OFFSET, enqueueTimeNs, ORDER);
        return this;
    }
}
