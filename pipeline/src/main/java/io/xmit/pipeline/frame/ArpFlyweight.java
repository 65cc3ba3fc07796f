package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

/**
 * Flyweight over an ARP packet for Ethernet and IPv4 (RFC 826), network byte order. MACs are 48-bit
 * {@code long}s, IPv4 addresses network-order {@code int}s.
 * <pre>
 *  offset  size  field
 *   0      2     hardware type (1 = Ethernet)
 *   2      2     protocol type (0x0800 = IPv4)
 *   4      1     hardware address length (6)
 *   5      1     protocol address length (4)
 *   6      2     operation (1 = request, 2 = reply)
 *   8      6     sender MAC
 *  14      4     sender IPv4
 *  18      6     target MAC
 *  24      4     target IPv4
 *  28            end
 * </pre>
 */
public final class ArpFlyweight extends Flyweight<ArpFlyweight>
{
    public static final int HARDWARE_TYPE_OFFSET = 0;
    public static final int PROTOCOL_TYPE_OFFSET = 2;
    public static final int HARDWARE_LENGTH_OFFSET = 4;
    public static final int PROTOCOL_LENGTH_OFFSET = 5;
    public static final int OPERATION_OFFSET = 6;
    public static final int SENDER_MAC_OFFSET = 8;
    public static final int SENDER_IP_OFFSET = 14;
    public static final int TARGET_MAC_OFFSET = 18;
    public static final int TARGET_IP_OFFSET = 24;
    public static final int LENGTH = 28;

    public static final int HARDWARE_TYPE_ETHERNET = 1;
    public static final int HARDWARE_LENGTH_ETHERNET = 6;
    public static final int PROTOCOL_LENGTH_IPV4 = 4;
    public static final int OPERATION_REQUEST = 1;
    public static final int OPERATION_REPLY = 2;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public int hardwareType()
    {
        return buffer.getShort(offset + HARDWARE_TYPE_OFFSET, NETWORK) & 0xFFFF;
    }

    public int protocolType()
    {
        return buffer.getShort(offset + PROTOCOL_TYPE_OFFSET, NETWORK) & 0xFFFF;
    }

    public int hardwareLength()
    {
        return buffer.getByte(offset + HARDWARE_LENGTH_OFFSET) & 0xFF;
    }

    public int protocolLength()
    {
        return buffer.getByte(offset + PROTOCOL_LENGTH_OFFSET) & 0xFF;
    }

    public int operation()
    {
        return buffer.getShort(offset + OPERATION_OFFSET, NETWORK) & 0xFFFF;
    }

    public long senderMac()
    {
        return EthernetFlyweight.getMac(buffer, offset + SENDER_MAC_OFFSET);
    }

    public int senderIp()
    {
        return buffer.getInt(offset + SENDER_IP_OFFSET, NETWORK);
    }

    public long targetMac()
    {
        return EthernetFlyweight.getMac(buffer, offset + TARGET_MAC_OFFSET);
    }

    public int targetIp()
    {
        return buffer.getInt(offset + TARGET_IP_OFFSET, NETWORK);
    }

    /** Writes the fixed Ethernet/IPv4 format fields: hardware and protocol types and lengths. */
    public ArpFlyweight ethernetIpv4()
    {
        mutableBuffer.putShort(offset + HARDWARE_TYPE_OFFSET, (short)HARDWARE_TYPE_ETHERNET, NETWORK);
        mutableBuffer.putShort(offset + PROTOCOL_TYPE_OFFSET, (short)EthernetFlyweight.ETHERTYPE_IPV4, NETWORK);
        mutableBuffer.putByte(offset + HARDWARE_LENGTH_OFFSET, (byte)HARDWARE_LENGTH_ETHERNET);
        mutableBuffer.putByte(offset + PROTOCOL_LENGTH_OFFSET, (byte)PROTOCOL_LENGTH_IPV4);
        return this;
    }

    public ArpFlyweight operation(final int operation)
    {
        mutableBuffer.putShort(offset + OPERATION_OFFSET, (short)operation, NETWORK);
        return this;
    }

    public ArpFlyweight sender(final long mac, final int ip)
    {
        EthernetFlyweight.putMac(mutableBuffer, offset + SENDER_MAC_OFFSET, mac);
        mutableBuffer.putInt(offset + SENDER_IP_OFFSET, ip, NETWORK);
        return this;
    }

    public ArpFlyweight target(final long mac, final int ip)
    {
        EthernetFlyweight.putMac(mutableBuffer, offset + TARGET_MAC_OFFSET, mac);
        mutableBuffer.putInt(offset + TARGET_IP_OFFSET, ip, NETWORK);
        return this;
    }
}
