package io.xmit.pipeline.host;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.host.HostFrames.BASE;
import static io.xmit.pipeline.host.HostFrames.PING_REPLY;
import static io.xmit.pipeline.host.HostFrames.PING_REQUEST;
import static io.xmit.pipeline.host.HostFrames.PORT_UNREACHABLE;
import static io.xmit.pipeline.host.HostFrames.UDP_TO_CLOSED_PORT;
import static io.xmit.pipeline.host.HostFrames.atEnd;
import static io.xmit.pipeline.host.HostFrames.hex;
import static io.xmit.pipeline.host.HostFrames.onesComplementSum;
import static org.junit.jupiter.api.Assertions.assertEquals;

class IcmpFramesTest
{
    private static final int ETH = 14;

    private final IcmpFrames icmp = new IcmpFrames();
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[700]);

    private IcmpVerdict echo(final String hexFrame)
    {
        final byte[] bytes = hex(hexFrame);
        return icmp.classifyEchoRequest(atEnd(bytes), BASE, bytes.length);
    }

    private IcmpVerdict echo(final byte[] bytes)
    {
        return icmp.classifyEchoRequest(atEnd(bytes), BASE, bytes.length);
    }

    private IcmpVerdict unreachable(final byte[] bytes)
    {
        return icmp.classifyPortUnreachable(atEnd(bytes), BASE, bytes.length);
    }

    private IcmpVerdict unreachable(final String hexFrame)
    {
        return unreachable(hex(hexFrame));
    }

    /** Sets bytes at {@code index} of a hex frame (index in bytes). */
    private static byte[] with(final String hexFrame, final int index, final String hexBytes)
    {
        final byte[] bytes = hex(hexFrame);
        final byte[] patch = hex(hexBytes);
        System.arraycopy(patch, 0, bytes, index, patch.length);
        return bytes;
    }

    /** Rewrites the IPv4 header checksum of an untagged frame, the plain way, so only the tested field is off. */
    private static byte[] fixIpChecksum(final byte[] frame)
    {
        frame[ETH + 10] = 0;
        frame[ETH + 11] = 0;
        final int sum = onesComplementSum(new UnsafeBuffer(frame), ETH, 20);
        frame[ETH + 10] = (byte)(~sum >>> 8);
        frame[ETH + 11] = (byte)~sum;
        return frame;
    }

    private static String hexOf(final byte[] bytes)
    {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void theFixturesCarryValidChecksumsByAnIndependentSum()
    {
        final UnsafeBuffer request = new UnsafeBuffer(hex(PING_REQUEST));
        assertEquals(0xFFFF, onesComplementSum(request, ETH, 20));
        assertEquals(0xFFFF, onesComplementSum(request, ETH + 20, 64));
        final UnsafeBuffer error = new UnsafeBuffer(hex(PORT_UNREACHABLE));
        assertEquals(0xFFFF, onesComplementSum(error, ETH, 20));
        assertEquals(0xFFFF, onesComplementSum(error, ETH + 20, error.capacity() - ETH - 20));
    }

    @Test
    void answersAPingWithTheSameIdSequenceAndDataRfc792()
    {
        assertEquals(IcmpVerdict.ECHO_REQUEST, echo(PING_REQUEST));

        final int length = icmp.writeEchoReply(out, 9);

        assertEquals(98, length);
        assertEquals(PING_REPLY.replace(" ", ""), HostFrames.hex(out, 9, length));
        assertEquals(0xFFFF, onesComplementSum(out, 9 + ETH, 20), "IPv4 header checksum");
        assertEquals(0xFFFF, onesComplementSum(out, 9 + ETH + 20, 64), "ICMP checksum");
    }

    @Test
    void eachReplyTakesTheNextIdentification()
    {
        echo(PING_REQUEST);
        icmp.writeEchoReply(out, 0);
        icmp.writeEchoReply(out, 0);

        assertEquals(1, out.getShort(ETH + 4, ByteOrder.BIG_ENDIAN) & 0xFFFF);
        assertEquals(0xFFFF, onesComplementSum(out, ETH, 20));
    }

    @Test
    void answersATaggedPingOnTheSameVlanAndDropsRequestOptions()
    {
        // IHL 6 with a 4-byte option (NOP NOP NOP EOL); total length 88.
        final String request = "020000000001 020000000002 8100 2005 0800" +
            "4600 0058 4ba1 4000 4001 0000 0a000002 0a000001 01010100" +
            PING_REQUEST.replace(" ", "").substring(2 * (ETH + 20));
        final byte[] bytes = hex(request);
        bytes[18 + 10] = 0;
        bytes[18 + 11] = 0;
        final int sum = onesComplementSum(new UnsafeBuffer(bytes), 18, 24);
        bytes[18 + 10] = (byte)(~sum >>> 8);
        bytes[18 + 11] = (byte)~sum;
        assertEquals(IcmpVerdict.ECHO_REQUEST, icmp.classifyEchoRequest(atEnd(bytes), BASE, bytes.length));

        final int length = icmp.writeEchoReply(out, 0);

        final String reply = PING_REPLY.replace(" ", "");
        assertEquals(reply.substring(0, 24) + "81002005" + reply.substring(24), HostFrames.hex(out, 0, length));
    }

    @Test
    void classifiesAPingTheRxPathAlreadyParsed()
    {
        final byte[] bytes = hex(PING_REQUEST);
        final UnsafeBuffer buffer = atEnd(bytes);
        final ParsedFrame parsed = new ParsedFrame();
        final ParseStatus status = new FrameParser().parse(buffer, BASE, bytes.length, parsed);

        assertEquals(IcmpVerdict.ECHO_REQUEST, icmp.classifyEchoRequest(buffer, BASE, status, parsed));
        assertEquals(PING_REPLY.replace(" ", ""), HostFrames.hex(out, 0, icmp.writeEchoReply(out, 0)));
    }

    @Test
    void dropsPingsWithABadIpHeaderChecksumRfc1122Section3212()
    {
        assertEquals(IcmpVerdict.BAD_IP_CHECKSUM, echo(with(PING_REQUEST, ETH + 11, "06")));
        assertEquals(IcmpFrames.NOT_CLASSIFIED, icmp.writeEchoReply(out, 0));
    }

    @Test
    void dropsPingsWithABadIcmpChecksumRfc792()
    {
        assertEquals(IcmpVerdict.BAD_ICMP_CHECKSUM, echo(with(PING_REQUEST, ETH + 22, "4008")));
        assertEquals(IcmpVerdict.BAD_ICMP_CHECKSUM, echo(with(PING_REQUEST, ETH + 40, "ff")));
    }

    @Test
    void doesNotAnswerEchoRepliesOrOtherIcmp()
    {
        // An echo reply with a valid checksum: the fixture reply seen from the other side.
        final byte[] reply = with(PING_REPLY, 0, "020000000001020000000002");
        assertEquals(IcmpVerdict.NOT_ECHO_REQUEST, echo(reply));
        assertEquals(IcmpVerdict.WRONG_PROTOCOL, echo(UDP_TO_CLOSED_PORT));
        assertEquals(IcmpVerdict.NOT_IPV4, echo(HostFrames.ARP_REQUEST));
    }

    @Test
    void ignoresPingsToBroadcastOrMulticastLikeIcmpEchoIgnoreBroadcasts()
    {
        assertEquals(IcmpVerdict.BROADCAST_DESTINATION, echo(with(PING_REQUEST, 0, "ffffffffffff")));
        final byte[] toMulticast = with(PING_REQUEST, ETH + 16, "e0000001");
        assertEquals(IcmpVerdict.BROADCAST_DESTINATION, echo(fixIpChecksum(toMulticast)));
    }

    @Test
    void doesNotReassembleSoFragmentedPingsAreNotAnswered()
    {
        assertEquals(IcmpVerdict.FRAGMENT, echo(fixIpChecksum(with(PING_REQUEST, ETH + 6, "2000"))));
    }

    @Test
    void classifiesEveryTruncationWithoutAnExceptionOrAnAnswer()
    {
        final byte[] full = hex(PING_REQUEST);
        for (int length = 0; length < full.length; length++)
        {
            final byte[] cut = Arrays.copyOf(full, length);
            assertEquals(IcmpVerdict.MALFORMED, echo(cut), "echo cut at " + length);
            assertEquals(IcmpVerdict.MALFORMED, unreachable(cut), "unreachable cut at " + length);
        }
    }

    @Test
    void reportsAUdpDatagramToAClosedPortQuotingTheWholeDatagramRfc792Rfc1122Section4131()
    {
        assertEquals(IcmpVerdict.PORT_UNREACHABLE, unreachable(UDP_TO_CLOSED_PORT));

        final int length = icmp.writePortUnreachable(out, 3);

        assertEquals(ETH + 20 + 8 + 38, length);
        assertEquals(PORT_UNREACHABLE.replace(" ", ""), HostFrames.hex(out, 3, length));
        assertEquals(0xFFFF, onesComplementSum(out, 3 + ETH, 20));
        assertEquals(0xFFFF, onesComplementSum(out, 3 + ETH + 20, 8 + 38));
    }

    @Test
    void quotesAtMost548BytesSoTheErrorIsAt576BytesOfIpRfc1812Section4323()
    {
        final byte[] big = bigDatagram(1000);
        assertEquals(IcmpVerdict.PORT_UNREACHABLE, unreachable(big));

        final int length = icmp.writePortUnreachable(out, 0);

        assertEquals(ETH + 576, length);
        assertEquals(576, out.getShort(ETH + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF);
        final byte[] quoted = new byte[IcmpFrames.MAX_QUOTED_LENGTH];
        out.getBytes(ETH + 28, quoted);
        assertEquals(hexOf(Arrays.copyOfRange(big, ETH, ETH + 548)), hexOf(quoted));
        assertEquals(0xFFFF, onesComplementSum(out, ETH + 20, 556));
    }

    /** A UDP datagram of {@code udpPayload} bytes with valid checksums, from the peer to us. */
    private static byte[] bigDatagram(final int udpPayload)
    {
        final byte[] frame = new byte[ETH + 28 + udpPayload];
        final byte[] head = hex(UDP_TO_CLOSED_PORT);
        System.arraycopy(head, 0, frame, 0, ETH + 28);
        for (int i = 0; i < udpPayload; i++)
        {
            frame[ETH + 28 + i] = (byte)(i * 7);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        buffer.putShort(ETH + 2, (short)(28 + udpPayload), ByteOrder.BIG_ENDIAN);
        buffer.putShort(ETH + 20 + 4, (short)(8 + udpPayload), ByteOrder.BIG_ENDIAN);
        buffer.putShort(ETH + 20 + 6, (short)0);
        fixIpChecksum(frame);
        // Pseudo-header: addresses, protocol 17, UDP length; then the UDP header and data.
        final UnsafeBuffer pseudo = new UnsafeBuffer(new byte[12 + 8 + udpPayload]);
        pseudo.putBytes(0, frame, ETH + 12, 8);
        pseudo.putShort(8, (short)17, ByteOrder.BIG_ENDIAN);
        pseudo.putShort(10, (short)(8 + udpPayload), ByteOrder.BIG_ENDIAN);
        pseudo.putBytes(12, frame, ETH + 20, 8 + udpPayload);
        final int sum = onesComplementSum(pseudo, 0, pseudo.capacity());
        buffer.putShort(ETH + 26, (short)~sum, ByteOrder.BIG_ENDIAN);
        return frame;
    }

    @Test
    void neverReportsADatagramSentToBroadcastOrMulticastRfc1122Section322()
    {
        assertEquals(IcmpVerdict.BROADCAST_DESTINATION, unreachable(with(UDP_TO_CLOSED_PORT, 0, "ffffffffffff")));
        assertEquals(IcmpVerdict.BROADCAST_DESTINATION, unreachable(with(UDP_TO_CLOSED_PORT, 0, "01005e000001")));
        for (final String destination : new String[] {"ffffffff", "e0000001", "efffffff"})
        {
            final byte[] frame = fixIpChecksum(with(UDP_TO_CLOSED_PORT, ETH + 16, destination));
            fixUdpChecksumToNone(frame);
            assertEquals(IcmpVerdict.BROADCAST_DESTINATION, unreachable(frame), destination);
        }
        assertEquals(IcmpFrames.NOT_CLASSIFIED, icmp.writePortUnreachable(out, 0));
    }

    private static void fixUdpChecksumToNone(final byte[] frame)
    {
        frame[ETH + 26] = 0;
        frame[ETH + 27] = 0;
    }

    @Test
    void neverReportsToASourceThatIsNotOneHostRfc1122Section322()
    {
        for (final String source : new String[] {"00000000", "00010203", "7f000001", "e0000001", "f0000001",
            "ffffffff"})
        {
            final byte[] frame = fixIpChecksum(with(UDP_TO_CLOSED_PORT, ETH + 12, source));
            fixUdpChecksumToNone(frame);
            assertEquals(IcmpVerdict.BAD_SOURCE, unreachable(frame), source);
        }
        assertEquals(IcmpVerdict.BAD_SOURCE, unreachable(with(UDP_TO_CLOSED_PORT, 6, "030000000002")));
    }

    @Test
    void neverReportsAFragmentFirstOrNotRfc1122Section322()
    {
        assertEquals(IcmpVerdict.FRAGMENT, unreachable(fixIpChecksum(with(UDP_TO_CLOSED_PORT, ETH + 6, "00b9"))),
            "non-first fragment");
        assertEquals(IcmpVerdict.FRAGMENT, unreachable(fixIpChecksum(with(UDP_TO_CLOSED_PORT, ETH + 6, "2000"))),
            "first fragment, not reassembled");
    }

    @Test
    void neverAnswersAnIcmpErrorWithAnIcmpErrorRfc1122Section322()
    {
        assertEquals(IcmpVerdict.WRONG_PROTOCOL, unreachable(PORT_UNREACHABLE));
        assertEquals(IcmpVerdict.WRONG_PROTOCOL, unreachable(PING_REQUEST));
    }

    @Test
    void dropsDatagramsWithABadUdpChecksumButAcceptsNone()
    {
        assertEquals(IcmpVerdict.BAD_UDP_CHECKSUM, unreachable(with(UDP_TO_CLOSED_PORT, ETH + 27, "a5")));
        assertEquals(IcmpVerdict.BAD_UDP_CHECKSUM, unreachable(with(UDP_TO_CLOSED_PORT, ETH + 30, "48")));
        assertEquals(IcmpVerdict.PORT_UNREACHABLE, unreachable(with(UDP_TO_CLOSED_PORT, ETH + 26, "0000")));
        assertEquals(IcmpVerdict.BAD_IP_CHECKSUM, unreachable(with(UDP_TO_CLOSED_PORT, ETH + 11, "82")));
    }

    @Test
    void refusesToWriteOutsideTheBuffer()
    {
        unreachable(UDP_TO_CLOSED_PORT);
        final UnsafeBuffer small = new UnsafeBuffer(new byte[80]);
        assertEquals(IcmpFrames.NO_SPACE, icmp.writePortUnreachable(small, 80 - 65));
        assertEquals(IcmpFrames.NO_SPACE, icmp.writePortUnreachable(small, -1));
        assertEquals(80, icmp.writePortUnreachable(small, 0));

        echo(PING_REQUEST);
        assertEquals(IcmpFrames.NO_SPACE, icmp.writeEchoReply(small, 0));
    }
}
