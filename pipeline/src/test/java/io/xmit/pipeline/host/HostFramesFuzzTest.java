package io.xmit.pipeline.host;

import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Random;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.host.HostFrames.onesComplementSum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded fuzzing of {@link ArpFrames} and {@link IcmpFrames}: 200,000 seeded frames, the fixtures mutated
 * (bits flipped, bytes overwritten, truncated, extended), with the IPv4, ICMP and UDP checksums repaired half the
 * time so the checks behind them are reached, and pure random bytes. Each frame sits at the very end of its
 * array, so an over-read throws. Every frame must be classified without an exception, every answer written must
 * verify by the independent checksum, and every status must be reached. Rerun a failure with
 * {@code -Dtest.fuzz.seed=<seed>}.
 */
class HostFramesFuzzTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", 0x4057_F022L);
    private static final int CASES = 200_000;
    private static final int ETH = 14;
    private static final byte[][] FIXTURES = {
        HostFrames.hex(HostFrames.ARP_REQUEST), HostFrames.hex(HostFrames.ARP_REPLY),
        HostFrames.hex(HostFrames.PING_REQUEST), HostFrames.hex(HostFrames.UDP_TO_CLOSED_PORT),
        HostFrames.hex(HostFrames.PORT_UNREACHABLE) };
    private static final byte[] INTERESTING = {
        0x00, (byte)0xFF, 0x01, 0x02, 0x03, 0x04, 0x06, 0x08, 0x11, 0x20, 0x45, 0x46, 0x7F, (byte)0x80, (byte)0xE0,
        (byte)0xF0 };

    private final Random random = new Random(SEED);
    private final ArpFrames arp = new ArpFrames();
    private final IcmpFrames icmp = new IcmpFrames();
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[1024]);
    private final int[] arpCounts = new int[ArpStatus.values().length];
    private final int[] echoCounts = new int[IcmpVerdict.values().length];
    private final int[] unreachableCounts = new int[IcmpVerdict.values().length];

    private long failures;
    private String firstFailure;

    @Test
    void classifiesEveryMutatedAndRandomFrameAndEveryAnswerVerifies()
    {
        assertTrue(DirectBuffer.SHOULD_BOUNDS_CHECK, "Agrona bounds checks must be on for this test to mean anything");

        for (int i = 0; i < CASES; i++)
        {
            final byte[] frame = 0 == i % 10 ? randomBytes() : mutatedFixture();
            final int garbage = random.nextInt(8);
            final byte[] array = new byte[garbage + frame.length];
            random.nextBytes(array);
            System.arraycopy(frame, 0, array, garbage, frame.length);
            view.wrap(array);
            try
            {
                check(garbage, frame.length);
            }
            catch (final RuntimeException | AssertionError ex)
            {
                failures++;
                if (null == firstFailure)
                {
                    firstFailure = HexFormat.of().formatHex(frame) + ": " + ex;
                }
            }
        }

        final String context = "seed 0x" + Long.toHexString(SEED) + " (-Dtest.fuzz.seed=" + SEED + ")";
        assertEquals(0, failures, context + ": " + failures + " failures, first: " + firstFailure);
        final EnumSet<ArpStatus> unseenArp = EnumSet.noneOf(ArpStatus.class);
        for (final ArpStatus status : ArpStatus.values())
        {
            if (0 == arpCounts[status.ordinal()] && ArpStatus.INVALID_BOUNDS != status)
            {
                unseenArp.add(status);
            }
        }
        assertTrue(unseenArp.isEmpty(), context + ": ARP never reached " + unseenArp);
        final EnumSet<IcmpVerdict> unseenIcmp = EnumSet.noneOf(IcmpVerdict.class);
        for (final IcmpVerdict verdict : IcmpVerdict.values())
        {
            if (0 == echoCounts[verdict.ordinal()] + unreachableCounts[verdict.ordinal()])
            {
                unseenIcmp.add(verdict);
            }
        }
        assertTrue(unseenIcmp.isEmpty(), context + ": ICMP never reached " + unseenIcmp);
    }

    private void check(final int offset, final int length)
    {
        final ArpStatus status = arp.parse(view, offset, length);
        arpCounts[status.ordinal()]++;
        if (ArpStatus.REQUEST == status)
        {
            final int written = arp.writeReply(out, 0, HostFrames.OUR_MAC, HostFrames.OUR_IP);
            final int targetIp = arp.senderIp();
            assertEquals(ArpStatus.REPLY, arp.parse(out, 0, written));
            assertEquals(targetIp, arp.targetIp());
        }

        final IcmpVerdict echo = icmp.classifyEchoRequest(view, offset, length);
        echoCounts[echo.ordinal()]++;
        if (IcmpVerdict.ECHO_REQUEST == echo)
        {
            verifyAnswer(icmp.writeEchoReply(out, 0));
        }
        final IcmpVerdict unreachable = icmp.classifyPortUnreachable(view, offset, length);
        unreachableCounts[unreachable.ordinal()]++;
        if (IcmpVerdict.PORT_UNREACHABLE == unreachable)
        {
            verifyAnswer(icmp.writePortUnreachable(out, 0));
        }
    }

    /** An answer's IPv4 header and ICMP message must verify by the plain sum, whatever it answered. */
    private void verifyAnswer(final int length)
    {
        assertTrue(length > 0, "answer length " + length);
        final int l3 = 0x8100 == (out.getShort(12, ByteOrder.BIG_ENDIAN) & 0xFFFF) ? 18 : ETH;
        final int totalLength = out.getShort(l3 + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        assertEquals(length, l3 + totalLength);
        final boolean isError = IcmpFrames.TYPE_DESTINATION_UNREACHABLE == out.getByte(l3 + 20);
        assertTrue(!isError || totalLength <= IcmpFrames.MAX_ERROR_DATAGRAM_LENGTH, "error of " + totalLength);
        assertEquals(0xFFFF, onesComplementSum(out, l3, 20));
        assertEquals(0xFFFF, onesComplementSum(out, l3 + 20, totalLength - 20));
    }

    private byte[] randomBytes()
    {
        final byte[] bytes = new byte[random.nextInt(120)];
        random.nextBytes(bytes);
        if (bytes.length >= ETH && random.nextBoolean())
        {
            bytes[12] = 0 == random.nextInt(3) ? (byte)0x08 : (byte)0x81;
            bytes[13] = (byte)(random.nextBoolean() ? 0x06 : 0x00);
        }
        return bytes;
    }

    private byte[] mutatedFixture()
    {
        final byte[] fixture = FIXTURES[random.nextInt(FIXTURES.length)];
        final int length = switch (random.nextInt(6))
        {
            case 0 -> random.nextInt(fixture.length + 1);
            case 1 -> fixture.length + random.nextInt(40);
            default -> fixture.length;
        };
        final byte[] frame = new byte[length];
        System.arraycopy(fixture, 0, frame, 0, Math.min(length, fixture.length));
        final int mutations = random.nextInt(4);
        for (int m = 0; m < mutations && length > 0; m++)
        {
            final int index = random.nextInt(Math.min(length, 60));
            if (random.nextBoolean())
            {
                frame[index] ^= (byte)(1 << random.nextInt(8));
            }
            else
            {
                frame[index] = INTERESTING[random.nextInt(INTERESTING.length)];
            }
        }
        if (random.nextBoolean())
        {
            repairChecksums(frame);
        }
        return frame;
    }

    /** Recomputes the IPv4 header checksum and, for ICMP and UDP that fit, the L4 checksum of an untagged frame. */
    private static void repairChecksums(final byte[] frame)
    {
        if (frame.length < ETH + 20 || 0x08 != frame[12] || 0x00 != frame[13])
        {
            return;
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        final int headerLength = (frame[ETH] & 0x0F) * 4;
        if (headerLength < 20 || ETH + headerLength > frame.length)
        {
            return;
        }
        putSum(buffer, ETH + 10, ETH, headerLength);
        final int totalLength = buffer.getShort(ETH + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        final int l4 = ETH + headerLength;
        if (totalLength < headerLength + 8 || ETH + totalLength > frame.length)
        {
            return;
        }
        final int l4Length = totalLength - headerLength;
        if (1 == frame[ETH + 9])
        {
            putSum(buffer, l4 + 2, l4, l4Length);
        }
        else if (17 == frame[ETH + 9])
        {
            final int udpLength = buffer.getShort(l4 + 4, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            if (udpLength >= 8 && udpLength <= l4Length)
            {
                final UnsafeBuffer pseudo = new UnsafeBuffer(new byte[12 + udpLength]);
                pseudo.putBytes(0, frame, ETH + 12, 8);
                pseudo.putShort(8, (short)17, ByteOrder.BIG_ENDIAN);
                pseudo.putShort(10, (short)udpLength, ByteOrder.BIG_ENDIAN);
                buffer.putShort(l4 + 6, (short)0);
                pseudo.putBytes(12, frame, l4, udpLength);
                buffer.putShort(l4 + 6, (short)~onesComplementSum(pseudo, 0, pseudo.capacity()), ByteOrder.BIG_ENDIAN);
            }
        }
    }

    private static void putSum(final UnsafeBuffer buffer, final int checksumIndex, final int offset, final int length)
    {
        buffer.putShort(checksumIndex, (short)0);
        buffer.putShort(checksumIndex, (short)~onesComplementSum(buffer, offset, length), ByteOrder.BIG_ENDIAN);
    }
}
