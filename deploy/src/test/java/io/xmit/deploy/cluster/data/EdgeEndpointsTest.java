package io.xmit.deploy.cluster.data;

import akka.actor.Address;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.cluster.UniqueAddress;
import akka.util.Version;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.deploy.cluster.FreePorts;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingsConfig;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
    private static final long INCARNATION = 7;
    /** The edge's driver closes a port once it has let the images of its streams go. */
    private static final Duration PORT_FREED = Duration.ofSeconds(20);

    private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "edge-endpoints-test",
        ConfigFactory.parseString("""
            akka.loglevel = WARNING
            akka.actor.provider = cluster
            akka.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
            """).withFallback(ConfigFactory.load()));
    private final List<AutoCloseable> rings = new ArrayList<>();
    private final Queue<DataPlaneMessage> toApp = new ConcurrentLinkedQueue<>();
    private final Pipeline pipeline = Pipeline.start(system, PipelineConfig.builder().name("edge-endpoints").cpus(1)
        .device("loop:tx=2,rx=1,ring=256,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16).build());
    private final String dataEndpoint = "127.0.0.1:" + FreePorts.udp();
    private final ActorRef<EdgeDataPlane.Command> edge = system.systemActorOf(EdgeDataPlane.create(pipeline,
        rings("edge-endpoints-edge"), dataEndpoint, Map.of("echo", SocketOptions.udp4(7).reusePort(true))),
        "edge-data", Props.empty());
    private final NetworkRings appRings = rings("edge-endpoints-app");
    private final ActorRef<DataPlaneMessage> app = system.systemActorOf(Behaviors.receiveMessage(message ->
    {
        toApp.add(message);
        return Behaviors.same();
    }), "app", Props.empty());
    private int nextStream = AppDataPlane.RX_STREAM_BASE;

    /** The pipeline first (its actors must still run to stop), then the system, then the UDP rings. */
    @AfterEach
    void stop() throws Exception
    {
        pipeline.close();
        system.terminate();
        Await.until("the system terminated", () -> system.getWhenTerminated().toCompletableFuture().isDone(),
            () -> "running", Duration.ofSeconds(15));
        for (final AutoCloseable resource : rings.reversed())
        {
            resource.close();
        }
    }

    @Test
    void eachNodesTxStreamsArriveOnAPortOfTheirOwn()
    {
        final DataPlaneMessage.SocketBound a0 = bind(NODE_A, 0);
        final DataPlaneMessage.SocketBound a1 = bind(NODE_A, 1);
        final DataPlaneMessage.SocketBound b0 = bind(NODE_B, 0);

        assertEquals(a0.edgeEndpoint(), a1.edgeEndpoint(), "one port for all of a node's sockets");
        assertNotEquals(a0.edgeEndpoint(), b0.edgeEndpoint(), "a port per node");
        assertNotEquals(dataEndpoint, a0.edgeEndpoint(), "not the edge's data port");
        assertNotEquals(dataEndpoint, b0.edgeEndpoint(), "not the edge's data port");
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

        edge.tell(new DataPlaneMessage.NodeLeaving(NODE_A, INCARNATION, new long[2], app));
        Await.until("node A drained", () -> toApp.peek() instanceof DataPlaneMessage.NodeDrained, toApp::toString);
        Await.until("node A's port " + a + " free", () -> bindable(a), () -> "bound", PORT_FREED);
        assertFalse(bindable(b), "node B's port " + b + " still receives its streams");
    }

    @Test
    void theEdgeFreesThePortOfANodeLostWithoutLeavingAndTheOthersKeepTheirs()
    {
        final String a = bind(NODE_A, 0).edgeEndpoint();
        final String b = bind(NODE_B, 0).edgeEndpoint();

        edge.tell(new EdgeDataPlane.Removed(new ClusterEvent.MemberRemoved(new Member(
            new UniqueAddress(new Address("akka", "edge-endpoints-test", "127.0.0.1", 1), INCARNATION),
            Integer.MAX_VALUE, MemberStatus.removed(), scala.collection.immutable.Set$.MODULE$.empty(),
            Version.Zero()), MemberStatus.down())));
        Await.until("node A's port " + a + " free", () -> bindable(a), () -> "bound", PORT_FREED);
        assertFalse(books().node(NODE_A).live(), "node A declared lost");
        assertFalse(bindable(b), "node B's port " + b + " still receives its streams");
    }

    /** Binds socket {@code index} of {@code echo} as {@code node}, with a ring of its own from the edge. */
    private DataPlaneMessage.SocketBound bind(final String node, final int index)
    {
        final int streamId = nextStream++;
        final PacketSubscription socketRing = appRings.addSubscription("127.0.0.1:0", streamId,
            new RingDoorbell(() -> { }));
        edge.tell(new DataPlaneMessage.BindSocket("echo", index, node, INCARNATION, socketRing.localEndpoint(),
            streamId, app, appRings.dataPlane().receiverWindowLength()));
        Await.until(node + "'s socket " + index + " bound", () -> toApp.peek() instanceof DataPlaneMessage.SocketBound,
            toApp::toString);
        return (DataPlaneMessage.SocketBound)toApp.poll();
    }

    /** Sends a 64-byte frame of the socket on TX queue {@code txq}, to the port its bind reply named. */
    private void send(final DataPlaneMessage.SocketBound bound, final int txq)
    {
        final PacketPublication stream = appRings.addPublication(bound.edgeEndpoint(), bound.txStreams()[txq]);
        Await.until("TX stream " + txq + " connected", stream::isConnected, () -> stream);
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
        return AskPattern.<EdgeDataPlane.Command, EdgeDataPlane.EdgeBooks>ask(edge, EdgeDataPlane.GetBooks::new,
            Duration.ofSeconds(10), system.scheduler()).toCompletableFuture().join();
    }

    private NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        final NetworkRings network = NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
        rings.add(network);
        return network;
    }
}
