package io.xmit.pipeline.flow;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HashingTest
{
    @Test
    void reciprocalScaleUsesTopBitsOfUnsignedProduct()
    {
        // kernel-semantics §3.3: (v * n) >> 32 with v read as u32.
        assertEquals(0, Hashing.reciprocalScale(0, 8));
        assertEquals(0, Hashing.reciprocalScale(0x1FFF_FFFF, 8));
        assertEquals(1, Hashing.reciprocalScale(0x2000_0000, 8));
        assertEquals(3, Hashing.reciprocalScale(0x7FFF_FFFF, 8));
        assertEquals(4, Hashing.reciprocalScale(0x8000_0000, 8));
        assertEquals(7, Hashing.reciprocalScale(0xFFFF_FFFF, 8));
        assertEquals(1, Hashing.reciprocalScale(0xAAAA_AAAA, 3));
        assertEquals(2, Hashing.reciprocalScale(0xAAAA_AAAB, 3));
        assertEquals(65534, Hashing.reciprocalScale(-1, 65535));
    }

    @Test
    void reciprocalScaleOfOneOrZeroRangeIsZero()
    {
        assertEquals(0, Hashing.reciprocalScale(-1, 1));
        assertEquals(0, Hashing.reciprocalScale(-1, 0));
    }

    @Test
    void reciprocalScaleStaysInRangeAndSpreadsEvenly()
    {
        final int n = 5;
        final int[] counts = new int[n];
        final int steps = 1 << 16;
        for (int i = 0; i < steps; i++)
        {
            final int bucket = Hashing.reciprocalScale(i << 16, n);
            counts[bucket]++;
        }
        for (final int count : counts)
        {
            assertEquals(steps / (double)n, count, 1.0);
        }
    }
}
