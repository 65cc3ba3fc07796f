package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.actors.PortAddress;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An app node's socket binds to an edge port with ARP and sends through it: the edge tells it the port's MAC and the
 * placeholder destination, and finds the next hop itself. Two loop ports back to back, both with ARP; the service is
 * on port 0, and port 1 answers port 0's request for its address.
 */
class EdgeArpTest
{
    private static final long MAC_0 = 0x0200_0000_0001L;
    private static final long MAC_1 = 0x0200_0000_0002L;
    private static final long PLACEHOLDER = 0x0200_0000_0099L;

    private final EdgeByHand plane = new EdgeByHand("edge-arp", List.of(
        new PortAddress(MAC_0, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1, PLACEHOLDER, 24, 0, true, false),
        new PortAddress(MAC_1, 0x0A00_0002, 0xFD00_0000_0000_0000L, 2, MAC_0, 24, 0, true, false)));

    @AfterEach
    void close() throws Exception
    {
        plane.close();
    }

    @Test
    void aRemoteSocketOnAPortWithArpSendsOnceItsNextHopResolves()
    {
        final DataPlaneMessage.SocketBound bound = plane.bind("app-1", 0, 11);
        assertEquals(List.of(MAC_0, PLACEHOLDER), List.of(bound.sourceMac(), bound.destinationMac()),
            "the MACs the node writes: the port's, and its peer-mac as the placeholder");

        final RemoteUdpSocket socket = new RemoteUdpSocket(bound,
            new PacketPublication[] {plane.txStream(bound, 0), plane.txStream(bound, 1)}, new FlowHasher(1, 2),
            peer -> { });
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
        assertTrue(socket.sendTo(Endpoint.of("10.0.0.2", 9000), payload, 0, payload.capacity()) > 0, "sent");

        // Port 1 has no socket on 9000: the datagram arriving there is its rx_drop_no_socket.
        Await.exactly("datagrams port 1 got for no socket", 1L,
            () -> plane.pipeline.total(CounterType.RX_DROP_NO_SOCKET, 1));
        assertEquals(List.of(1L, 1L, 1L), List.of(plane.pipeline.total(CounterType.NEIGH_HELD, 0),
            plane.pipeline.total(CounterType.HOST_ARP_REQUESTS, 0),
            plane.pipeline.total(CounterType.HOST_ARP_REPLIES, 1)),
            "neigh_held and host_arp_requests on port 0, host_arp_replies on port 1");
    }
}
