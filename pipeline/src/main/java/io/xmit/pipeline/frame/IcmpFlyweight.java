package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over an ICMP (RFC 792) or ICMPv6 (RFC 4443) header. Both start with type, code and checksum; the
 * next 4 bytes depend on the type (echo identifier and sequence, MTU, unused), so the parser treats the first
 * 8 bytes as the header and what follows as the payload.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |     Type      |     Code      |            Checksum           |  0
 *  +---------------+---------------+-------------------------------+
 *  |             rest of header (depends on the type)              |  4
 *  +---------------------------------------------------------------+
 *  |     payload                                                   |  8
 * </pre>
 */
public final class IcmpFlyweight extends Flyweight<IcmpFlyweight>
{
    public static final int TYPE_OFFSET = 0;
    public static final int CODE_OFFSET = 1;
    public static final int CHECKSUM_OFFSET = 2;
    public static final int REST_OF_HEADER_OFFSET = 4;
    public static final int HEADER_LENGTH = 8;

    public static final int ICMP_ECHO_REPLY = 0;
    public static final int ICMP_ECHO_REQUEST = 8;
    public static final int ICMPV6_ECHO_REQUEST = 128;
    public static final int ICMPV6_ECHO_REPLY = 129;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int type()
    {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
    }

    public int code()
    {
        return buffer.getByte(offset + CODE_OFFSET) & 0xFF;
    }

    public int checksum()
    {
        return buffer.getShort(offset + CHECKSUM_OFFSET, NETWORK) & 0xFFFF;
    }

    public int restOfHeader()
    {
        return buffer.getInt(offset + REST_OF_HEADER_OFFSET, NETWORK);
    }

    public IcmpFlyweight type(final int type)
    {
        mutableBuffer.putByte(offset + TYPE_OFFSET, (byte)type);
        return this;
    }

    public IcmpFlyweight code(final int code)
    {
        mutableBuffer.putByte(offset + CODE_OFFSET, (byte)code);
        return this;
    }

    public IcmpFlyweight checksum(final int checksum)
    {
        mutableBuffer.putShort(offset + CHECKSUM_OFFSET, (short)checksum, NETWORK);
        return this;
    }

    public IcmpFlyweight restOfHeader(final int value)
    {
        mutableBuffer.putInt(offset + REST_OF_HEADER_OFFSET, value, NETWORK);
        return this;
    }
}
