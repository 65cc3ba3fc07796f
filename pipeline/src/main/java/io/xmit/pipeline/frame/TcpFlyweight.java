package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over the parts of a TCP header (RFC 9293) the pipeline classifies by: the ports, and the data
 * offset that says where the payload starts. Network byte order.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |          Source Port          |        Destination Port       |  0
 *  +-------------------------------+-------------------------------+
 *  |                  Sequence number (not read)                   |  4
 *  +---------------------------------------------------------------+
 *  |               Acknowledgment number (not read)                |  8
 *  +-------+-------+-----------------------------------------------+
 *  | Offset|  Rsv  | flags, window, checksum, urgent (not read)    | 12
 *  +-------+-------+-----------------------------------------------+
 *  |     options (data offset 6..15), then payload                 | 20
 * </pre>
 */
public final class TcpFlyweight extends Flyweight<TcpFlyweight>
{
    public static final int SOURCE_PORT_OFFSET = 0;
    public static final int DESTINATION_PORT_OFFSET = 2;
    public static final int DATA_OFFSET_OFFSET = 12;
    public static final int MIN_HEADER_LENGTH = 20;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int sourcePort()
    {
        return buffer.getShort(offset + SOURCE_PORT_OFFSET, NETWORK) & 0xFFFF;
    }

    public int destinationPort()
    {
        return buffer.getShort(offset + DESTINATION_PORT_OFFSET, NETWORK) & 0xFFFF;
    }

    /** Header length in bytes, from the data offset nibble (32-bit words). */
    public int headerLength()
    {
        return (buffer.getByte(offset + DATA_OFFSET_OFFSET) & 0xF0) >>> 2;
    }

    public TcpFlyweight sourcePort(final int port)
    {
        mutableBuffer.putShort(offset + SOURCE_PORT_OFFSET, (short)port, NETWORK);
        return this;
    }

    public TcpFlyweight destinationPort(final int port)
    {
        mutableBuffer.putShort(offset + DESTINATION_PORT_OFFSET, (short)port, NETWORK);
        return this;
    }

    /** Writes the data offset for a header of {@code headerLength} bytes (a multiple of 4 in 20..60). */
    public TcpFlyweight headerLength(final int headerLength)
    {
        final int index = offset + DATA_OFFSET_OFFSET;
        final int reserved = mutableBuffer.getByte(index) & 0x0F;
        mutableBuffer.putByte(index, (byte)(((headerLength >>> 2) << 4) | reserved));
        return this;
    }
}
