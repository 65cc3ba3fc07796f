package io.xmit.actors.internal.socket;

import io.xmit.actors.Endpoint;
import io.xmit.actors.PortAddress;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.transport.ring.PacketPublication;

import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RX path's socket lookup (a connected socket's exact 5-tuple first, then the exact bound address, then a
 * wildcard bind), address clashes, and lookup by id. Sockets are built directly, without rings: the table does not
 * touch them.
 */
public class SocketTableTest
{
    private static final FlowHasher HASHER = new FlowHasher(0x1234L, 0x5678L);
    private static final PortContext[] PORTS = {portContext(0), portContext(1)};

    private final SocketTable table = new SocketTable();
    private final FlowKey flow = new FlowKey();

    @Test
    void aConnectedSocketComesBeforeTheExactBindWhichComesBeforeTheWildcard()
    {
        final UdpSocketImpl wildcard = open(1, 0, "10.0.0.1", 53, true, null);
        final UdpSocketImpl exact = open(2, 0, "10.0.0.1", 53, false, null);
        final UdpSocketImpl other = open(3, 0, "10.0.0.9", 53, false, null);
        final UdpSocketImpl connected = open(4, 0, "10.0.0.1", 53, false, Endpoint.of("10.0.0.2", 5000));

        assertSame(connected, lookup(0, "10.0.0.2", 5000, "10.0.0.1", 53), "the exact 5-tuple");
        assertSame(exact, lookup(0, "10.0.0.2", 5001, "10.0.0.1", 53), "another peer port");
        assertSame(exact, lookup(0, "10.0.0.3", 5000, "10.0.0.1", 53), "another peer address");
        assertSame(other, lookup(0, "10.0.0.2", 5000, "10.0.0.9", 53), "the other bound address");
        assertSame(wildcard, lookup(0, "10.0.0.2", 5000, "10.0.0.7", 53), "an address nobody bound");
        assertNull(lookup(0, "10.0.0.2", 5000, "10.0.0.1", 54), "a port nobody bound");
        assertNull(lookup(1, "10.0.0.2", 5000, "10.0.0.1", 53), "another device port");
        assertNull(lookup6(0, "fd00::2", 5000, "fd00::1", 53), "another family");

        table.remove(exact);
        assertSame(wildcard, lookup(0, "10.0.0.3", 5000, "10.0.0.1", 53), "the wildcard once the exact bind is gone");
        assertSame(connected, lookup(0, "10.0.0.2", 5000, "10.0.0.1", 53));
        table.remove(connected);
        assertSame(wildcard, lookup(0, "10.0.0.2", 5000, "10.0.0.1", 53));
        table.remove(wildcard);
        assertNull(lookup(0, "10.0.0.2", 5000, "10.0.0.1", 53));
        assertSame(other, lookup(0, "10.0.0.2", 5000, "10.0.0.9", 53));
        assertEquals(List.of(other), table.sockets());
    }

    @Test
    void ipv6SocketsMatchOnAll128Bits()
    {
        final UdpSocketImpl exact = open(1, 0, "fd00::1", 53, false, null);
        final UdpSocketImpl connected = open(2, 0, "fd00::1", 53, false, Endpoint.of("fd00::2", 7));
        final UdpSocketImpl v4 = open(3, 0, "10.0.0.1", 53, false, null);

        assertSame(connected, lookup6(0, "fd00::2", 7, "fd00::1", 53));
        assertSame(exact, lookup6(0, "fd01::2", 7, "fd00::1", 53), "same low 64 bits of the peer, other high ones");
        assertNull(lookup6(0, "fd00::2", 7, "fd01::1", 53), "same low 64 bits of the local address, other high ones");
        assertSame(v4, lookup(0, "10.0.0.2", 7, "10.0.0.1", 53));
    }

    @Test
    void aConnectedSocketOnlyHearsItsPeer()
    {
        final UdpSocketImpl socket = open(1, 1, "10.0.0.2", 7000, false, null);
        assertSame(socket, lookup(1, "10.0.0.1", 1, "10.0.0.2", 7000));
        socket.setPeer(Endpoint.of("10.0.0.1", 9));
        table.put(socket);
        assertEquals(1, table.sockets().size(), "re-filed, not added twice");
        assertSame(socket, lookup(1, "10.0.0.1", 9, "10.0.0.2", 7000));
        assertNull(lookup(1, "10.0.0.1", 1, "10.0.0.2", 7000));
    }

    @Test
    void aTakenAddressIsRefusedAndTheTableStaysAsItWas()
    {
        final UdpSocketImpl exact = open(1, 0, "10.0.0.1", 53, false, null);
        final UdpSocketImpl wildcard = open(2, 0, "10.0.0.1", 53, true, null);
        final UdpSocketImpl connected = open(3, 0, "10.0.0.1", 53, false, Endpoint.of("10.0.0.2", 9));

        assertEquals("address in use: 10.0.0.1:53 on port 0 is taken by socket 1",
            assertThrows(IllegalStateException.class,
                () -> table.put(socket(4, 0, "10.0.0.1", 53, false))).getMessage());
        assertEquals("address in use: 10.0.0.1:53 on port 0 is taken by socket 2",
            assertThrows(IllegalStateException.class,
                () -> table.put(socket(5, 0, "10.0.0.1", 53, true))).getMessage());
        final UdpSocketImpl samePeer = socket(6, 0, "10.0.0.1", 53, false);
        samePeer.setPeer(Endpoint.of("10.0.0.2", 9));
        assertEquals("address in use: 10.0.0.1:53 connected to 10.0.0.2:9 on port 0 is taken by socket 3",
            assertThrows(IllegalStateException.class, () -> table.put(samePeer)).getMessage());
        assertEquals(List.of(exact, wildcard, connected), table.sockets());
        assertNull(table.byId(4));
        assertNull(table.byId(6));

        // A socket already in the table that is refused a new peer stays filed (a connect that clashes).
        exact.setPeer(Endpoint.of("10.0.0.2", 9));
        assertThrows(IllegalStateException.class, () -> table.put(exact));
        exact.setPeer(null);
        assertEquals(List.of(exact, wildcard, connected), table.sockets());
        assertSame(exact, table.byId(1));

        // What differs in any one of device port, family, local port, address or peer is not a clash.
        open(7, 1, "10.0.0.1", 53, false, null);
        open(8, 0, "10.0.0.1", 54, false, null);
        open(9, 0, "10.0.0.3", 53, false, null);
        open(10, 0, "10.0.0.1", 53, false, Endpoint.of("10.0.0.2", 10));
        open(11, 0, "fd00::1", 53, false, null);
        assertEquals(8, table.sockets().size());
    }

    @Test
    void byIdFindsOpenSocketsOnly()
    {
        assertNull(table.byId(1), "an empty table");
        final UdpSocketImpl a = open(1, 0, "10.0.0.1", 1, false, null);
        final UdpSocketImpl b = open(70, 0, "10.0.0.1", 2, false, null);
        assertSame(a, table.byId(1));
        assertSame(b, table.byId(70));
        assertNull(table.byId(0));
        assertNull(table.byId(-1));
        assertNull(table.byId(2));
        assertNull(table.byId(71));
        assertNull(table.byId(Integer.MAX_VALUE));
        assertNull(table.byId(Integer.MIN_VALUE));
        table.remove(b);
        assertNull(table.byId(70));
        assertSame(a, table.byId(1));
        table.remove(b);
        assertEquals(List.of(a), table.sockets(), "removing twice is harmless");
    }

    @Test
    void aCompletionReleasesTheSocketsInFlightCountAndAClosedSocketsIsIgnored()
    {
        final UdpSocketImpl socket = open(3, 0, "10.0.0.1", 1, false, null);
        socket.queueState().packetSent();
        socket.queueState().packetSent();
        table.packetCompleted(3);
        assertEquals(1, socket.inFlight());
        table.packetCompleted(4);
        table.packetCompleted(0);
        table.remove(socket);
        table.packetCompleted(3);
        assertEquals(1, socket.inFlight());
    }

    @Test
    void hundredsOfSocketsAreAllFound()
    {
        // More than the table's first 64 slots, so it grows, and many share a bound hash chain.
        for (int i = 0; i < 300; i++)
        {
            open(1 + i, 0, "10.0.0.1", 1000 + i, false, null);
            open(1001 + i, 0, "10.0.0.1", 53, false, Endpoint.ipv4(0x0A01_0000 + i, 4000 + i));
        }
        final UdpSocketImpl wildcard = open(2000, 0, "10.0.0.1", 53, true, null);
        for (int i = 0; i < 300; i++)
        {
            assertEquals(1 + i, lookup(0, "10.9.9.9", 1, "10.0.0.1", 1000 + i).id());
            flow.setIpv4(FlowKey.PROTO_UDP, 0x0A01_0000 + i, 0x0A00_0001, 4000 + i, 53);
            assertEquals(1001 + i, table.lookup(0, flow, CpuThread.NO_CPU, 0).id());
            flow.setIpv4(FlowKey.PROTO_UDP, 0x0A01_0000 + i, 0x0A00_0001, 4001 + i, 53);
            assertSame(wildcard, table.lookup(0, flow, CpuThread.NO_CPU, 0));
        }
        assertEquals(601, table.sockets().size());
        assertSame(wildcard, table.byId(2000));
    }

    @Test
    void aReusePortGroupHandsEachDatagramToItsSocketOnTheReceivingCpu()
    {
        final UdpSocketImpl zero = reuse(1, 0, "10.0.0.1", 11211, false);
        final UdpSocketImpl one = reuse(2, 1, "10.0.0.1", 11211, false);
        final UdpSocketImpl three = reuse(3, 3, "10.0.0.1", 11211, false);
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0001, 40000, 11211);
        assertSame(zero, table.lookup(0, flow, 0, 0));
        assertSame(one, table.lookup(0, flow, 1, 0));
        assertSame(three, table.lookup(0, flow, 3, 0));
        // No member on CPU 2, or off the CPUs: the flow hash picks, reciprocal_scale(hash, 3).
        assertSame(zero, table.lookup(0, flow, 2, 0));
        assertSame(one, table.lookup(0, flow, CpuThread.NO_CPU, 0x6000_0000));
        assertSame(three, table.lookup(0, flow, 7, 0xFFFF_FFFF));

        table.remove(zero);
        assertSame(three, table.lookup(0, flow, 0, 0xFFFF_FFFF), "the group without its first member");
        assertSame(one, table.lookup(0, flow, 1, 0));
    }

    @Test
    void aReusePortGroupIsFoundBehindConnectedSocketsAndAsAWildcard()
    {
        final UdpSocketImpl connected = open(1, 0, "10.0.0.1", 53, false, Endpoint.of("10.0.0.2", 5000));
        final UdpSocketImpl any0 = reuse(2, 0, "10.0.0.1", 53, true);
        final UdpSocketImpl any1 = reuse(3, 1, "10.0.0.1", 53, true);
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0001, 5000, 53);
        assertSame(connected, table.lookup(0, flow, 1, 0), "the exact 5-tuple first");
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0007, 5001, 53);
        assertSame(any0, table.lookup(0, flow, 0, 0));
        assertSame(any1, table.lookup(0, flow, 1, 0));
    }

    @Test
    void onlySocketsThatAllSetReusePortShareAnAddress()
    {
        final UdpSocketImpl plain = open(1, 0, "10.0.0.1", 53, false, null);
        assertEquals("address in use: 10.0.0.1:53 on port 0 is taken by socket 1",
            assertThrows(IllegalStateException.class,
                () -> table.put(socket(2, 0, "10.0.0.1", 53, false, 1, true))).getMessage());
        table.remove(plain);
        reuse(3, 0, "10.0.0.1", 53, false);
        assertEquals("address in use: 10.0.0.1:53 on port 0 is taken by socket 3",
            assertThrows(IllegalStateException.class,
                () -> table.put(socket(4, 0, "10.0.0.1", 53, false))).getMessage());
        reuse(5, 0, "10.0.0.1", 53, false);
        assertEquals(2, table.sockets().size());
    }

    @Test
    void aGroupWithRemoteMembersIsSteeredAndLosingOneMovesOnlyItsFlows()
    {
        final UdpSocketImpl[] members = new UdpSocketImpl[4];
        for (int i = 0; i < members.length; i++)
        {
            members[i] = socket(10 + i, 0, "10.0.0.1", 7, false, 0, true);
            table.putSteered(members[i], 1000 + i);
        }
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0001, 40000, 7);
        assertNull(table.lookup(0, flow, 0, 0), "members start out of steering, until their rings connect");
        assertSame(members[1], table.byId(11));
        for (final UdpSocketImpl member : members)
        {
            table.steer(member, true);
        }
        final int hashes = 4096;
        final UdpSocketImpl[] before = new UdpSocketImpl[hashes];
        final int[] share = new int[members.length];
        for (int h = 0; h < hashes; h++)
        {
            // The receiving CPU does not pick a member of a steered group: every one here runs on CPU 0.
            before[h] = table.lookup(0, flow, 0, h * 0x0010_0001);
            share[before[h].id() - 10]++;
        }
        for (int i = 0; i < members.length; i++)
        {
            assertTrue(share[i] > 0, "member " + i + " takes some flows");
        }

        table.steer(members[2], false);
        for (int h = 0; h < hashes; h++)
        {
            final UdpSocketImpl now = table.lookup(0, flow, 0, h * 0x0010_0001);
            if (before[h] == members[2])
            {
                assertNotSame(members[2], now, "a flow of the member out of steering");
            }
            else
            {
                assertSame(before[h], now, "a flow of a member that stayed moved");
            }
        }
        assertSame(members[2], table.byId(12), "out of steering, still found by id for its completions");
        assertEquals(4, table.sockets().size(), "and still in the books");

        table.steer(members[2], true);
        for (int h = 0; h < hashes; h++)
        {
            assertSame(before[h], table.lookup(0, flow, 0, h * 0x0010_0001), "every flow is back where it was");
        }
    }

    @Test
    void aSteeredMemberNeedsAReusePortSocketAndAKeyOfItsOwn()
    {
        table.putSteered(socket(1, 0, "10.0.0.1", 7, false, 0, true), 5);
        assertEquals("steering key 5 of socket 2 is taken by socket 1",
            assertThrows(IllegalArgumentException.class,
                () -> table.putSteered(socket(2, 0, "10.0.0.1", 7, false, 0, true), 5)).getMessage());
        assertEquals("socket 3: only an unconnected SO_REUSEPORT socket can be a steered group member",
            assertThrows(IllegalArgumentException.class,
                () -> table.putSteered(socket(3, 0, "10.0.0.1", 8, false), 6)).getMessage());
        final UdpSocketImpl plain = open(4, 0, "10.0.0.1", 9, false, null);
        assertEquals("socket 4 is not a steered group member",
            assertThrows(IllegalArgumentException.class, () -> table.steer(plain, false)).getMessage());
        assertEquals(2, table.sockets().size());
    }

    /** A socket as Pipeline.openUdp builds it, without rings or counters (the table uses neither). */
    public static UdpSocketImpl socket(final int id, final int port, final String address, final int localPort,
        final boolean wildcard)
    {
        return socket(id, port, address, localPort, wildcard, 0, false);
    }

    private UdpSocketImpl reuse(final int id, final int cpu, final String address, final int localPort,
        final boolean wildcard)
    {
        final UdpSocketImpl socket = socket(id, 0, address, localPort, wildcard, cpu, true);
        table.put(socket);
        return socket;
    }

    static UdpSocketImpl socket(final int id, final int port, final String address, final int localPort,
        final boolean wildcard, final int cpu, final boolean reusePort)
    {
        final Endpoint at = Endpoint.of(address, localPort);
        final FlowKey local = new FlowKey();
        if (at.isIpv4())
        {
            local.setIpv4(FlowKey.PROTO_UDP, (int)at.lo(), 0, localPort, 0);
        }
        else
        {
            local.setIpv6(FlowKey.PROTO_UDP, at.hi(), at.lo(), 0, 0, localPort, 0);
        }
        return new UdpSocketImpl(id, cpu, PORTS[port], local, wildcard, reusePort, 0, 0, null, null,
            new SocketQueueState(), new AtomicCounter[3], () -> { }, peer -> { });
    }

    private UdpSocketImpl open(final int id, final int port, final String address, final int localPort,
        final boolean wildcard, final Endpoint peer)
    {
        final UdpSocketImpl socket = socket(id, port, address, localPort, wildcard);
        if (null != peer)
        {
            socket.setPeer(peer);
        }
        table.put(socket);
        return socket;
    }

    /** The socket for a datagram from {@code src:srcPort} to {@code dst:dstPort} arriving on {@code port}. */
    private UdpSocketImpl lookup(final int port, final String src, final int srcPort, final String dst, final int dstPort)
    {
        flow.setIpv4(FlowKey.PROTO_UDP, (int)Endpoint.of(src, 0).lo(), (int)Endpoint.of(dst, 0).lo(), srcPort,
            dstPort);
        return table.lookup(port, flow, CpuThread.NO_CPU, 0);
    }

    private UdpSocketImpl lookup6(final int port, final String src, final int srcPort, final String dst, final int dstPort)
    {
        final Endpoint from = Endpoint.of(src, srcPort);
        final Endpoint to = Endpoint.of(dst, dstPort);
        flow.setIpv6(FlowKey.PROTO_UDP, from.hi(), from.lo(), to.hi(), to.lo(), srcPort, dstPort);
        return table.lookup(port, flow, CpuThread.NO_CPU, 0);
    }

    private static PortContext portContext(final int port)
    {
        return new PortContext(port, PortAddress.defaultFor(port, 2), new PacketPublication[0][], new QdiscRunner[0], HASHER,
            2048, null, new SendGate(), null);
    }
}
