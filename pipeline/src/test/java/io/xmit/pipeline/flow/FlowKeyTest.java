package io.xmit.pipeline.flow;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlowKeyTest
{
    @Test
    void parsesAnIpv4UdpFlow()
    {
        final FlowKey key = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        assertEquals(FlowKey.FAMILY_IPV4, key.family());
        assertEquals(FlowKey.PROTO_UDP, key.protocol());
        assertEquals(0x0A000001, key.srcIpv4());
        assertEquals(0x0A000002, key.dstIpv4());
        assertEquals(5000, key.srcPort());
        assertEquals(11211, key.dstPort());
        assertEquals("udp:10.0.0.1:5000-10.0.0.2:11211", key.toString());
    }

    @Test
    void parsesAnIpv6TcpFlow()
    {
        final FlowKey key = FlowKey.parse("tcp:[2001:db8::1]:80-[ff02::1]:443");
        assertEquals(FlowKey.FAMILY_IPV6, key.family());
        assertEquals(FlowKey.PROTO_TCP, key.protocol());
        assertEquals(0x20010db800000000L, key.srcHi());
        assertEquals(1L, key.srcLo());
        assertEquals(0xff02000000000000L, key.dstHi());
        assertEquals(1L, key.dstLo());
        assertEquals(80, key.srcPort());
        assertEquals(443, key.dstPort());
        assertEquals("tcp:[2001:db8:0:0:0:0:0:1]:80-[ff02:0:0:0:0:0:0:1]:443", key.toString());
    }

    @Test
    void equalKeysAreEqualAndCopiesToo()
    {
        final FlowKey a = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        final FlowKey b = new FlowKey().setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002, 5000, 11211);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(a, new FlowKey().copyFrom(a));
        assertNotEquals(a, new FlowKey().setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002, 5000, 11212));
        assertEquals(new FlowKey(), a.clear());
    }

    @Test
    void rejectsBadFlowsNamingThePart()
    {
        assertMessage("protocol 'sctp'", "sctp:1.2.3.4:1-1.2.3.5:2");
        assertMessage("expected proto:src:sport-dst:dport", "udp");
        assertMessage("expected src:sport-dst:dport", "udp:1.2.3.4:1");
        assertMessage("port 'x'", "udp:1.2.3.4:x-1.2.3.5:2");
        assertMessage("port 70000", "udp:1.2.3.4:70000-1.2.3.5:2");
        assertMessage("'example.com' is not a literal IP address", "udp:example.com:1-1.2.3.5:2");
        assertMessage("'1.2.3.256' is not a literal IP address", "udp:1.2.3.256:1-1.2.3.5:2");
        // The old short forms InetAddress takes (1.2.3 is 1.2.0.3, 16909060 is 1.2.3.4) are typos here.
        assertMessage("'1.2.3' is not a literal IP address", "udp:1.2.3:1-1.2.3.5:2");
        assertMessage("'16909060' is not a literal IP address", "udp:1.2.3.4:1-16909060:2");
        assertMessage("mix IPv4 and IPv6", "udp:1.2.3.4:1-[::1]:2");
        assertMessage("is not [v6addr]:port", "udp:[::1]2-[::2]:2");
    }

    private static void assertMessage(final String fragment, final String flow)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> FlowKey.parse(flow));
        assertTrue(ex.getMessage().contains(fragment), ex.getMessage());
        assertTrue(ex.getMessage().contains(flow), ex.getMessage());
    }
}
