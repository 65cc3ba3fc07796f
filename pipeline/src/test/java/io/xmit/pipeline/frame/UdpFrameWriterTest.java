package io.xmit.pipeline.frame;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import io.xmit.pipeline.flow.FlowKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.frame.HexFrames.hex;
import static io.xmit.pipeline.frame.HexFrames.zeros;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpFrameWriterTest
{
    private static final long DST_MAC = 0x0200_0000_0002L;
    private static final long SRC_MAC = 0x0200_0000_0001L;

    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();

    @Test
    void writesAKnownIpv4UdpFrameByteForByte()
    {
        // IPv4 header checksum b861 is the known value for this header; UDP 3dc4 summed by hand:
        // c0a8+0001+c0a8+00c7+0011+005f (pseudo) + 1388+2bcb+005f = 1c23a -> c23b -> ~ = 3dc4.
        final byte[] expected = hex("020000000002 020000000001 0800" +
            "4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7" +
            "1388 2bcb 005f 3dc4" + zeros(87));
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[expected.length]);

        final int length = writer.identification(0)
            .write(buffer, 0, DST_MAC, SRC_MAC, FlowKey.parse("udp:192.168.0.1:5000-192.168.0.199:11211"), 87);

        assertEquals(expected.length, length);
        assertArrayEquals(expected, buffer.byteArray());
    }

    @Test
    void writesAnIpv6UdpFrameWithVlanTagAndFlowLabel()
    {
        final FlowKey flow = FlowKey.parse("udp:[2001:db8::1]:5000-[2001:db8::2]:11211");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[100]);
        writer.vlan(3, 42).flowLabel(0x12345).trafficClass(0xB8).ttl(9);

        final int length = writer.write(buffer, 10, DST_MAC, SRC_MAC, flow, new UnsafeBuffer(hex("deadbeef")), 0, 4);

        assertEquals(18 + 40 + 8 + 4, length);
        final byte[] expectedHeaders = hex("020000000002 020000000001 8100 602a 86dd" +
            "6b81 2345 000c 11 09 20010db8000000000000000000000001 20010db8000000000000000000000002" +
            "1388 2bcb 000c");
        assertArrayEquals(expectedHeaders, Arrays.copyOfRange(buffer.byteArray(), 10, 10 + expectedHeaders.length));
        assertEquals(ParseStatus.OK, parser.parse(buffer, 10, length, parsed));
        assertEquals(flow, parsed.flowKey());
        assertEquals(42, parsed.vlanId());
        assertEquals(3, parsed.vlanPcp());
        assertEquals(0x12345, parsed.flowLabel());
        assertEquals(0, udpChecksumResidue(buffer, parsed));
    }

    @Test
    void writtenFramesParseBackAndTheirChecksumsVerify()
    {
        final long seed = 0x5EED_0001L;
        final Random random = new Random(seed);
        final byte[] payloadBytes = new byte[9000];
        random.nextBytes(payloadBytes);
        final UnsafeBuffer source = new UnsafeBuffer(payloadBytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[9200]);
        final FlowKey flow = new FlowKey();

        for (int i = 0; i < 20_000; i++)
        {
            final String context = "seed " + seed + " case " + i;
            final boolean ipv6 = random.nextBoolean();
            if (ipv6)
            {
                flow.setIpv6(FlowKey.PROTO_UDP, random.nextLong(), random.nextLong(), random.nextLong(),
                    random.nextLong(), random.nextInt(65536), random.nextInt(65536));
            }
            else
            {
                flow.setIpv4(FlowKey.PROTO_UDP, random.nextInt(), random.nextInt(), random.nextInt(65536),
                    random.nextInt(65536));
            }
            if (random.nextBoolean())
            {
                writer.vlan(random.nextInt(8), random.nextInt(4096));
            }
            else
            {
                writer.noVlan();
            }
            final int payloadLength = random.nextInt(4) == 0 ? random.nextInt(9000) : random.nextInt(1500);
            final int sourceOffset = random.nextInt(payloadBytes.length - payloadLength + 1);
            final int offset = random.nextInt(64);

            final int length =
                writer.write(buffer, offset, DST_MAC, SRC_MAC, flow, source, sourceOffset, payloadLength);

            assertEquals(writer.headerLength(flow.family()) + payloadLength, length, context);
            assertEquals(ParseStatus.OK, parser.parse(buffer, offset, length, parsed), context);
            assertEquals(flow, parsed.flowKey(), context);
            assertEquals(offset + writer.headerLength(flow.family()), parsed.payloadOffset(), context);
            assertEquals(payloadLength, parsed.payloadLength(), context);
            assertArrayEquals(
                Arrays.copyOfRange(payloadBytes, sourceOffset, sourceOffset + payloadLength),
                Arrays.copyOfRange(buffer.byteArray(), parsed.payloadOffset(), parsed.payloadOffset() + payloadLength),
                context);
            if (!ipv6)
            {
                final int headerResidue =
                    Checksums.checksum(buffer, parsed.l3Offset(), Ipv4Flyweight.MIN_HEADER_LENGTH);
                assertEquals(0, headerResidue, context);
                assertTrue(parsed.dontFragment(), context);
            }
            assertEquals(0, udpChecksumResidue(buffer, parsed), context);
        }
    }

    @Test
    void writesAroundAPayloadAlreadyInPlace()
    {
        final FlowKey flow = FlowKey.parse("udp:10.0.0.1:1-10.0.0.2:2");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int payloadOffset = 3 + writer.headerLength(FlowKey.FAMILY_IPV4);
        buffer.putBytes(payloadOffset, hex("0102030405"));

        final int length = writer.write(buffer, 3, DST_MAC, SRC_MAC, flow, 5);

        assertEquals(ParseStatus.OK, parser.parse(buffer, 3, length, parsed));
        assertEquals(payloadOffset, parsed.payloadOffset());
        assertEquals(5, parsed.payloadLength());
        assertEquals(0x01020304, buffer.getInt(payloadOffset, ByteOrder.BIG_ENDIAN));
        assertEquals(0, udpChecksumResidue(buffer, parsed));
    }

    @Test
    void sendsAComputedZeroUdpChecksumAsFfff()
    {
        final FlowKey flow = FlowKey.parse("udp:192.168.0.1:5000-192.168.0.199:11211");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final UdpFlyweight udp = new UdpFlyweight();
        final int udpOffset = EthernetFlyweight.HEADER_LENGTH + Ipv4Flyweight.MIN_HEADER_LENGTH;
        final int payloadOffset = writer.headerLength(FlowKey.FAMILY_IPV4);

        writer.write(buffer, 0, DST_MAC, SRC_MAC, flow, 2);
        final int checksumWithZeroWord = udp.wrap(buffer, udpOffset).checksum();
        // Adding the checksum itself as a payload word makes the sum 0xFFFF, so the computed checksum is 0.
        buffer.putShort(payloadOffset, (short)checksumWithZeroWord, ByteOrder.BIG_ENDIAN);
        writer.write(buffer, 0, DST_MAC, SRC_MAC, flow, 2);

        assertEquals(0xFFFF, udp.wrap(buffer, udpOffset).checksum());
        assertEquals(ParseStatus.OK, parser.parse(buffer, 0, payloadOffset + 2, parsed));
        assertEquals(0, udpChecksumResidue(buffer, parsed));
    }

    @Test
    void countsIpv4IdentificationUpAndWrapsAt16Bits()
    {
        final FlowKey flow = FlowKey.parse("udp:10.0.0.1:1-10.0.0.2:2");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
        writer.identification(0xFFFF);

        writer.write(buffer, 0, DST_MAC, SRC_MAC, flow, 0);
        assertEquals(0xFFFF, ipv4.wrap(buffer, EthernetFlyweight.HEADER_LENGTH).identification());
        writer.write(buffer, 0, DST_MAC, SRC_MAC, flow, 0);
        assertEquals(0, ipv4.wrap(buffer, EthernetFlyweight.HEADER_LENGTH).identification());
    }

    @Test
    void returnsErrorsAndWritesNothingForBadPerFrameArguments()
    {
        final FlowKey udp4 = FlowKey.parse("udp:10.0.0.1:1-10.0.0.2:2");
        final FlowKey udp6 = FlowKey.parse("udp:[::1]:1-[::2]:2");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[100]);
        final UnsafeBuffer source = new UnsafeBuffer(new byte[10]);

        assertEquals(UdpFrameWriter.NO_SPACE, writer.write(buffer, 0, DST_MAC, SRC_MAC, udp4, 59));
        assertEquals(UdpFrameWriter.NO_SPACE, writer.write(buffer, 1, DST_MAC, SRC_MAC, udp4, 58));
        assertEquals(UdpFrameWriter.NO_SPACE, writer.write(buffer, -1, DST_MAC, SRC_MAC, udp4, 0));
        assertEquals(UdpFrameWriter.NO_SPACE, writer.write(buffer, Integer.MAX_VALUE, DST_MAC, SRC_MAC, udp4, 0));
        assertEquals(UdpFrameWriter.UNSUPPORTED_FLOW,
            writer.write(buffer, 0, DST_MAC, SRC_MAC, FlowKey.parse("tcp:10.0.0.1:1-10.0.0.2:2"), 0));
        assertEquals(UdpFrameWriter.UNSUPPORTED_FLOW, writer.write(buffer, 0, DST_MAC, SRC_MAC, new FlowKey(), 0));
        assertEquals(UdpFrameWriter.PAYLOAD_TOO_LARGE, writer.write(buffer, 0, DST_MAC, SRC_MAC, udp4, -1));
        assertEquals(UdpFrameWriter.PAYLOAD_TOO_LARGE,
            writer.write(buffer, 0, DST_MAC, SRC_MAC, udp4, UdpFrameWriter.MAX_IPV4_PAYLOAD_LENGTH + 1));
        assertEquals(UdpFrameWriter.PAYLOAD_TOO_LARGE,
            writer.write(buffer, 0, DST_MAC, SRC_MAC, udp6, UdpFrameWriter.MAX_IPV6_PAYLOAD_LENGTH + 1));
        assertEquals(UdpFrameWriter.INVALID_PAYLOAD_SOURCE,
            writer.write(buffer, 0, DST_MAC, SRC_MAC, udp4, source, 1, 10));
        assertEquals(UdpFrameWriter.INVALID_PAYLOAD_SOURCE,
            writer.write(buffer, 0, DST_MAC, SRC_MAC, udp4, source, -1, 1));
        assertArrayEquals(new byte[100], buffer.byteArray());
    }

    @Test
    void writesTheLargestIpv4PayloadTheLengthFieldsAllow()
    {
        final FlowKey flow = FlowKey.parse("udp:10.0.0.1:1-10.0.0.2:2");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[70_000]);

        final int length = writer.write(buffer, 0, DST_MAC, SRC_MAC, flow, UdpFrameWriter.MAX_IPV4_PAYLOAD_LENGTH);

        assertEquals(14 + 0xFFFF, length);
        assertEquals(ParseStatus.OK, parser.parse(buffer, 0, length, parsed));
        assertEquals(0xFFFF, parsed.l3Length());
        assertEquals(0, udpChecksumResidue(buffer, parsed));
    }

    @Test
    void rejectsBadConfigurationNamingTheValue()
    {
        assertEquals("vlan pcp 8 is not in 0..7",
            assertThrows(IllegalArgumentException.class, () -> writer.vlan(8, 1)).getMessage());
        assertEquals("vlan id 4096 is not in 0..4095",
            assertThrows(IllegalArgumentException.class, () -> writer.vlan(0, 4096)).getMessage());
        assertEquals("ttl 256 is not in 0..255",
            assertThrows(IllegalArgumentException.class, () -> writer.ttl(256)).getMessage());
        assertEquals("traffic class -1 is not in 0..255",
            assertThrows(IllegalArgumentException.class, () -> writer.trafficClass(-1)).getMessage());
        assertEquals("flow label 1048576 is not in 0..0xFFFFF",
            assertThrows(IllegalArgumentException.class, () -> writer.flowLabel(1 << 20)).getMessage());
        assertEquals("identification 65536 is not in 0..65535",
            assertThrows(IllegalArgumentException.class, () -> writer.identification(65536)).getMessage());
    }

    /** The checksum recomputed over pseudo-header, UDP header and payload: 0 when the written one is right. */
    static int udpChecksumResidue(final UnsafeBuffer buffer, final ParsedFrame parsed)
    {
        final FlowKey flow = parsed.flowKey();
        final int udpLength = new UdpFlyweight().wrap(buffer, parsed.l4Offset()).length();
        final long pseudo = FlowKey.FAMILY_IPV4 == flow.family() ?
            Checksums.ipv4PseudoHeaderSum(flow.srcIpv4(), flow.dstIpv4(), FlowKey.PROTO_UDP, udpLength) :
            Checksums.ipv6PseudoHeaderSum(
                flow.srcHi(), flow.srcLo(), flow.dstHi(), flow.dstLo(), FlowKey.PROTO_UDP, udpLength);
        return Checksums.complement(Checksums.sum(buffer, parsed.l4Offset(), udpLength, pseudo));
    }
}
