package io.xmit.deploy.cluster.data;

import akka.actor.Address;
import akka.cluster.ClusterEvent;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.cluster.UniqueAddress;
import akka.util.Version;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each app node's TX streams arrive at the edge on a UDP port of their own (so that each of the edge driver's receive
 * sockets has one sender, and the JDK's receive allocates no sender address per datagram), and the edge frees that
 * port when the node leaves or is lost while the other nodes keep theirs. The test plays two app nodes by hand.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EdgeEndpointsTest
{
    private static final String NODE_A = "akka://edge-endpoints-test@127.0.0.1:1";
    private static final String NODE_B = "akka://edge-endpoints-test@127.0.0.1:2";
    /** The edge's driver closes a port once it has let the images of its streams go. */
    private static final Duration PORT_FREED = Duration.ofSeconds(20);

    private final EdgeByHand plane = new EdgeByHand("edge-endpoints");
    private int nextStream = AppDataPlane.RX_STREAM_BASE;

    @AfterEach
    void stop() throws Exception
    {
        plane.close();
    }

    @Test
    void eachNodesTxStreamsArriveOnAPortOfTheirOwn()
    {
        final DataPlaneMessage.SocketBound a0 = bind(NODE_A, 0);
        final DataPlaneMessage.SocketBound a1 = bind(NODE_A, 1);
        final DataPlaneMessage.SocketBound b0 = bind(NODE_B, 0);

        assertEquals(a0.edgeEndpoint(), a1.edgeEndpoint(), "one port for all of a node's sockets");
        assertNotEquals(a0.edgeEndpoint(), b0.edgeEndpoint(), "a port per node");
        assertNotEquals(plane.dataEndpoint, a0.edgeEndpoint(), "not the edge's data port");
        assertNotEquals(plane.dataEndpoint, b0.edgeEndpoint(), "not the edge's data port");
        assertTrue(a0.edgeEndpoint().startsWith("127.0.0.1:") && b0.edgeEndpoint().startsWith("127.0.0.1:"),
            a0.edgeEndpoint() + " and " + b0.edgeEndpoint() + " on the data endpoint's host");

        // A frame of node A's socket sent to A's port is relayed, on either TX queue.
        for (int q = 0; q < 2; q++)
        {
            send(a0, q);
        }
        Await.exactly("node A's frames relayed", 2, () -> books().node(NODE_A).relayed());
        assertEquals(List.of(0L, 0L), List.of(books().node(NODE_A).rejected(), books().node(NODE_B).relayed()),
            "node A's rejected, node B's relayed");
    }

    @Test
    void theEdgeFreesThePortOfANodeThatLeavesAndTheOthersKeepTheirs()
    {
        final String a = bind(NODE_A, 0).edgeEndpoint();
        final String b = bind(NODE_B, 0).edgeEndpoint();

        plane.edge.tell(new DataPlaneMessage.NodeLeaving(NODE_A, EdgeByHand.INCARNATION, new long[2], plane.app));
        Await.until("node A drained", () -> plane.toApp.peek() instanceof DataPlaneMessage.NodeDrained,
            plane.toApp::toString);
        Await.until("node A's port " + a + " free", () -> bindable(a), () -> "bound", PORT_FREED);
        assertFalse(bindable(b), "node B's port " + b + " still receives its streams");
    }

    @Test
    void theEdgeFreesThePortOfANodeLostWithoutLeavingAndTheOthersKeepTheirs()
    {
        final String a = bind(NODE_A, 0).edgeEndpoint();
        final String b = bind(NODE_B, 0).edgeEndpoint();

        plane.edge.tell(new EdgeDataPlane.Removed(new ClusterEvent.MemberRemoved(new Member(
            new UniqueAddress(new Address("akka", "edge-endpoints-test", "127.0.0.1", 1), EdgeByHand.INCARNATION),
            Integer.MAX_VALUE, MemberStatus.removed(), scala.collection.immutable.Set$.MODULE$.empty(),
            Version.Zero()), MemberStatus.down())));
        Await.until("node A's port " + a + " free", () -> bindable(a), () -> "bound", PORT_FREED);
        assertFalse(books().node(NODE_A).live(), "node A declared lost");
        assertFalse(bindable(b), "node B's port " + b + " still receives its streams");
    }

    /** Binds socket {@code index} of {@code echo} as {@code node}, with a ring of its own from the edge. */
    private DataPlaneMessage.SocketBound bind(final String node, final int index)
    {
        return plane.bind(node, index, nextStream++);
    }

    /** Sends a 64-byte frame of the socket on TX queue {@code txq}, to the port its bind reply named. */
    private void send(final DataPlaneMessage.SocketBound bound, final int txq)
    {
        final PacketPublication stream = plane.txStream(bound, txq);
        final PacketClaim claim = stream.newClaim();
        Await.until("TX stream " + txq + " claimed", () -> stream.tryClaim(64, claim) > 0, () -> stream);
        claim.buffer().setMemory(claim.frameOffset(), 64, (byte)0);
        claim.putHeader(0, bound.socketId(), 0, RingFrameHeader.NO_RX_QUEUE, 0, RingFrameHeader.NO_TRACE_ID, 0);
        claim.commit();
    }

    /** True if nothing on this host holds the UDP port of {@code endpoint} any more. */
    private static boolean bindable(final String endpoint)
    {
        final int colon = endpoint.lastIndexOf(':');
        try (DatagramSocket socket = new DatagramSocket(Integer.parseInt(endpoint.substring(colon + 1)),
            InetAddress.getByName(endpoint.substring(0, colon))))
        {
            return socket.isBound();
        }
        catch (final SocketException ex)
        {
            return false;
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("endpoint " + endpoint + ": " + ex.getMessage(), ex);
        }
    }

    private EdgeDataPlane.EdgeBooks books()
    {
        return plane.books();
    }
}
