package io.xmit.pipeline.xps;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class XpsMaskTest
{
    private static String rejection(final String text, final int nbits)
    {
        return assertThrows(IllegalArgumentException.class, () -> XpsMask.parseCpus(text, nbits, 3)).getMessage();
    }

    @Test
    void parsesKernelFormWithLeadingZeros()
    {
        // kernel-semantics §2.5: comma-separated 32-bit words, most significant first.
        final XpsMask mask = XpsMask.parseCpus("00000000,00000003", 64, 0);
        assertEquals(XpsMask.of(64, 0, 1), mask);
        assertEquals("00000000,00000003", mask.toString());
    }

    @Test
    void parsesShortWordsAndASingleWord()
    {
        assertEquals(XpsMask.of(64, 0, 1), XpsMask.parseCpus("3", 64, 0));
        assertEquals(XpsMask.of(64, 0, 1, 32), XpsMask.parseCpus("1,3", 64, 0));
        assertEquals(XpsMask.of(4, 0, 1, 2, 3), XpsMask.parseCpus("f", 4, 0));
        assertEquals(XpsMask.of(4, 0, 1, 2, 3), XpsMask.parseCpus("0f", 4, 0));
        assertEquals(XpsMask.of(8, 1, 3, 5, 7), XpsMask.parseCpus("AA", 8, 0));
        assertEquals(XpsMask.empty(8), XpsMask.parseCpus("0", 8, 0));
    }

    @Test
    void ignoresOneTrailingNewlineAsEchoWrites()
    {
        assertEquals(XpsMask.of(4, 1), XpsMask.parseCpus("2\n", 4, 0));
    }

    @Test
    void printsCeilNbitsOverFourDigitsInThirtyTwoBitGroupsLikePercentStarPb()
    {
        assertEquals("f", XpsMask.of(4, 0, 1, 2, 3).toString());
        assertEquals("0", XpsMask.empty(1).toString());
        assertEquals("03", XpsMask.of(6, 0, 1).toString());
        assertEquals("00000001", XpsMask.of(32, 0).toString());
        assertEquals("1,00000000", XpsMask.of(33, 32).toString());
        assertEquals("80,00000003", XpsMask.of(40, 0, 1, 39).toString());
        assertEquals("80000000,00000000", XpsMask.of(64, 63).toString());
        assertEquals("0,00000000,00000004", XpsMask.of(65, 2).toString());
        assertEquals("ff,ffffffff", XpsMask.parseCpus("FF,FFFFFFFF", 40, 0).toString());
    }

    @Test
    void printParseRoundTripsForManySizes()
    {
        final SplittableRandom random = new SplittableRandom(3);
        for (final int nbits : new int[]{1, 2, 4, 6, 31, 32, 33, 40, 63, 64, 65, 96, 100, 128, 1000, 8192})
        {
            for (int trial = 0; trial < 20; trial++)
            {
                final int count = random.nextInt(Math.min(nbits, 10) + 1);
                final int[] bits = new int[count];
                for (int i = 0; i < count; i++)
                {
                    bits[i] = random.nextInt(nbits);
                }
                final XpsMask mask = XpsMask.of(nbits, bits);
                final String text = mask.toString();
                assertEquals((nbits + 3) / 4, text.replace(",", "").length(), text);
                assertEquals(mask, XpsMask.parseCpus(text, nbits, 0), text);
                assertEquals(text, XpsMask.parseCpus(text, nbits, 0).toString());
            }
        }
    }

    @Test
    void queriesBits()
    {
        final XpsMask mask = XpsMask.of(130, 0, 64, 129);
        assertTrue(mask.get(0));
        assertTrue(mask.get(129));
        assertFalse(mask.get(1));
        assertFalse(mask.get(130));
        assertFalse(mask.get(-1));
        assertEquals(3, mask.cardinality());
        assertEquals(0, mask.nextSetBit(0));
        assertEquals(64, mask.nextSetBit(1));
        assertEquals(129, mask.nextSetBit(65));
        assertEquals(-1, mask.nextSetBit(130));
        assertFalse(mask.isEmpty());
        assertTrue(XpsMask.empty(130).isEmpty());
        assertEquals(-1, XpsMask.empty(130).nextSetBit(0));
    }

    @Test
    void rejectsSetBitBeyondTheIdsNamingMaskQueueAndLimit()
    {
        assertEquals("xps_cpus mask '1,00000000,00000000' for tx-3: bit 64 is beyond 4 CPUs",
            rejection("1,00000000,00000000", 4));
        assertEquals("xps_cpus mask '10' for tx-3: bit 4 is beyond 4 CPUs", rejection("10", 4));
        assertEquals("xps_rxqs mask '4' for tx-1: bit 2 is beyond 2 RX queues",
            assertThrows(IllegalArgumentException.class, () -> XpsMask.parseRxqs("4", 2, 1)).getMessage());
    }

    @Test
    void rejectsMoreWordsThanTheIdsTake()
    {
        // bitmap_parse: -EOVERFLOW for more chunks than BITS_TO_U32(nbits), even all-zero ones.
        assertEquals("xps_cpus mask '0,00000000,00000001' for tx-3: has 3 words; 64 CPUs take at most 2",
            rejection("0,00000000,00000001", 64));
        assertEquals("xps_cpus mask '0,1' for tx-3: has 2 words; 4 CPUs take at most 1", rejection("0,1", 4));
    }

    @Test
    void rejectsAMissingMaskNamingItsOwner()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> XpsMask.parseCpus(null, 4, 3));
        assertEquals("xps_cpus mask for tx-3 is missing (null)", ex.getMessage());
    }

    @Test
    void rejectsEmptyTextAndEmptyWords()
    {
        assertEquals("xps_cpus mask '' for tx-3: is empty; write 0 to clear it", rejection("", 64));
        assertEquals("xps_cpus mask '3,,4' for tx-3: word 2 is empty", rejection("3,,4", 96));
        assertEquals("xps_cpus mask ',1' for tx-3: word 1 is empty", rejection(",1", 64));
        assertEquals("xps_cpus mask '1,' for tx-3: word 2 is empty", rejection("1,", 64));
    }

    @Test
    void rejectsNonHexAndOverlongWords()
    {
        assertEquals("xps_cpus mask '0x3' for tx-3: 'x' in word '0x3' is not a hex digit", rejection("0x3", 64));
        assertEquals("xps_cpus mask 'g' for tx-3: 'g' in word 'g' is not a hex digit", rejection("g", 64));
        assertEquals("xps_cpus mask ' 3' for tx-3: ' ' in word ' 3' is not a hex digit", rejection(" 3", 64));
        assertEquals("xps_cpus mask '100000000' for tx-3: word '100000000' has more than 8 hex digits (32 bits)",
            rejection("100000000", 64));
    }

    @Test
    void rejectsBadSizesAndBits()
    {
        assertEquals("mask size 0 bits: must be at least 1",
            assertThrows(IllegalArgumentException.class, () -> XpsMask.empty(0)).getMessage());
        assertEquals("bit 4 is outside a mask of 4 bits (0..3)",
            assertThrows(IllegalArgumentException.class, () -> XpsMask.of(4, 4)).getMessage());
    }
}
