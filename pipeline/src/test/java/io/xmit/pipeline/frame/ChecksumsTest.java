package io.xmit.pipeline.frame;

import java.nio.ByteOrder;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.frame.HexFrames.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ChecksumsTest
{
    @Test
    void sumsTheRfc1071ExampleToDdf2()
    {
        // RFC 1071 §3: 0001 + f203 + f4f5 + f6f7 = 2ddf0, folded ddf2, checksum 220d. The unfolded sum differs
        // (it adds 32-bit words), only its fold is defined.
        final UnsafeBuffer buffer = new UnsafeBuffer(hex("0001 f203 f4f5 f6f7"));

        assertEquals(0xDDF2, Checksums.fold(Checksums.sum(buffer, 0, 8, 0)));
        assertEquals(0x220D, Checksums.checksum(buffer, 0, 8));
    }

    @Test
    void computesB861ForAKnownIpv4Header()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(hex("4500 0073 0000 4000 4011 0000 c0a8 0001 c0a8 00c7"));

        assertEquals(0xB861, Checksums.checksum(buffer, 0, 20));
    }

    @Test
    void verifiesAHeaderCarryingItsChecksumToZero()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(hex("4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7"));

        assertEquals(0, Checksums.checksum(buffer, 0, 20));
    }

    @Test
    void padsAnOddLastByteWithZero()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(hex("ff 01 02"));

        assertEquals(0xFF00L, Checksums.sum(buffer, 0, 1, 0));
        assertEquals(0x0100L, Checksums.sum(buffer, 1, 1, 0));
        assertEquals(0x0102L, Checksums.sum(buffer, 1, 2, 0));
    }

    @Test
    void matchesANaiveSixteenBitSumForEveryLengthAndOffset()
    {
        final long seed = 0xC0FFEEL;
        final Random random = new Random(seed);
        final byte[] bytes = new byte[300];
        random.nextBytes(bytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);

        for (int offset = 0; offset < 9; offset++)
        {
            for (int length = 0; length + offset <= bytes.length; length++)
            {
                assertEquals(naiveChecksum(bytes, offset, length), Checksums.checksum(buffer, offset, length),
                    "seed " + seed + " offset " + offset + " length " + length);
            }
        }
    }

    @Test
    void chainsPartialSumsOfEvenLengthRegions()
    {
        final Random random = new Random(7);
        final byte[] bytes = new byte[101];
        random.nextBytes(bytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);

        final long first = Checksums.sum(buffer, 0, 12, 0);
        final long chained = Checksums.sum(buffer, 38, 63, Checksums.sum(buffer, 12, 26, first));

        assertEquals(Checksums.checksum(buffer, 0, 101), Checksums.complement(chained));
    }

    @Test
    void ipv4PseudoHeaderSumEqualsTheSumOfItsTwelveBytes()
    {
        final UnsafeBuffer pseudo = new UnsafeBuffer(hex("c0a80001 c0a800c7 00 11 005f"));

        assertEquals(
            Checksums.fold(Checksums.sum(pseudo, 0, 12, 0)),
            Checksums.fold(Checksums.ipv4PseudoHeaderSum(0xC0A80001, 0xC0A800C7, 17, 0x5F)));
    }

    @Test
    void ipv6PseudoHeaderSumEqualsTheSumOfItsFortyBytes()
    {
        final UnsafeBuffer pseudo = new UnsafeBuffer(new byte[40]);
        final long srcHi = 0xFE80_0000_0000_0000L;
        final long srcLo = 0x0211_22FF_FE33_4455L;
        final long dstHi = 0xFF02_0000_0000_0000L;
        final long dstLo = 0x0000_0000_0000_FFFFL;
        pseudo.putLong(0, srcHi, ByteOrder.BIG_ENDIAN);
        pseudo.putLong(8, srcLo, ByteOrder.BIG_ENDIAN);
        pseudo.putLong(16, dstHi, ByteOrder.BIG_ENDIAN);
        pseudo.putLong(24, dstLo, ByteOrder.BIG_ENDIAN);
        pseudo.putInt(32, 1234, ByteOrder.BIG_ENDIAN);
        pseudo.putByte(39, (byte)17);

        assertEquals(
            Checksums.fold(Checksums.sum(pseudo, 0, 40, 0)),
            Checksums.fold(Checksums.ipv6PseudoHeaderSum(srcHi, srcLo, dstHi, dstLo, 17, 1234)));
    }

    @Test
    void foldsWithEndAroundCarry()
    {
        assertEquals(0xFFFF, Checksums.fold(0xFFFFL));
        assertEquals(0x0001, Checksums.fold(0x10000L));
        assertEquals(0xFFFF, Checksums.fold(0x1FFFEL));
        assertEquals(0x0000, Checksums.fold(0));
        assertEquals(0xFFFF, Checksums.complement(0));
    }

    private static int naiveChecksum(final byte[] bytes, final int offset, final int length)
    {
        int sum = 0;
        for (int i = 0; i < length; i += 2)
        {
            final int high = bytes[offset + i] & 0xFF;
            final int low = i + 1 < length ? bytes[offset + i + 1] & 0xFF : 0;
            sum += (high << 8) | low;
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }
}
