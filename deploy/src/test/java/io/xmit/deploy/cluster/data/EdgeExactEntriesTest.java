package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.actors.UdpSocket;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edge's exact entries for connected remote sockets ({@link DataPlaneMessage.SocketPeer}), with the test playing
 * the app node by hand: each entry is filed by a connect and goes with the disconnect, the socket's release, or a
 * newer incarnation of its node; a peer another socket is already connected to stays with that one, and the socket
 * refused it is unconnected on the edge (not left on a peer it had before). After each, the edge pipeline's sockets
 * with a peer are exactly the expected ones, none once nothing is connected. (A node removed from the cluster closes
 * its members as a newer incarnation does; {@code ClusterDataPathTest} loses one.)
 */
class EdgeExactEntriesTest
{
    private static final String NODE = "akka://edge-exact-test@127.0.0.1:1";
    private static final Endpoint PEER = Endpoint.of("10.0.0.2", 20_000);

    private final EdgeByHand plane = new EdgeByHand("edge-exact");

    @AfterEach
    void stop() throws Exception
    {
        plane.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aDisconnectTakesTheEntryAndAReleaseTakesItWithTheMember()
    {
        final DataPlaneMessage.SocketBound bound = plane.bind(NODE, 0, AppDataPlane.RX_STREAM_BASE);
        assertEquals(Map.of(), connected(), "before any connect");

        plane.edge.tell(DataPlaneMessage.SocketPeer.of(bound.socketId(), PEER));
        assertEquals(Map.of(bound.socketId(), PEER), connected(), "connected");
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(bound.socketId(), null));
        assertEquals(Map.of(), connected(), "disconnected");

        plane.edge.tell(DataPlaneMessage.SocketPeer.of(bound.socketId(), PEER));
        assertEquals(Map.of(bound.socketId(), PEER), connected(), "connected again");
        final PacketPublication[] tx = {plane.txStream(bound, 0), plane.txStream(bound, 1)};
        plane.edge.tell(new DataPlaneMessage.UnbindSocket(bound.socketId(), plane.app));
        plane.edge.tell(new DataPlaneMessage.ReleaseSocket(bound.socketId(), 0,
            new long[] {tx[0].position(), tx[1].position()}));
        Await.until("the released socket closed", () -> 0 == plane.books().node(NODE).sockets(), plane::books);
        assertEquals(Map.of(), connected(), "after the release");
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(bound.socketId(), PEER));
        assertEquals(Map.of(), connected(), "a connect of a released socket files nothing");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aNewerIncarnationOfTheNodeTakesItsEntries()
    {
        final DataPlaneMessage.SocketBound bound = plane.bind(NODE, 0, AppDataPlane.RX_STREAM_BASE);
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(bound.socketId(), PEER));
        assertEquals(Map.of(bound.socketId(), PEER), connected(), "connected");

        final DataPlaneMessage.BindSocket template = plane.bindMessage(NODE, 0, AppDataPlane.RX_STREAM_BASE + 1);
        plane.edge.tell(new DataPlaneMessage.BindSocket(template.service(), template.index(), template.node(),
            EdgeByHand.INCARNATION + 1, template.dataEndpoint(), template.streamId(), template.replyTo(),
            template.receiverWindow()));
        Await.until("the newer incarnation bound", () -> plane.toApp.peek() instanceof DataPlaneMessage.SocketBound,
            plane.toApp::toString);
        assertEquals(Map.of(), connected(), "after a newer incarnation bound");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerAnotherSocketIsConnectedToStaysWithThatSocket()
    {
        final DataPlaneMessage.SocketBound first = plane.bind(NODE, 0, AppDataPlane.RX_STREAM_BASE);
        final DataPlaneMessage.SocketBound second = plane.bind(NODE, 1, AppDataPlane.RX_STREAM_BASE + 1);
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(first.socketId(), PEER));
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(second.socketId(), Endpoint.of("10.0.0.3", 20_001)));
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(second.socketId(), PEER));
        assertEquals(Map.of(first.socketId(), PEER), connected(), "the first connect holds the 4-tuple; the second " +
            "socket, refused, is not left on its former peer");

        plane.edge.tell(DataPlaneMessage.SocketPeer.of(first.socketId(), null));
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(second.socketId(), PEER));
        assertEquals(Map.of(second.socketId(), PEER), connected(), "free again, the second takes it");
        plane.edge.tell(DataPlaneMessage.SocketPeer.of(second.socketId(), null));
        assertEquals(Map.of(), connected(), "both disconnected");
        assertTrue(List.copyOf(plane.toApp).isEmpty(), "nothing sent to the node: " + plane.toApp);
    }

    /** The edge pipeline's sockets with a peer, once the edge has handled every message sent to it before. */
    private Map<Integer, Endpoint> connected()
    {
        plane.books();
        final Map<Integer, Endpoint> peers = new HashMap<>();
        for (final UdpSocket socket : plane.pipeline.sockets())
        {
            if (null != socket.remote())
            {
                peers.put(socket.id(), socket.remote());
            }
        }
        return peers;
    }
}
