package io.xmit.pipeline.host;

import java.util.Arrays;

import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.host.HostFrames.ARP_REPLY;
import static io.xmit.pipeline.host.HostFrames.ARP_REQUEST;
import static io.xmit.pipeline.host.HostFrames.BASE;
import static io.xmit.pipeline.host.HostFrames.OUR_IP;
import static io.xmit.pipeline.host.HostFrames.OUR_MAC;
import static io.xmit.pipeline.host.HostFrames.PEER_IP;
import static io.xmit.pipeline.host.HostFrames.PEER_MAC;
import static io.xmit.pipeline.host.HostFrames.atEnd;
import static io.xmit.pipeline.host.HostFrames.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArpFramesTest
{
    private static final String REQUEST_BODY = ARP_REQUEST.substring(ARP_REQUEST.indexOf("0806") + 4);
    private static final String REPLY_BODY = ARP_REPLY.substring(ARP_REPLY.indexOf("0806") + 4);

    private final ArpFrames arp = new ArpFrames();
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[64]);

    private ArpStatus parse(final String hexFrame)
    {
        final byte[] bytes = hex(hexFrame);
        return arp.parse(atEnd(bytes), BASE, bytes.length);
    }

    @Test
    void parsesABroadcastRequestRfc826()
    {
        assertEquals(ArpStatus.REQUEST, parse(ARP_REQUEST));

        assertEquals(EthernetFlyweight.BROADCAST_MAC, arp.ethernetDestination());
        assertEquals(PEER_MAC, arp.ethernetSource());
        assertEquals(ArpFrames.NO_VLAN, arp.vlanTci());
        assertEquals(1, arp.operation());
        assertEquals(PEER_MAC, arp.senderMac());
        assertEquals(PEER_IP, arp.senderIp());
        assertEquals(0L, arp.targetMac());
        assertEquals(OUR_IP, arp.targetIp());
        assertFalse(arp.confirmsReachability());
        assertFalse(arp.isGratuitous());
    }

    @Test
    void repliesToARequestBySwappingTheFieldsRfc826()
    {
        parse(ARP_REQUEST);

        final int length = arp.writeReply(out, 7, OUR_MAC, OUR_IP);

        assertEquals(ArpFrames.FRAME_LENGTH, length);
        assertEquals(hex(ARP_REPLY).length, length);
        assertEquals(ARP_REPLY.replace(" ", ""), HostFrames.hex(out, 7, length));
    }

    @Test
    void aUnicastReplyConfirmsReachabilityAndABroadcastOneDoesNot()
    {
        assertEquals(ArpStatus.REPLY, parse(ARP_REPLY));
        assertTrue(arp.confirmsReachability());
        assertEquals(OUR_MAC, arp.senderMac());
        assertEquals(PEER_MAC, arp.targetMac());

        assertEquals(ArpStatus.REPLY, parse("ffffffffffff" + ARP_REPLY.substring(12)));
        assertFalse(arp.confirmsReachability());
    }

    @Test
    void writesABroadcastRequestWithAZeroTargetMac()
    {
        final int length = arp.writeRequest(
            out, 0, ArpFrames.NO_VLAN, EthernetFlyweight.BROADCAST_MAC, PEER_MAC, PEER_IP, OUR_IP);

        assertEquals(42, length);
        assertEquals(ARP_REQUEST.replace(" ", ""), HostFrames.hex(out, 0, length));
    }

    @Test
    void writesAUnicastProbeToTheCachedMac()
    {
        final int length = arp.writeRequest(out, 0, ArpFrames.NO_VLAN, OUR_MAC, PEER_MAC, PEER_IP, OUR_IP);

        assertEquals(
            "020000000001 020000000002 0806 0001 0800 06 04 0001 020000000002 0a000002 000000000000 0a000001"
                .replace(" ", ""),
            HostFrames.hex(out, 0, length));
    }

    @Test
    void keepsTheRequestsVlanTagInTheReply()
    {
        final String tagged = "ffffffffffff 020000000002 8100 a00c 0806" + REQUEST_BODY;
        assertEquals(ArpStatus.REQUEST, parse(tagged));
        assertEquals(0xA00C, arp.vlanTci());

        final int length = arp.writeReply(out, 0, OUR_MAC, OUR_IP);

        assertEquals(ArpFrames.TAGGED_FRAME_LENGTH, length);
        final String expected = "020000000002 020000000001 8100 a00c 0806" + REPLY_BODY;
        assertEquals(expected.replace(" ", ""), HostFrames.hex(out, 0, length));
    }

    @Test
    void ignoresEthernetPaddingAfterThe28Bytes()
    {
        assertEquals(ArpStatus.REQUEST, parse(ARP_REQUEST + "00".repeat(18)));
    }

    @Test
    void classifiesEveryTruncationAsTruncatedWithoutReadingPastTheEnd()
    {
        final byte[] full = hex(ARP_REQUEST);
        for (int length = 0; length < full.length; length++)
        {
            final byte[] cut = Arrays.copyOf(full, length);
            assertEquals(ArpStatus.TRUNCATED, arp.parse(atEnd(cut), BASE, length), "length " + length);
        }
        final byte[] tagged = hex("ffffffffffff 020000000002 8100 000c 0806" + REQUEST_BODY);
        for (int length = 0; length < tagged.length; length++)
        {
            final byte[] cut = Arrays.copyOf(tagged, length);
            assertEquals(ArpStatus.TRUNCATED, arp.parse(atEnd(cut), BASE, length), "tagged length " + length);
        }
    }

    @Test
    void rejectsOtherHardwareProtocolTypesAndAddressLengths()
    {
        final String tail = " 0001 020000000002 0a000002 000000000000 0a000001";
        final String eth = "ffffffffffff 020000000002 0806 ";
        assertEquals(ArpStatus.UNSUPPORTED_FORMAT, parse(eth + "0006 0800 06 04" + tail), "htype 6 (IEEE 802)");
        assertEquals(ArpStatus.UNSUPPORTED_FORMAT, parse(eth + "0001 86dd 06 04" + tail), "ptype IPv6");
        assertEquals(ArpStatus.UNSUPPORTED_FORMAT, parse(eth + "0001 0800 08 04" + tail), "hlen 8");
        assertEquals(ArpStatus.UNSUPPORTED_FORMAT, parse(eth + "0001 0800 06 10" + tail), "plen 16");
        assertEquals(ArpStatus.UNSUPPORTED_FORMAT, parse(eth + "0001 0800 00 00" + tail), "hlen 0, plen 0");
    }

    @Test
    void rejectsOperationsOtherThanRequestAndReply()
    {
        for (final String op : new String[] {"0000", "0003", "0004", "0008", "ffff"})
        {
            final String frame = "ffffffffffff 020000000002 0806 0001 0800 06 04 " + op +
                " 020000000002 0a000002 000000000000 0a000001";
            assertEquals(ArpStatus.BAD_OPERATION, parse(frame), "operation " + op);
        }
    }

    @Test
    void rejectsGroupSenderMacsAndMulticastOrBroadcastSenderAddresses()
    {
        final String eth = "ffffffffffff 020000000002 0806 0001 0800 06 04 0001 ";
        final String target = " 000000000000 0a000001";
        assertEquals(ArpStatus.BAD_SENDER, parse(eth + "ffffffffffff 0a000002" + target));
        assertEquals(ArpStatus.BAD_SENDER, parse(eth + "01005e000001 0a000002" + target));
        assertEquals(ArpStatus.BAD_SENDER, parse(eth + "020000000002 e0000001" + target));
        assertEquals(ArpStatus.BAD_SENDER, parse(eth + "020000000002 ffffffff" + target));
        assertTrue(ArpStatus.BAD_SENDER.isMalformed());
    }

    @Test
    void reportsOtherEthertypesAsNotArp()
    {
        assertEquals(ArpStatus.NOT_ARP, parse("ffffffffffff 020000000002 0800" + "00".repeat(28)));
        assertEquals(ArpStatus.NOT_ARP, parse("ffffffffffff 020000000002 8100 0001 86dd" + "00".repeat(28)));
    }

    @Test
    void acceptsAGratuitousRequestRfc5227()
    {
        final String announcement = "ffffffffffff 020000000002 0806 0001 0800 06 04 0001" +
            " 020000000002 0a000002 000000000000 0a000002";
        assertEquals(ArpStatus.REQUEST, parse(announcement));
        assertTrue(arp.isGratuitous());
    }

    @Test
    void refusesToReplyWithoutARequestAndToWriteOutsideTheBuffer()
    {
        parse(ARP_REPLY);
        assertEquals(ArpFrames.NOT_A_REQUEST, arp.writeReply(out, 0, OUR_MAC, OUR_IP));

        parse(ARP_REQUEST);
        assertEquals(ArpFrames.NO_SPACE, arp.writeReply(out, out.capacity() - 41, OUR_MAC, OUR_IP));
        assertEquals(ArpFrames.NO_SPACE, arp.writeReply(out, -1, OUR_MAC, OUR_IP));
        assertEquals(42, arp.writeReply(out, out.capacity() - 42, OUR_MAC, OUR_IP));
    }

    @Test
    void reportsRegionsOutsideTheBufferAsInvalidBounds()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        assertEquals(ArpStatus.INVALID_BOUNDS, arp.parse(buffer, -1, 42));
        assertEquals(ArpStatus.INVALID_BOUNDS, arp.parse(buffer, 0, -1));
        assertEquals(ArpStatus.INVALID_BOUNDS, arp.parse(buffer, 30, 42));
        assertEquals(ArpStatus.INVALID_BOUNDS, arp.parse(buffer, Integer.MAX_VALUE, Integer.MAX_VALUE));
    }
}
