package io.xmit.actors;

import akka.actor.testkit.typed.javadsl.TestInbox;
import io.xmit.pipeline.flow.FlowKey;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Endpoints (an address and a UDP port) and the validation of socket options. */
class EndpointTest
{
    @Test
    void anIpv4LiteralIsItsUnsignedAddressInLo()
    {
        final Endpoint endpoint = Endpoint.of("192.168.1.200", 53);
        assertEquals(new Endpoint(FlowKey.FAMILY_IPV4, 0, 0xC0A8_01C8L, 53), endpoint);
        assertEquals(Endpoint.ipv4(0xC0A8_01C8, 53), endpoint);
        assertEquals("192.168.1.200:53", endpoint.toString());
        assertEquals(new InetSocketAddress("192.168.1.200", 53), endpoint.toInetSocketAddress());
        assertEquals(endpoint, Endpoint.of(endpoint.toInetSocketAddress()));
        assertEquals(true, endpoint.isIpv4());
    }

    @Test
    void anIpv6LiteralIsItsHighAndLowHalves()
    {
        final Endpoint endpoint = Endpoint.of("fd00::a:2", 65535);
        assertEquals(new Endpoint(FlowKey.FAMILY_IPV6, 0xFD00_0000_0000_0000L, 0x0000_0000_000A_0002L, 65535),
            endpoint);
        assertEquals("[fd00:0:0:0:0:0:a:2]:65535", endpoint.toString());
        assertEquals(endpoint, Endpoint.of(endpoint.toInetSocketAddress()));
        assertEquals(false, endpoint.isIpv4());
        assertEquals(new Endpoint(FlowKey.FAMILY_IPV6, -1L, -1L, 0),
            Endpoint.of("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 0));
    }

    @Test
    void anInetSocketAddressConvertsByFamily()
    {
        assertEquals(Endpoint.of("10.0.0.1", 7), Endpoint.of(new InetSocketAddress("10.0.0.1", 7)));
        assertEquals(Endpoint.of("fd00::1", 7), Endpoint.of(new InetSocketAddress("fd00::1", 7)));
        assertEquals(Endpoint.ipv4(0xFFFF_FFFF, 1), Endpoint.of(new InetSocketAddress("255.255.255.255", 1)));
    }

    @Test
    void withPortKeepsTheAddress()
    {
        assertEquals(Endpoint.of("10.0.0.2", 9), Endpoint.of("10.0.0.2", 7).withPort(9));
        assertEquals("UDP port 65536 is not in 0..65535", assertThrows(IllegalArgumentException.class,
            () -> Endpoint.of("10.0.0.2", 7).withPort(65536)).getMessage());
    }

    @Test
    void badEndpointsAreRefusedSayingWhy()
    {
        assertEquals("'10.0.0.256' is not an IPv4 or IPv6 address literal",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.of("10.0.0.256", 1)).getMessage());
        assertEquals("'example.com' is not an IPv4 or IPv6 address literal",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.of("example.com", 1)).getMessage());
        assertEquals("UDP port -1 is not in 0..65535",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.of("10.0.0.1", -1)).getMessage());
        assertEquals("UDP port 70000 is not in 0..65535",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.ipv4(1, 70000)).getMessage());
        assertEquals("endpoint family must be 4 or 6, was 5",
            assertThrows(IllegalArgumentException.class, () -> new Endpoint(5, 0, 1, 1)).getMessage());
        assertEquals("an IPv4 endpoint holds a 32-bit address in lo, was hi=1 lo=2",
            assertThrows(IllegalArgumentException.class,
                () -> new Endpoint(FlowKey.FAMILY_IPV4, 1, 2, 1)).getMessage());
        assertEquals("an IPv4 endpoint holds a 32-bit address in lo, was hi=0 lo=4294967296",
            assertThrows(IllegalArgumentException.class,
                () -> new Endpoint(FlowKey.FAMILY_IPV4, 0, 1L << 32, 1)).getMessage());
    }

    @Test
    void socketOptionsStartFromTheDefaultsAndChangeOneThingAtATime()
    {
        final SocketOptions udp4 = SocketOptions.udp4(53);
        assertEquals(new SocketOptions(0, FlowKey.FAMILY_IPV4, null, 53, -1, null, null, null, 0, 0, false, 0), udp4);
        assertEquals(new SocketOptions(0, FlowKey.FAMILY_IPV6, null, 53, -1, null, null, null, 0, 0, false, 0),
            SocketOptions.udp6(53));
        final Endpoint peer = Endpoint.of("10.0.0.2", 9);
        final DatagramHandler handler = (socket, datagram) -> { };
        final SocketOptions all = udp4.onPort(1).bindTo("*").onCpu(3).handler(handler).connect(peer).sendBuffer(64)
            .priority(6);
        assertEquals(new SocketOptions(1, FlowKey.FAMILY_IPV4, "*", 53, 3, handler, null, peer, 64, 6, false, 0), all);
        assertEquals(new SocketOptions(1, FlowKey.FAMILY_IPV4, "*", 53, 3, handler, null, peer, 64, 6, true, 0),
            all.reusePort(true));
        assertEquals(new SocketOptions(1, FlowKey.FAMILY_IPV4, "*", 53, 3, handler, null, peer, 64, 6, false, 1 << 22),
            all.receiveBuffer(1 << 22));
        assertNull(all.deliverTo(null).handler(), "deliverTo replaces the handler");
    }

    @Test
    void badSocketOptionsAreRefusedSayingWhy()
    {
        assertEquals("local UDP port 0 is not in 1..65535",
            assertThrows(IllegalArgumentException.class, () -> SocketOptions.udp4(0)).getMessage());
        assertEquals("local UDP port 65536 is not in 1..65535",
            assertThrows(IllegalArgumentException.class, () -> SocketOptions.udp6(65536)).getMessage());
        assertEquals("socket family must be 4 or 6, was 0", assertThrows(IllegalArgumentException.class,
            () -> new SocketOptions(0, 0, null, 1, -1, null, null, null, 0, 0, false, 0)).getMessage());
        assertEquals("sendBufferPackets must be 0 (no limit) or more, was -1",
            assertThrows(IllegalArgumentException.class, () -> SocketOptions.udp4(1).sendBuffer(-1)).getMessage());
        assertEquals("priority must be 0 or more, was -1",
            assertThrows(IllegalArgumentException.class, () -> SocketOptions.udp4(1).priority(-1)).getMessage());
        assertEquals("an IPv4 socket cannot connect to [fd00:0:0:0:0:0:0:2]:9",
            assertThrows(IllegalArgumentException.class,
                () -> SocketOptions.udp4(1).connect(Endpoint.of("fd00::2", 9))).getMessage());
        assertEquals("an IPv6 socket cannot connect to 10.0.0.2:9",
            assertThrows(IllegalArgumentException.class,
                () -> SocketOptions.udp6(1).connect(Endpoint.of("10.0.0.2", 9))).getMessage());
        assertEquals("give a socket a handler or a target actor, not both",
            assertThrows(IllegalArgumentException.class,
                () -> new SocketOptions(0, FlowKey.FAMILY_IPV4, null, 1, -1, (socket, datagram) -> { },
                    TestInbox.<Datagrams>create().getRef(), null, 0, 0, false, 0)).getMessage());
    }
}
