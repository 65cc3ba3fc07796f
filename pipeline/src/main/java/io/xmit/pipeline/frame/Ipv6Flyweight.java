package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over the fixed 40-byte IPv6 header (RFC 8200), network byte order. Each address is two
 * {@code long}s (high and low 64 bits), the form {@link io.xmit.pipeline.flow.FlowKey#setIpv6} takes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+---------------+---------------------------------------+
 *  |Version| Traffic Class |              Flow Label               |  0
 *  +-------+---------------+-------+---------------+---------------+
 *  |         Payload Length        |  Next Header  |   Hop Limit   |  4
 *  +-------------------------------+---------------+---------------+
 *  |                  Source Address (16 bytes)                    |  8
 *  +---------------------------------------------------------------+
 *  |               Destination Address (16 bytes)                  | 24
 *  +---------------------------------------------------------------+
 *  |     next header's data                                        | 40
 * </pre>
 */
public final class Ipv6Flyweight extends Flyweight<Ipv6Flyweight>
{
    public static final int VERSION_CLASS_LABEL_OFFSET = 0;
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    public static final int NEXT_HEADER_OFFSET = 6;
    public static final int HOP_LIMIT_OFFSET = 7;
    public static final int SOURCE_OFFSET = 8;
    public static final int DESTINATION_OFFSET = 24;
    public static final int HEADER_LENGTH = 40;
    public static final int MAX_PAYLOAD_LENGTH = 0xFFFF;

    public static final int VERSION = 6;
    public static final int FLOW_LABEL_MASK = 0xF_FFFF;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int version()
    {
        return (buffer.getByte(offset + VERSION_CLASS_LABEL_OFFSET) & 0xF0) >>> 4;
    }

    public int trafficClass()
    {
        return (buffer.getInt(offset + VERSION_CLASS_LABEL_OFFSET, NETWORK) >>> 20) & 0xFF;
    }

    public int flowLabel()
    {
        return buffer.getInt(offset + VERSION_CLASS_LABEL_OFFSET, NETWORK) & FLOW_LABEL_MASK;
    }

    public int payloadLength()
    {
        return buffer.getShort(offset + PAYLOAD_LENGTH_OFFSET, NETWORK) & 0xFFFF;
    }

    public int nextHeader()
    {
        return buffer.getByte(offset + NEXT_HEADER_OFFSET) & 0xFF;
    }

    public int hopLimit()
    {
        return buffer.getByte(offset + HOP_LIMIT_OFFSET) & 0xFF;
    }

    public long sourceHi()
    {
        return buffer.getLong(offset + SOURCE_OFFSET, NETWORK);
    }

    public long sourceLo()
    {
        return buffer.getLong(offset + SOURCE_OFFSET + 8, NETWORK);
    }

    public long destinationHi()
    {
        return buffer.getLong(offset + DESTINATION_OFFSET, NETWORK);
    }

    public long destinationLo()
    {
        return buffer.getLong(offset + DESTINATION_OFFSET + 8, NETWORK);
    }

    /** Writes version 6, the traffic class (8 bits) and the flow label (20 bits). */
    public Ipv6Flyweight versionClassAndLabel(final int trafficClass, final int flowLabel)
    {
        final int word = (VERSION << 28) | ((trafficClass & 0xFF) << 20) | (flowLabel & FLOW_LABEL_MASK);
        mutableBuffer.putInt(offset + VERSION_CLASS_LABEL_OFFSET, word, NETWORK);
        return this;
    }

    public Ipv6Flyweight payloadLength(final int payloadLength)
    {
        mutableBuffer.putShort(offset + PAYLOAD_LENGTH_OFFSET, (short)payloadLength, NETWORK);
        return this;
    }

    public Ipv6Flyweight nextHeader(final int nextHeader)
    {
        mutableBuffer.putByte(offset + NEXT_HEADER_OFFSET, (byte)nextHeader);
        return this;
    }

    public Ipv6Flyweight hopLimit(final int hopLimit)
    {
        mutableBuffer.putByte(offset + HOP_LIMIT_OFFSET, (byte)hopLimit);
        return this;
    }

    public Ipv6Flyweight source(final long hi, final long lo)
    {
        mutableBuffer.putLong(offset + SOURCE_OFFSET, hi, NETWORK);
        mutableBuffer.putLong(offset + SOURCE_OFFSET + 8, lo, NETWORK);
        return this;
    }

    public Ipv6Flyweight destination(final long hi, final long lo)
    {
        mutableBuffer.putLong(offset + DESTINATION_OFFSET, hi, NETWORK);
        mutableBuffer.putLong(offset + DESTINATION_OFFSET + 8, lo, NETWORK);
        return this;
    }
}
