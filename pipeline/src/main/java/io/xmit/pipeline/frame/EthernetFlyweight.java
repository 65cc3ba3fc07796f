package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an Ethernet II header with at most one 802.1Q tag. Fields are in network byte order; a MAC
 * address is a {@code long} holding its 48 bits, first octet most significant.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Destination MAC (6 bytes)                  |
 *  +                               +-------------------------------+
 *  |                               |                               |
 *  +-------------------------------+                               +
 *  |                      Source MAC (6 bytes)                     |
 *  +-------------------------------+-------------------------------+
 *  |   EtherType, or TPID 0x8100   |  untagged: L3 starts here     |
 *  +-------------------------------+-------------------------------+
 *  tagged:                         | PCP |D|        VLAN id        |
 *  +-------------------------------+-------------------------------+
 *  |        inner EtherType        |  tagged: L3 starts here       |
 *  +-------------------------------+-------------------------------+
 * </pre>
 */
public final class EthernetFlyweight extends Flyweight<EthernetFlyweight>
{
    public static final int DESTINATION_OFFSET = 0;
    public static final int SOURCE_OFFSET = 6;
    public static final int ETHERTYPE_OFFSET = 12;
    public static final int HEADER_LENGTH = 14;
    public static final int VLAN_TCI_OFFSET = 14;
    public static final int VLAN_ETHERTYPE_OFFSET = 16;
    public static final int VLAN_HEADER_LENGTH = 18;

    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int ETHERTYPE_VLAN = 0x8100;
    public static final int ETHERTYPE_IPV6 = 0x86DD;

    public static final int MAX_VLAN_ID = 0xFFF;
    public static final int MAX_VLAN_PCP = 7;
    public static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;
    public static final long BROADCAST_MAC = MAC_MASK;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    public long destination()
    {
        return getMac(buffer, offset + DESTINATION_OFFSET);
    }

    public long source()
    {
        return getMac(buffer, offset + SOURCE_OFFSET);
    }

    /** The EtherType of an untagged frame, or the TPID ({@link #ETHERTYPE_VLAN}) of a tagged one. */
    public int ethertype()
    {
        return buffer.getShort(offset + ETHERTYPE_OFFSET, NETWORK) & 0xFFFF;
    }

    /** The tag control information of a tagged frame: PCP (3 bits), DEI (1 bit), VLAN id (12 bits). */
    public int vlanTci()
    {
        return buffer.getShort(offset + VLAN_TCI_OFFSET, NETWORK) & 0xFFFF;
    }

    /** The EtherType after the tag of a tagged frame. */
    public int vlanEthertype()
    {
        return buffer.getShort(offset + VLAN_ETHERTYPE_OFFSET, NETWORK) & 0xFFFF;
    }

    public EthernetFlyweight destination(final long mac)
    {
        putMac(mutableBuffer, offset + DESTINATION_OFFSET, mac);
        return this;
    }

    public EthernetFlyweight source(final long mac)
    {
        putMac(mutableBuffer, offset + SOURCE_OFFSET, mac);
        return this;
    }

    /** Writes an untagged EtherType; the L3 header follows at {@link #HEADER_LENGTH}. */
    public EthernetFlyweight ethertype(final int ethertype)
    {
        mutableBuffer.putShort(offset + ETHERTYPE_OFFSET, (short)ethertype, NETWORK);
        return this;
    }

    /** Writes an 802.1Q tag and the inner EtherType; the L3 header follows at {@link #VLAN_HEADER_LENGTH}. */
    public EthernetFlyweight vlan(final int pcp, final int vlanId, final int ethertype)
    {
        mutableBuffer.putShort(offset + ETHERTYPE_OFFSET, (short)ETHERTYPE_VLAN, NETWORK);
        mutableBuffer.putShort(offset + VLAN_TCI_OFFSET, (short)vlanTci(pcp, vlanId), NETWORK);
        mutableBuffer.putShort(offset + VLAN_ETHERTYPE_OFFSET, (short)ethertype, NETWORK);
        return this;
    }

    public static int vlanTci(final int pcp, final int vlanId)
    {
        return ((pcp & MAX_VLAN_PCP) << 13) | (vlanId & MAX_VLAN_ID);
    }

    /** Reads a 48-bit MAC address at {@code index}. */
    public static long getMac(final DirectBuffer buffer, final int index)
    {
        final long high = buffer.getShort(index, NETWORK) & 0xFFFFL;
        final long low = buffer.getInt(index + 2, NETWORK) & 0xFFFF_FFFFL;
        return (high << 32) | low;
    }

    /** Writes the 48 low bits of {@code mac} at {@code index}. */
    public static void putMac(final MutableDirectBuffer buffer, final int index, final long mac)
    {
        buffer.putShort(index, (short)(mac >>> 32), NETWORK);
        buffer.putInt(index + 2, (int)mac, NETWORK);
    }
}
