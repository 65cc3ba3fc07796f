package io.xmit.pipeline.frame;

import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Random;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded fuzzing of {@link FrameParser}: valid frames of every kind truncated at every length, with bits
 * flipped and bytes overwritten, and pure random bytes. Each frame sits at the end of a byte array exactly
 * {@code offset + length} long, after random garbage, so an over-read hits Agrona's bounds check and throws.
 * Rerun a failure with {@code -Dtest.fuzz.seed=<seed>}.
 */
class FrameParserFuzzTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", 0x0F2A_3E5EEDL);
    private static final int MAX_GARBAGE = 16;
    private static final int MAX_RANDOM_LENGTH = 200;
    private static final byte[] INTERESTING = {
        0x00, (byte)0xFF, 0x01, 0x45, 0x46, 0x4F, 0x60, 0x08, 0x06, (byte)0x86, (byte)0xDD, (byte)0x81, 0x11,
        0x3A, 0x40, 0x50, (byte)0xF0, 0x7F, (byte)0x80 };
    private static final int[] ETHERTYPES = {
        EthernetFlyweight.ETHERTYPE_IPV4, EthernetFlyweight.ETHERTYPE_IPV6, EthernetFlyweight.ETHERTYPE_ARP,
        EthernetFlyweight.ETHERTYPE_VLAN };

    private final Random random = new Random(SEED);
    private final RandomFrames frames = new RandomFrames();
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final byte[] base = new byte[RandomFrames.MAX_FRAME_LENGTH];
    private final byte[] work = new byte[Math.max(RandomFrames.MAX_FRAME_LENGTH, MAX_RANDOM_LENGTH)];
    private final byte[][] arraysByTotalLength = new byte[work.length + MAX_GARBAGE + 1][];
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private final int[] statusCounts = new int[ParseStatus.values().length];

    private long cases;
    private long failures;
    private String firstFailure;

    @Test
    void survivesAMillionRandomAndMutatedFramesWithoutExceptionOrOverRead()
    {
        assertTrue(DirectBuffer.SHOULD_BOUNDS_CHECK, "Agrona bounds checks must be on for this test to mean anything");

        truncateEveryLength(4_000);
        mutate(450_000, false);
        mutate(350_000, true);
        pureRandom(100_000);
        randomAfterEthernetHeader(100_000);

        final String context = "seed 0x" + Long.toHexString(SEED) + " (-Dtest.fuzz.seed=" + SEED + ")";
        assertEquals(0, failures, context + ": " + failures + " failures in " + cases + " cases, first: " +
            firstFailure);
        assertTrue(cases >= 1_000_000, context + ": only " + cases + " cases");
        final EnumSet<ParseStatus> unseen = EnumSet.noneOf(ParseStatus.class);
        for (final ParseStatus status : ParseStatus.values())
        {
            if (0 == statusCounts[status.ordinal()] && ParseStatus.INVALID_BOUNDS != status)
            {
                unseen.add(status);
            }
        }
        assertTrue(unseen.isEmpty(), context + ": the fuzzer never reached " + unseen);
    }

    @Test
    void returnsInvalidBoundsForEveryRegionOutsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final int[] edges = { Integer.MIN_VALUE, -65536, -2, -1, 0, 1, 13, 14, 64, 127, 128, 129, 65535,
            Integer.MAX_VALUE - 1, Integer.MAX_VALUE };
        for (final int offset : edges)
        {
            for (final int length : edges)
            {
                final boolean inside = offset >= 0 && length >= 0 && (long)offset + length <= 128;
                final ParseStatus status = parser.parse(buffer, offset, length, parsed);
                assertEquals(inside, ParseStatus.INVALID_BOUNDS != status, "offset " + offset + " length " + length);
            }
        }
    }

    private void truncateEveryLength(final int baseFrames)
    {
        for (int i = 0; i < baseFrames; i++)
        {
            final int length = frames.write(random, i % RandomFrames.KINDS, base);
            for (int truncated = 0; truncated <= length; truncated++)
            {
                check(base, truncated, "truncated");
            }
        }
    }

    private void mutate(final int count, final boolean overwrite)
    {
        for (int i = 0; i < count; i++)
        {
            final int length = frames.write(random, random.nextInt(RandomFrames.KINDS), base);
            System.arraycopy(base, 0, work, 0, length);
            final int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++)
            {
                // Most damage lands in the headers, where the parser makes its decisions.
                final int position = random.nextInt(4) != 0 ?
                    random.nextInt(Math.min(length, 80)) : random.nextInt(length);
                if (overwrite)
                {
                    work[position] = random.nextBoolean() ?
                        INTERESTING[random.nextInt(INTERESTING.length)] : (byte)random.nextInt();
                }
                else
                {
                    work[position] ^= (byte)(1 << random.nextInt(8));
                }
            }
            final int finalLength = random.nextInt(5) == 0 ? random.nextInt(length + 1) : length;
            check(work, finalLength, overwrite ? "overwritten" : "bit-flipped");
        }
    }

    private void pureRandom(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int length = random.nextInt(MAX_RANDOM_LENGTH + 1);
            for (int j = 0; j < length; j++)
            {
                work[j] = (byte)random.nextInt();
            }
            check(work, length, "random");
        }
    }

    private void randomAfterEthernetHeader(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int length = random.nextInt(MAX_RANDOM_LENGTH + 1);
            for (int j = 0; j < length; j++)
            {
                work[j] = (byte)random.nextInt();
            }
            if (length >= EthernetFlyweight.HEADER_LENGTH)
            {
                final int ethertype = ETHERTYPES[random.nextInt(ETHERTYPES.length)];
                work[12] = (byte)(ethertype >>> 8);
                work[13] = (byte)ethertype;
                if (length > 18 && ethertype == EthernetFlyweight.ETHERTYPE_VLAN)
                {
                    final int inner = ETHERTYPES[random.nextInt(ETHERTYPES.length - 1)];
                    work[16] = (byte)(inner >>> 8);
                    work[17] = (byte)inner;
                }
            }
            check(work, length, "random after Ethernet header");
        }
    }

    private void check(final byte[] frame, final int length, final String kind)
    {
        cases++;
        final int offset = 1 + random.nextInt(MAX_GARBAGE);
        final int total = offset + length;
        byte[] bytes = arraysByTotalLength[total];
        if (null == bytes)
        {
            bytes = new byte[total];
            arraysByTotalLength[total] = bytes;
        }
        for (int i = 0; i < offset; i++)
        {
            bytes[i] = (byte)random.nextInt();
        }
        System.arraycopy(frame, 0, bytes, offset, length);
        view.wrap(bytes);

        try
        {
            final ParseStatus status = parser.parse(view, offset, length, parsed);
            statusCounts[status.ordinal()]++;
            if (ParseStatus.OK == status)
            {
                checkOffsetsInsideFrame(offset, length, kind, bytes);
            }
        }
        catch (final RuntimeException ex)
        {
            fail(kind + " frame threw " + ex, offset, length, bytes);
        }
    }

    private void checkOffsetsInsideFrame(final int offset, final int length, final String kind, final byte[] bytes)
    {
        final int end = offset + length;
        final boolean l4Inside = ParsedFrame.NONE == parsed.l4Offset() ||
            (parsed.l4Offset() > parsed.l3Offset() && parsed.l4Offset() <= parsed.payloadOffset());
        if (parsed.l3Offset() < offset + EthernetFlyweight.HEADER_LENGTH ||
            parsed.l3Offset() + parsed.l3Length() > end ||
            parsed.payloadOffset() < parsed.l3Offset() ||
            parsed.payloadLength() < 0 ||
            parsed.payloadOffset() + parsed.payloadLength() > end ||
            !l4Inside)
        {
            fail(kind + " frame parsed OK with offsets outside it: l3 " + parsed.l3Offset() + "+" +
                parsed.l3Length() + " l4 " + parsed.l4Offset() + " payload " + parsed.payloadOffset() + "+" +
                parsed.payloadLength(), offset, length, bytes);
        }
    }

    private void fail(final String what, final int offset, final int length, final byte[] bytes)
    {
        failures++;
        if (null == firstFailure)
        {
            firstFailure = "case " + cases + ", " + what + ", offset " + offset + " length " + length + ": " +
                HexFormat.of().formatHex(bytes, offset, offset + length);
        }
    }
}
