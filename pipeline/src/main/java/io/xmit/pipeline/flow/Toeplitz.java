package io.xmit.pipeline.flow;

import java.util.HexFormat;

/**
 * The Toeplitz RSS hash a NIC computes to spread received flows over RX queues, with a configurable 40-byte
 * key (the Microsoft RSS specification; pinned by its verification vectors in {@code rss-vectors.md}).
 * <p>
 * Input, in network byte order: source address, destination address and, for the 4-tuple, source port and
 * destination port: 8 to 36 bytes. Input bit {@code i} selects the 32-bit key window starting
 * at key bit {@code i}; the hash is the XOR of the selected windows. A 40-byte key covers inputs up to
 * 36 bytes, the IPv6 4-tuple.
 * <p>
 * Table-driven: for every input byte position and byte value the XOR of its eight windows is precomputed
 * (36 x 256 ints), so a hash is one table load and XOR per input byte. Immutable and thread-safe;
 * {@link #hash} allocates nothing.
 */
public final class Toeplitz
{
    public static final int KEY_LENGTH = 40;

    /**
     * The Microsoft default RSS key, the one the verification vectors use, as 80 hex digits.
     */
    public static final String DEFAULT_KEY =
        "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa";

    private static final int MAX_INPUT = KEY_LENGTH - 4;
    private static final int IPV4_SRC = 0;
    private static final int IPV4_DST = 4;
    private static final int IPV4_PORTS = 8;
    private static final int IPV6_SRC = 0;
    private static final int IPV6_DST = 16;
    private static final int IPV6_PORTS = 32;

    private final byte[] key;
    private final int[] table;

    /**
     * @param key the 40-byte RSS key; copied.
     * @throws IllegalArgumentException if {@code key} is not 40 bytes long.
     */
    public Toeplitz(final byte[] key)
    {
        if (key.length != KEY_LENGTH)
        {
            throw new IllegalArgumentException(
                "Toeplitz RSS key is " + key.length + " bytes; it must be exactly " + KEY_LENGTH + " bytes");
        }
        this.key = key.clone();
        this.table = buildTable(this.key);
    }

    /**
     * A hasher with the key given as 80 hex digits, optionally colon-separated per byte as ethtool prints it
     * ({@code 6d:5a:56:...}).
     *
     * @throws IllegalArgumentException if the text is not 40 hex bytes.
     */
    public static Toeplitz ofHex(final String hexKey)
    {
        final String digits = hexKey.indexOf(':') >= 0 ? hexKey.replace(":", "") : hexKey;
        final byte[] bytes;
        try
        {
            bytes = HexFormat.of().parseHex(digits);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(
                "Toeplitz RSS key '" + hexKey + "' is not hex bytes; expected " + KEY_LENGTH + " bytes as " +
                (2 * KEY_LENGTH) + " hex digits, optionally colon-separated");
        }
        if (bytes.length != KEY_LENGTH)
        {
            throw new IllegalArgumentException("Toeplitz RSS key '" + hexKey + "' is " + bytes.length +
                " bytes; it must be exactly " + KEY_LENGTH + " bytes (" + (2 * KEY_LENGTH) + " hex digits)");
        }
        return new Toeplitz(bytes);
    }

    /**
     * A hasher with {@link #DEFAULT_KEY}.
     */
    public static Toeplitz withDefaultKey()
    {
        return ofHex(DEFAULT_KEY);
    }

    /**
     * @return a copy of the key.
     */
    public byte[] key()
    {
        return key.clone();
    }

    /**
     * The RSS hash of {@code key}'s addresses and, if {@code withPorts}, its ports. A key of no family hashes
     * no input and yields 0.
     */
    public int hash(final FlowKey key, final boolean withPorts)
    {
        final int family = key.family();
        int h = 0;
        if (family == FlowKey.FAMILY_IPV4)
        {
            h = xorInt(h, IPV4_SRC, key.srcIpv4());
            h = xorInt(h, IPV4_DST, key.dstIpv4());
            if (withPorts)
            {
                h = xorInt(h, IPV4_PORTS, (key.srcPort() << 16) | key.dstPort());
            }
        }
        else if (family == FlowKey.FAMILY_IPV6)
        {
            h = xorLong(h, IPV6_SRC, key.srcHi());
            h = xorLong(h, IPV6_SRC + 8, key.srcLo());
            h = xorLong(h, IPV6_DST, key.dstHi());
            h = xorLong(h, IPV6_DST + 8, key.dstLo());
            if (withPorts)
            {
                h = xorInt(h, IPV6_PORTS, (key.srcPort() << 16) | key.dstPort());
            }
        }
        return h;
    }

    private int xorInt(final int h, final int position, final int value)
    {
        final int base = position << 8;
        return h ^
            table[base + (value >>> 24)] ^
            table[base + 256 + ((value >>> 16) & 0xFF)] ^
            table[base + 512 + ((value >>> 8) & 0xFF)] ^
            table[base + 768 + (value & 0xFF)];
    }

    private int xorLong(final int h, final int position, final long value)
    {
        return xorInt(xorInt(h, position, (int)(value >>> 32)), position + 4, (int)value);
    }

    private static int[] buildTable(final byte[] key)
    {
        final int[] table = new int[MAX_INPUT * 256];
        for (int position = 0; position < MAX_INPUT; position++)
        {
            final int base = position * 256;
            for (int bit = 0; bit < 8; bit++)
            {
                final int window = window(key, position * 8 + bit);
                final int value = 0x80 >>> bit;
                for (int b = 0; b < 256; b++)
                {
                    if ((b & value) != 0)
                    {
                        table[base + b] ^= window;
                    }
                }
            }
        }
        return table;
    }

    // The 32 key bits from bit index `bit`, counting from the top bit of key[0]; positions < 36 stay in the key.
    private static int window(final byte[] key, final int bit)
    {
        final int index = bit >>> 3;
        long forty = 0;
        for (int i = 0; i < 5; i++)
        {
            forty = (forty << 8) | (key[index + i] & 0xFF);
        }
        return (int)(forty >>> (8 - (bit & 7)));
    }
}
