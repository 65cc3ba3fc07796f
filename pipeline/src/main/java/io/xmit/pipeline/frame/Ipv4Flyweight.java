package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over an IPv4 header (RFC 791), network byte order. Addresses are network-order {@code int}s, the
 * form {@link io.xmit.pipeline.flow.FlowKey#setIpv4} takes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+-------+---------------+-------------------------------+
 *  |Version|  IHL  |      TOS      |          Total Length         |  0
 *  +-------+-------+---------------+-----+-------------------------+
 *  |         Identification        |0|D|M|     Fragment Offset     |  4
 *  +---------------+---------------+-----+-------------------------+
 *  |      TTL      |    Protocol   |         Header Checksum       |  8
 *  +---------------+---------------+-------------------------------+
 *  |                       Source Address                          | 12
 *  +---------------------------------------------------------------+
 *  |                    Destination Address                        | 16
 *  +---------------------------------------------------------------+
 *  |                Options (IHL 6..15: up to 40 bytes)            | 20
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class Ipv4Flyweight extends Flyweight<Ipv4Flyweight>
{
    public static final int VERSION_IHL_OFFSET = 0;
    public static final int TOS_OFFSET = 1;
    public static final int TOTAL_LENGTH_OFFSET = 2;
    public static final int IDENTIFICATION_OFFSET = 4;
    public static final int FLAGS_FRAGMENT_OFFSET = 6;
    public static final int TTL_OFFSET = 8;
    public static final int PROTOCOL_OFFSET = 9;
    public static final int CHECKSUM_OFFSET = 10;
    public static final int SOURCE_OFFSET = 12;
    public static final int DESTINATION_OFFSET = 16;
    public static final int MIN_HEADER_LENGTH = 20;
    public static final int MAX_HEADER_LENGTH = 60;
    public static final int MAX_TOTAL_LENGTH = 0xFFFF;

    public static final int VERSION = 4;
    public static final int MIN_IHL = 5;
    public static final int FLAG_DONT_FRAGMENT = 0x4000;
    public static final int FLAG_MORE_FRAGMENTS = 0x2000;
    public static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int version()
    {
        return (buffer.getByte(offset + VERSION_IHL_OFFSET) & 0xF0) >>> 4;
    }

    /** Header length in 32-bit words. */
    public int ihl()
    {
        return buffer.getByte(offset + VERSION_IHL_OFFSET) & 0x0F;
    }

    /** Header length in bytes, options included. */
    public int headerLength()
    {
        return ihl() << 2;
    }

    public int tos()
    {
        return buffer.getByte(offset + TOS_OFFSET) & 0xFF;
    }

    public int totalLength()
    {
        return buffer.getShort(offset + TOTAL_LENGTH_OFFSET, NETWORK) & 0xFFFF;
    }

    public int identification()
    {
        return buffer.getShort(offset + IDENTIFICATION_OFFSET, NETWORK) & 0xFFFF;
    }

    /** The flags (top three bits) and the fragment offset in 8-byte units (low 13 bits). */
    public int flagsAndFragmentOffset()
    {
        return buffer.getShort(offset + FLAGS_FRAGMENT_OFFSET, NETWORK) & 0xFFFF;
    }

    public int ttl()
    {
        return buffer.getByte(offset + TTL_OFFSET) & 0xFF;
    }

    public int protocol()
    {
        return buffer.getByte(offset + PROTOCOL_OFFSET) & 0xFF;
    }

    public int headerChecksum()
    {
        return buffer.getShort(offset + CHECKSUM_OFFSET, NETWORK) & 0xFFFF;
    }

    public int source()
    {
        return buffer.getInt(offset + SOURCE_OFFSET, NETWORK);
    }

    public int destination()
    {
        return buffer.getInt(offset + DESTINATION_OFFSET, NETWORK);
    }

    /** Writes version 4 and the header length in bytes (a multiple of 4 in 20..60). */
    public Ipv4Flyweight versionAndHeaderLength(final int headerLength)
    {
        mutableBuffer.putByte(offset + VERSION_IHL_OFFSET, (byte)((VERSION << 4) | ((headerLength >>> 2) & 0x0F)));
        return this;
    }

    public Ipv4Flyweight tos(final int tos)
    {
        mutableBuffer.putByte(offset + TOS_OFFSET, (byte)tos);
        return this;
    }

    public Ipv4Flyweight totalLength(final int totalLength)
    {
        mutableBuffer.putShort(offset + TOTAL_LENGTH_OFFSET, (short)totalLength, NETWORK);
        return this;
    }

    public Ipv4Flyweight identification(final int identification)
    {
        mutableBuffer.putShort(offset + IDENTIFICATION_OFFSET, (short)identification, NETWORK);
        return this;
    }

    public Ipv4Flyweight flagsAndFragmentOffset(final int flagsAndFragmentOffset)
    {
        mutableBuffer.putShort(offset + FLAGS_FRAGMENT_OFFSET, (short)flagsAndFragmentOffset, NETWORK);
        return this;
    }

    public Ipv4Flyweight ttl(final int ttl)
    {
        mutableBuffer.putByte(offset + TTL_OFFSET, (byte)ttl);
        return this;
    }

    public Ipv4Flyweight protocol(final int protocol)
    {
        mutableBuffer.putByte(offset + PROTOCOL_OFFSET, (byte)protocol);
        return this;
    }

    public Ipv4Flyweight headerChecksum(final int checksum)
    {
        mutableBuffer.putShort(offset + CHECKSUM_OFFSET, (short)checksum, NETWORK);
        return this;
    }

    public Ipv4Flyweight source(final int address)
    {
        mutableBuffer.putInt(offset + SOURCE_OFFSET, address, NETWORK);
        return this;
    }

    public Ipv4Flyweight destination(final int address)
    {
        mutableBuffer.putInt(offset + DESTINATION_OFFSET, address, NETWORK);
        return this;
    }

    /** Computes the header checksum over {@link #headerLength()} bytes and writes it; call after all fields. */
    public Ipv4Flyweight updateHeaderChecksum()
    {
        headerChecksum(0);
        return headerChecksum(Checksums.checksum(mutableBuffer, offset, headerLength()));
    }
}
