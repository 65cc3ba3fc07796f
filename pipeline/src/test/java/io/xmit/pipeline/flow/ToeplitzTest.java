package io.xmit.pipeline.flow;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ToeplitzTest
{
    private final Toeplitz toeplitz = Toeplitz.withDefaultKey();

    /**
     * rss-vectors.md, rows as in the table: destination, source, 2-tuple hash, 4-tuple hash. The hash input
     * is source address, destination address, source port, destination port.
     */
    private static final Object[][] IPV4 =
    {
        {"161.142.100.80:1766", "66.9.149.187:2794", 0x323e8fc2, 0x51ccc178},
        {"65.69.140.83:4739", "199.92.111.2:14230", 0xd718262a, 0xc626b0ea},
        {"12.22.207.184:38024", "24.19.198.95:12898", 0xd2d0a5de, 0x5c2b394a},
        {"209.142.163.6:2217", "38.27.205.30:48228", 0x82989176, 0xafc7327f},
        {"202.188.127.2:1303", "153.39.163.191:44251", 0x5d1809c5, 0x10e828a2},
    };

    private static final Object[][] IPV6 =
    {
        {"[3ffe:2501:200:3::1]:1766", "[3ffe:2501:200:1fff::7]:2794", 0x2cc18cd5, 0x40207d3d},
        {"[ff02::1]:4739", "[3ffe:501:8::260:97ff:fe40:efab]:14230", 0x0f0c461c, 0xdde51bbf},
        {"[fe80::200:f8ff:fe21:67cf]:38024", "[3ffe:1900:4545:3:200:f8ff:fe21:67cf]:44251", 0x4b61e985, 0x02d1feef},
    };

    private static FlowKey flow(final Object[] row)
    {
        return FlowKey.parse("tcp:" + row[1] + "-" + row[0]);
    }

    /** The textbook bit-serial Toeplitz over a byte string: the reference the table-driven form must match. */
    private static int reference(final byte[] key, final byte[] input)
    {
        int result = 0;
        long window = 0;
        for (int i = 0; i < 8; i++)
        {
            window = (window << 8) | (key[i] & 0xFF);
        }
        int nextKeyByte = 8;
        for (final byte b : input)
        {
            for (int bit = 7; bit >= 0; bit--)
            {
                if ((b & (1 << bit)) != 0)
                {
                    result ^= (int)(window >>> 32);
                }
                window <<= 1;
            }
            window |= nextKeyByte < key.length ? key[nextKeyByte] & 0xFF : 0;
            nextKeyByte++;
        }
        return result;
    }

    private static byte[] input(final FlowKey key, final boolean withPorts)
    {
        final ByteBuffer b = ByteBuffer.allocate(36);
        if (key.family() == FlowKey.FAMILY_IPV4)
        {
            b.putInt(key.srcIpv4()).putInt(key.dstIpv4());
        }
        else
        {
            b.putLong(key.srcHi()).putLong(key.srcLo()).putLong(key.dstHi()).putLong(key.dstLo());
        }
        if (withPorts)
        {
            b.putShort((short)key.srcPort()).putShort((short)key.dstPort());
        }
        final byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void matchesEveryIpv4VerificationVector()
    {
        for (final Object[] row : IPV4)
        {
            final FlowKey key = flow(row);
            assertEquals((int)row[2], toeplitz.hash(key, false), "2-tuple " + row[1] + " -> " + row[0]);
            assertEquals((int)row[3], toeplitz.hash(key, true), "4-tuple " + row[1] + " -> " + row[0]);
        }
    }

    @Test
    void matchesEveryIpv6VerificationVector()
    {
        for (final Object[] row : IPV6)
        {
            final FlowKey key = flow(row);
            assertEquals((int)row[2], toeplitz.hash(key, false), "2-tuple " + row[1] + " -> " + row[0]);
            assertEquals((int)row[3], toeplitz.hash(key, true), "4-tuple " + row[1] + " -> " + row[0]);
        }
    }

    @Test
    void bitwiseReferenceAlsoMatchesTheVectors()
    {
        final byte[] key = HexFormat.of().parseHex(Toeplitz.DEFAULT_KEY);
        for (final Object[] row : IPV4)
        {
            assertEquals((int)row[2], reference(key, input(flow(row), false)));
            assertEquals((int)row[3], reference(key, input(flow(row), true)));
        }
        for (final Object[] row : IPV6)
        {
            assertEquals((int)row[2], reference(key, input(flow(row), false)));
            assertEquals((int)row[3], reference(key, input(flow(row), true)));
        }
    }

    @Test
    void tableDrivenFormMatchesBitwiseReferenceForRandomKeysAndFlows()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final FlowKey flow = new FlowKey();
        for (int trial = 0; trial < 200; trial++)
        {
            final byte[] key = new byte[Toeplitz.KEY_LENGTH];
            random.nextBytes(key);
            final Toeplitz t = new Toeplitz(key);
            flow.setIpv4(FlowKey.PROTO_UDP, random.nextInt(), random.nextInt(), random.nextInt(), random.nextInt());
            assertEquals(reference(key, input(flow, false)), t.hash(flow, false));
            assertEquals(reference(key, input(flow, true)), t.hash(flow, true));
            flow.setIpv6(FlowKey.PROTO_TCP, random.nextLong(), random.nextLong(), random.nextLong(),
                random.nextLong(), random.nextInt(), random.nextInt());
            assertEquals(reference(key, input(flow, false)), t.hash(flow, false));
            assertEquals(reference(key, input(flow, true)), t.hash(flow, true));
        }
    }

    @Test
    void hexKeyAcceptsEthtoolColonForm()
    {
        final StringBuilder colons = new StringBuilder();
        for (int i = 0; i < Toeplitz.DEFAULT_KEY.length(); i += 2)
        {
            colons.append(i == 0 ? "" : ":").append(Toeplitz.DEFAULT_KEY, i, i + 2);
        }
        assertArrayEquals(toeplitz.key(), Toeplitz.ofHex(colons.toString()).key());
    }

    @Test
    void keyIsCopiedOnTheWayInAndOut()
    {
        final byte[] key = HexFormat.of().parseHex(Toeplitz.DEFAULT_KEY);
        final Toeplitz t = new Toeplitz(key);
        key[0] = 0;
        t.key()[1] = 0;
        assertEquals(0x51ccc178, t.hash(flow(IPV4[0]), true));
    }

    @Test
    void rejectsKeyOfWrongLengthNamingTheLength()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new Toeplitz(new byte[52]));
        assertEquals("Toeplitz RSS key is 52 bytes; it must be exactly 40 bytes", ex.getMessage());
        final IllegalArgumentException hex = assertThrows(IllegalArgumentException.class, () -> Toeplitz.ofHex("6d5a"));
        assertEquals("Toeplitz RSS key '6d5a' is 2 bytes; it must be exactly 40 bytes (80 hex digits)",
            hex.getMessage());
    }

    @Test
    void rejectsNonHexKeyNamingTheText()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Toeplitz.ofHex("zz"));
        assertTrue(ex.getMessage().startsWith("Toeplitz RSS key 'zz' is not hex bytes"), ex.getMessage());
    }

    @Test
    void keyOfNoFamilyHashesToZero()
    {
        assertEquals(0, toeplitz.hash(new FlowKey(), true));
    }
}
