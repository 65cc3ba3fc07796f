package io.xmit.pipeline.frame;

import java.util.EnumSet;
import java.util.stream.Stream;

import io.xmit.pipeline.flow.FlowKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.xmit.pipeline.frame.HexFrames.BASE;
import static io.xmit.pipeline.frame.HexFrames.atEnd;
import static io.xmit.pipeline.frame.HexFrames.hex;
import static io.xmit.pipeline.frame.HexFrames.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class FrameParserTest
{
    private static final String MACS = "020000000002 020000000001";
    private static final String ETH_IPV4 = MACS + "0800";
    private static final String ETH_IPV6 = MACS + "86dd";
    private static final String ETH_ARP = "ffffffffffff 020000000001 0806";
    private static final String V4_ADDRS = "c0a80001 c0a800c7";
    private static final String V6_ADDRS = "20010db8000000000000000000000001 20010db8000000000000000000000002";
    private static final String TCP_80_TO_50000 = "0050 c350 00000001 00000000 5012 ffff 0000 0000";
    private static final String ARP_BODY = "0001 0800 06 04 0001 020000000001 c0a80001 000000000000 c0a800c7";

    private static final int SRC_V4 = 0xC0A8_0001;
    private static final int DST_V4 = 0xC0A8_00C7;

    private final FrameParser parser = new FrameParser();
    private final ParsedFrame frame = new ParsedFrame();

    private ParseStatus parse(final String hexFrame)
    {
        final byte[] bytes = hex(hexFrame);
        return parser.parse(atEnd(bytes), BASE, bytes.length, frame);
    }

    @Test
    void parsesIpv4UdpAndIgnoresEthernetPaddingBeyondTheIpTotalLength()
    {
        final String ip = "45 00 0020 1234 4000 40 11 0000" + V4_ADDRS;
        final String udp = "1388 2bcb 000c 0000 deadbeef";

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + udp + zeros(14)));

        assertEquals(FlowKey.parse("udp:192.168.0.1:5000-192.168.0.199:11211"), frame.flowKey());
        assertEquals(EthernetFlyweight.ETHERTYPE_IPV4, frame.ethertype());
        assertFalse(frame.vlanPresent());
        assertEquals(BASE + 14, frame.l3Offset());
        assertEquals(32, frame.l3Length());
        assertEquals(BASE + 34, frame.l4Offset());
        assertEquals(BASE + 42, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
        assertEquals(FlowKey.PROTO_UDP, frame.ipProtocol());
        assertTrue(frame.dontFragment());
        assertFalse(frame.isFragment());
        assertEquals(ParsedFrame.NONE, frame.icmpType());
        assertEquals(ParsedFrame.NONE, frame.arpOperation());
    }

    @Test
    void parsesVlanTaggedIpv4Tcp()
    {
        final String ip = "45 00 0028 0001 0000 40 06 0000 0a000001 0a000002";

        assertEquals(ParseStatus.OK, parse(MACS + "8100 a064 0800" + ip + TCP_80_TO_50000));

        assertTrue(frame.vlanPresent());
        assertEquals(100, frame.vlanId());
        assertEquals(5, frame.vlanPcp());
        assertEquals(0xA064, frame.vlanTci());
        assertEquals(EthernetFlyweight.ETHERTYPE_IPV4, frame.ethertype());
        assertEquals(BASE + 18, frame.l3Offset());
        assertEquals(BASE + 38, frame.l4Offset());
        assertEquals(BASE + 58, frame.payloadOffset());
        assertEquals(0, frame.payloadLength());
        assertEquals(FlowKey.parse("tcp:10.0.0.1:80-10.0.0.2:50000"), frame.flowKey());
    }

    @Test
    void parsesIpv4WithOptionsAndStartsL4AfterThem()
    {
        final String ip = "46 00 0024 0000 0000 40 11 0000" + V4_ADDRS + "01010100";

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "0035 d431 000c 0000 cafebabe"));

        assertEquals(BASE + 14 + 24, frame.l4Offset());
        assertEquals(BASE + 14 + 32, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
        assertEquals(FlowKey.parse("udp:192.168.0.1:53-192.168.0.199:54321"), frame.flowKey());
    }

    @Test
    void parsesIpv4WithMaximumIhlOf15()
    {
        final String ip = "4f 00 0044 0000 0000 40 11 0000" + V4_ADDRS + "01".repeat(40);

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "0035 d431 0008 0000"));

        assertEquals(BASE + 14 + 60, frame.l4Offset());
        assertEquals(0, frame.payloadLength());
        assertEquals(FlowKey.parse("udp:192.168.0.1:53-192.168.0.199:54321"), frame.flowKey());
    }

    @Test
    void parsesIpv6UdpWithFlowLabel()
    {
        final String ip = "6001 2345 000c 11 40" + V6_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV6 + ip + "1388 2bcb 000c 0000 deadbeef"));

        assertEquals(FlowKey.parse("udp:[2001:db8::1]:5000-[2001:db8::2]:11211"), frame.flowKey());
        assertEquals(EthernetFlyweight.ETHERTYPE_IPV6, frame.ethertype());
        assertEquals(0x12345, frame.flowLabel());
        assertEquals(52, frame.l3Length());
        assertEquals(BASE + 54, frame.l4Offset());
        assertEquals(BASE + 62, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
        assertFalse(frame.isFragment());
    }

    @Test
    void parsesIpv6Tcp()
    {
        final String ip = "6000 0000 0018 06 40" + V6_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV6 + ip + TCP_80_TO_50000 + "01020304"));

        assertEquals(FlowKey.parse("tcp:[2001:db8::1]:80-[2001:db8::2]:50000"), frame.flowKey());
        assertEquals(BASE + 74, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
    }

    @Test
    void parsesIcmpEchoRequestWithPortsZero()
    {
        final String ip = "45 00 0024 abcd 0000 40 01 0000" + V4_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "08 00 f7fe 0001 0001 0102030405060708"));

        assertEquals(new FlowKey().setIpv4(FlowKey.PROTO_ICMP, SRC_V4, DST_V4, 0, 0), frame.flowKey());
        assertEquals(IcmpFlyweight.ICMP_ECHO_REQUEST, frame.icmpType());
        assertEquals(0, frame.icmpCode());
        assertEquals(BASE + 42, frame.payloadOffset());
        assertEquals(8, frame.payloadLength());
    }

    @Test
    void parsesIcmpv6EchoRequest()
    {
        final String ip = "6000 0000 0008 3a ff" + V6_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV6 + ip + "80 00 0000 0001 0002"));

        final FlowKey expected = new FlowKey().setIpv6(FlowKey.PROTO_ICMPV6,
            0x20010db800000000L, 1, 0x20010db800000000L, 2, 0, 0);
        assertEquals(expected, frame.flowKey());
        assertEquals(IcmpFlyweight.ICMPV6_ECHO_REQUEST, frame.icmpType());
        assertEquals(0, frame.icmpCode());
        assertEquals(0, frame.payloadLength());
    }

    @Test
    void parsesArpRequestWithSenderAndTarget()
    {
        assertEquals(ParseStatus.OK, parse(ETH_ARP + ARP_BODY + zeros(18)));

        assertEquals(EthernetFlyweight.ETHERTYPE_ARP, frame.ethertype());
        assertEquals(ArpFlyweight.OPERATION_REQUEST, frame.arpOperation());
        assertEquals(0x020000000001L, frame.arpSenderMac());
        assertEquals(SRC_V4, frame.arpSenderIp());
        assertEquals(0L, frame.arpTargetMac());
        assertEquals(DST_V4, frame.arpTargetIp());
        assertEquals(FlowKey.FAMILY_NONE, frame.flowKey().family());
        assertEquals(ParsedFrame.NONE, frame.ipProtocol());
        assertEquals(ParsedFrame.NONE, frame.l4Offset());
        assertEquals(28, frame.l3Length());
        assertEquals(0, frame.payloadLength());
    }

    @Test
    void classifiesNonFirstIpv4FragmentByAddressesOnly()
    {
        // Offset 185 * 8 = 1480; the payload looks like a UDP header but is the middle of the datagram.
        final String ip = "45 00 0024 1234 00b9 40 11 0000" + V4_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "1388 2bcb 0010 0000 0102030405060708"));

        assertEquals(new FlowKey().setIpv4(FlowKey.PROTO_UDP, SRC_V4, DST_V4, 0, 0), frame.flowKey());
        assertTrue(frame.isFragment());
        assertFalse(frame.moreFragments());
        assertEquals(1480, frame.fragmentOffset());
        assertEquals(BASE + 34, frame.l4Offset());
        assertEquals(BASE + 34, frame.payloadOffset());
        assertEquals(16, frame.payloadLength());
    }

    @Test
    void classifiesFirstIpv4FragmentByAddressesOnlySoAllFragmentsHashAlike()
    {
        // kernel-semantics §3.4: the flow dissector ignores ports of every fragment (Linux 62230715fd24).
        final String ip = "45 00 0024 1234 2000 40 11 0000" + V4_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "1388 2bcb 05c8 0000 0102030405060708"));

        assertEquals(new FlowKey().setIpv4(FlowKey.PROTO_UDP, SRC_V4, DST_V4, 0, 0), frame.flowKey());
        assertTrue(frame.isFragment());
        assertTrue(frame.moreFragments());
        assertEquals(0, frame.fragmentOffset());
    }

    @Test
    void classifiesUnknownIpv4ProtocolByAddresses()
    {
        final String ip = "45 00 0018 0000 0000 40 2f 0000" + V4_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV4 + ip + "00000800"));

        assertEquals(new FlowKey().setIpv4(47, SRC_V4, DST_V4, 0, 0), frame.flowKey());
        assertEquals(BASE + 34, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
    }

    @Test
    void classifiesIpv6ExtensionHeaderByAddressesWithoutWalkingIt()
    {
        // Next header 44 = fragment header: not walked, so the flow is (44, addresses) with ports 0.
        final String ip = "6000 0000 0010 2c 40" + V6_ADDRS;

        assertEquals(ParseStatus.OK, parse(ETH_IPV6 + ip + "11000001 12345678 1388 2bcb 0008 0000"));

        final FlowKey expected = new FlowKey().setIpv6(44, 0x20010db800000000L, 1, 0x20010db800000000L, 2, 0, 0);
        assertEquals(expected, frame.flowKey());
        assertEquals(BASE + 54, frame.l4Offset());
        assertEquals(16, frame.payloadLength());
    }

    @Test
    void rejectsRegionsOutsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);

        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, -1, 20, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, 0, -1, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, 0, 65, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, 60, 5, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, Integer.MAX_VALUE, 1, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, 1, Integer.MAX_VALUE, frame));
        assertEquals(ParseStatus.INVALID_BOUNDS, parser.parse(buffer, Integer.MIN_VALUE, Integer.MIN_VALUE, frame));
        assertEquals(ParseStatus.TRUNCATED_L2, parser.parse(buffer, 64, 0, frame));
    }

    @Test
    void resetsTheResultBetweenFrames()
    {
        parse(MACS + "8100 a064 0800 45 00 0024 abcd 0000 40 01 0000" + V4_ADDRS + "08 00 f7fe 0001 0001" + zeros(8));
        assertEquals(ParseStatus.TRUNCATED_L2, parse("00"));

        assertFalse(frame.vlanPresent());
        assertEquals(ParsedFrame.NONE, frame.icmpType());
        assertEquals(FlowKey.FAMILY_NONE, frame.flowKey().family());
    }

    static Stream<Arguments> droppedFrames()
    {
        final String udpV4Header = "45 00 0020 0000 0000 40 11 0000" + V4_ADDRS;
        return Stream.of(
            arguments("empty frame", "", ParseStatus.TRUNCATED_L2),
            arguments("13 bytes", MACS + "08", ParseStatus.TRUNCATED_L2),
            arguments("TPID only", MACS + "8100", ParseStatus.TRUNCATED_VLAN_TAG),
            arguments("tag without inner type byte", MACS + "8100 a064 08", ParseStatus.TRUNCATED_VLAN_TAG),
            arguments("LLDP", MACS + "88cc" + zeros(46), ParseStatus.UNSUPPORTED_ETHERTYPE),
            arguments("802.3 length field", MACS + "002e" + zeros(46), ParseStatus.UNSUPPORTED_ETHERTYPE),
            arguments("two 802.1Q tags", MACS + "8100 0064 8100 0065 0800" + udpV4Header + zeros(12),
                ParseStatus.UNSUPPORTED_ETHERTYPE),
            arguments("802.1ad outer tag", MACS + "88a8 0064 8100 0065 0800" + udpV4Header + zeros(12),
                ParseStatus.UNSUPPORTED_ETHERTYPE),
            arguments("ARP 27 bytes", ETH_ARP + ARP_BODY.replace(" ", "").substring(0, 54), ParseStatus.TRUNCATED_ARP),
            arguments("ARP over IEEE 802 hardware", ETH_ARP + "0006" + ARP_BODY.replace(" ", "").substring(4),
                ParseStatus.UNSUPPORTED_ARP_FORMAT),
            arguments("ARP for IPv6 protocol type", ETH_ARP + "0001 86dd" + ARP_BODY.replace(" ", "").substring(8),
                ParseStatus.UNSUPPORTED_ARP_FORMAT),
            arguments("ARP hardware length 8", ETH_ARP + "0001 0800 08" + ARP_BODY.replace(" ", "").substring(10),
                ParseStatus.UNSUPPORTED_ARP_FORMAT),
            arguments("ARP protocol length 16", ETH_ARP + "0001 0800 06 10" + ARP_BODY.replace(" ", "").substring(12),
                ParseStatus.UNSUPPORTED_ARP_FORMAT),
            arguments("IPv4 19 bytes", ETH_IPV4 + udpV4Header.replace(" ", "").substring(0, 38),
                ParseStatus.TRUNCATED_L3),
            arguments("IPv4 IHL 6 but 20 bytes", ETH_IPV4 + "46 00 0014 0000 0000 40 11 0000" + V4_ADDRS,
                ParseStatus.TRUNCATED_L3),
            arguments("IPv6 39 bytes",
                ETH_IPV6 + ("6000 0000 0000 3b 40" + V6_ADDRS).replace(" ", "").substring(0, 78),
                ParseStatus.TRUNCATED_L3),
            arguments("version 6 in IPv4 ethertype",
                ETH_IPV4 + "65 00 0020 0000 0000 40 11 0000" + V4_ADDRS + zeros(12),
                ParseStatus.BAD_IP_VERSION),
            arguments("version 4 in IPv6 ethertype", ETH_IPV6 + "4500 0000 0000 3b 40" + V6_ADDRS,
                ParseStatus.BAD_IP_VERSION),
            arguments("IHL 4", ETH_IPV4 + "44 00 0020 0000 0000 40 11 0000" + V4_ADDRS + zeros(12),
                ParseStatus.BAD_IHL),
            arguments("IHL 0", ETH_IPV4 + "40 00 0020 0000 0000 40 11 0000" + V4_ADDRS + zeros(12),
                ParseStatus.BAD_IHL),
            arguments("total length one past the frame", ETH_IPV4 + "45 00 0021 0000 0000 40 11 0000" + V4_ADDRS +
                "1388 2bcb 000c 0000 deadbeef", ParseStatus.IP_TOTAL_LENGTH_BEYOND_FRAME),
            arguments("total length 19", ETH_IPV4 + "45 00 0013 0000 0000 40 11 0000" + V4_ADDRS + zeros(12),
                ParseStatus.IP_TOTAL_LENGTH_SHORTER_THAN_HEADER),
            arguments("total length 20 with IHL 6", ETH_IPV4 + "46 00 0014 0000 0000 40 11 0000" + V4_ADDRS +
                "01010100" + zeros(8), ParseStatus.IP_TOTAL_LENGTH_SHORTER_THAN_HEADER),
            arguments("IPv6 payload length one past the frame", ETH_IPV6 + "6000 0000 000d 11 40" + V6_ADDRS +
                "1388 2bcb 000c 0000 deadbeef", ParseStatus.IPV6_PAYLOAD_LENGTH_BEYOND_FRAME),
            arguments("UDP 7 bytes inside the IP total length", ETH_IPV4 + "45 00 001b 0000 0000 40 11 0000" +
                V4_ADDRS + "1388 2bcb 0008 0000" + zeros(10), ParseStatus.TRUNCATED_L4),
            arguments("TCP 19 bytes", ETH_IPV4 + "45 00 0027 0000 0000 40 06 0000" + V4_ADDRS +
                TCP_80_TO_50000.replace(" ", "").substring(0, 38), ParseStatus.TRUNCATED_L4),
            arguments("ICMP 7 bytes", ETH_IPV4 + "45 00 001b 0000 0000 40 01 0000" + V4_ADDRS + "0800f7fe000100",
                ParseStatus.TRUNCATED_L4),
            arguments("IPv6 UDP 7 bytes", ETH_IPV6 + "6000 0000 0007 11 40" + V6_ADDRS + "1388 2bcb 0008 00",
                ParseStatus.TRUNCATED_L4),
            arguments("ICMPv6 4 bytes", ETH_IPV6 + "6000 0000 0004 3a 40" + V6_ADDRS + "8000 0000",
                ParseStatus.TRUNCATED_L4),
            arguments("UDP length 7", ETH_IPV4 + udpV4Header + "1388 2bcb 0007 0000 deadbeef",
                ParseStatus.BAD_UDP_LENGTH),
            arguments("UDP length past the IP payload", ETH_IPV4 + udpV4Header + "1388 2bcb 000d 0000 deadbeef",
                ParseStatus.BAD_UDP_LENGTH),
            arguments("IPv6 UDP length 0",
                ETH_IPV6 + "6000 0000 000c 11 40" + V6_ADDRS + "1388 2bcb 0000 0000 deadbeef",
                ParseStatus.BAD_UDP_LENGTH),
            arguments("TCP data offset 4", ETH_IPV4 + "45 00 0028 0000 0000 40 06 0000" + V4_ADDRS +
                TCP_80_TO_50000.replace("5012", "4012"), ParseStatus.BAD_TCP_DATA_OFFSET),
            arguments("TCP data offset past the IP payload", ETH_IPV6 + "6000 0000 0014 06 40" + V6_ADDRS +
                TCP_80_TO_50000.replace("5012", "6012"), ParseStatus.BAD_TCP_DATA_OFFSET));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("droppedFrames")
    void dropsWithTheExactReason(final String name, final String hexFrame, final ParseStatus expected)
    {
        assertEquals(expected, parse(hexFrame), name);
    }

    @Test
    void everyDropReasonIsPinnedByAHandBuiltFrame()
    {
        final EnumSet<ParseStatus> seen = EnumSet.of(ParseStatus.OK, ParseStatus.INVALID_BOUNDS);
        droppedFrames().forEach(arguments -> seen.add((ParseStatus)arguments.get()[2]));

        assertEquals(EnumSet.allOf(ParseStatus.class), seen);
    }
}
