package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over a UDP header (RFC 768), network byte order.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |          Source Port          |        Destination Port       |  0
 *  +-------------------------------+-------------------------------+
 *  |   Length (header + payload)   |            Checksum           |  4
 *  +-------------------------------+-------------------------------+
 *  |     payload                                                   |  8
 * </pre>
 */
public final class UdpFlyweight extends Flyweight<UdpFlyweight>
{
    public static final int SOURCE_PORT_OFFSET = 0;
    public static final int DESTINATION_PORT_OFFSET = 2;
    public static final int LENGTH_OFFSET = 4;
    public static final int CHECKSUM_OFFSET = 6;
    public static final int HEADER_LENGTH = 8;
    public static final int MAX_LENGTH = 0xFFFF;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int sourcePort()
    {
        return buffer.getShort(offset + SOURCE_PORT_OFFSET, NETWORK) & 0xFFFF;
    }

    public int destinationPort()
    {
        return buffer.getShort(offset + DESTINATION_PORT_OFFSET, NETWORK) & 0xFFFF;
    }

    public int length()
    {
        return buffer.getShort(offset + LENGTH_OFFSET, NETWORK) & 0xFFFF;
    }

    public int checksum()
    {
        return buffer.getShort(offset + CHECKSUM_OFFSET, NETWORK) & 0xFFFF;
    }

    public UdpFlyweight sourcePort(final int port)
    {
        mutableBuffer.putShort(offset + SOURCE_PORT_OFFSET, (short)port, NETWORK);
        return this;
    }

    public UdpFlyweight destinationPort(final int port)
    {
        mutableBuffer.putShort(offset + DESTINATION_PORT_OFFSET, (short)port, NETWORK);
        return this;
    }

    public UdpFlyweight length(final int length)
    {
        mutableBuffer.putShort(offset + LENGTH_OFFSET, (short)length, NETWORK);
        return this;
    }

    public UdpFlyweight checksum(final int checksum)
    {
        mutableBuffer.putShort(offset + CHECKSUM_OFFSET, (short)checksum, NETWORK);
        return this;
    }

    /**
     * Computes the checksum over the pseudo-header sum and {@link #length()} bytes of header and payload, and
     * writes it. A computed 0 is sent as 0xFFFF, because 0 on the wire means "no checksum" (RFC 768).
     *
     * @param pseudoHeaderSum from {@link Checksums#ipv4PseudoHeaderSum} or {@link Checksums#ipv6PseudoHeaderSum}.
     */
    public UdpFlyweight updateChecksum(final long pseudoHeaderSum)
    {
        checksum(0);
        final int checksum = Checksums.complement(Checksums.sum(mutableBuffer, offset, length(), pseudoHeaderSum));
        return checksum(0 == checksum ? 0xFFFF : checksum);
    }
}
