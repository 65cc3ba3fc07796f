package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.SocketOptions;
import io.xmit.deploy.cluster.FreePorts;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingsConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An edge's data plane whose app nodes the test plays by hand: an actor system, a pipeline on a loop device, the
 * edge's actor with one {@code echo} service, the app side's UDP rings, and an actor that queues whatever the edge sends
 * the app nodes ({@link #toApp}). Closed in the order it must be: the pipeline first (its actors must still run to
 * stop), then the system, then the UDP rings.
 */
final class EdgeByHand implements AutoCloseable
{
    static final long INCARNATION = 7;
    private static final Duration ASK = Duration.ofSeconds(10);

    final ActorSystem<Void> system;
    final Pipeline pipeline;
    /** The edge's own data endpoint (its app nodes' TX streams arrive on ports of their own). */
    final String dataEndpoint = "127.0.0.1:" + FreePorts.udp();
    final ActorRef<EdgeDataPlane.Command> edge;
    final NetworkRings appRings;
    final ActorRef<DataPlaneMessage> app;
    final Queue<DataPlaneMessage> toApp = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> rings = new ArrayList<>();

    /** @param name the pipeline's; the system is {@code name-test}, the rings {@code name-edge} and {@code name-app}. */
    EdgeByHand(final String name)
    {
        this(name, null);
    }

    /** @param ports the loop ports' addresses, or null for the loop device's defaults (no ARP). */
    EdgeByHand(final String name, final List<PortAddress> ports)
    {
        system = ActorSystem.create(Behaviors.empty(), name + "-test", ConfigFactory.parseString("""
            akka.loglevel = WARNING
            akka.actor.provider = cluster
            akka.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
            """).withFallback(ConfigFactory.load()));
        final PipelineConfig.Builder config = PipelineConfig.builder().name(name).cpus(1)
            .device("loop:tx=2,rx=1,ring=256,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16);
        pipeline = Pipeline.start(system, (null == ports ? config : config.ports(ports)).build());
        edge = system.systemActorOf(EdgeDataPlane.create(pipeline, rings(name + "-edge"), dataEndpoint,
            Map.of("echo", SocketOptions.udp4(7).reusePort(true))), "edge-data", Props.empty());
        appRings = rings(name + "-app");
        app = system.systemActorOf(Behaviors.receiveMessage(message ->
        {
            toApp.add(message);
            return Behaviors.same();
        }), "app", Props.empty());
    }

    /** The bind of socket {@code index} of {@code echo} as {@code node}, which reads ring {@code streamId}. */
    DataPlaneMessage.BindSocket bindMessage(final String node, final int index, final int streamId)
    {
        final PacketSubscription socketRing = appRings.addSubscription("127.0.0.1:0", streamId,
            new RingDoorbell(() -> { }));
        return new DataPlaneMessage.BindSocket("echo", index, node, INCARNATION, socketRing.localEndpoint(), streamId,
            app, appRings.dataPlane().receiverWindowLength());
    }

    /** Binds socket {@code index} of {@code echo} as {@code node}, reading ring {@code streamId}: the edge's reply. */
    DataPlaneMessage.SocketBound bind(final String node, final int index, final int streamId)
    {
        edge.tell(bindMessage(node, index, streamId));
        Await.until(node + "'s socket " + index + " bound", () -> toApp.peek() instanceof DataPlaneMessage.SocketBound,
            toApp::toString);
        return (DataPlaneMessage.SocketBound)toApp.poll();
    }

    /** The socket's node's TX stream {@code txq} to the port its bind reply named, connected. */
    PacketPublication txStream(final DataPlaneMessage.SocketBound bound, final int txq)
    {
        final PacketPublication stream = appRings.addPublication(bound.edgeEndpoint(), bound.txStreams()[txq]);
        Await.until("TX stream " + txq + " connected", stream::isConnected, () -> stream);
        return stream;
    }

    /** The edge's books, once it has handled every message sent to it before. */
    EdgeDataPlane.EdgeBooks books()
    {
        return AskPattern.<EdgeDataPlane.Command, EdgeDataPlane.EdgeBooks>ask(edge, EdgeDataPlane.GetBooks::new, ASK,
            system.scheduler()).toCompletableFuture().join();
    }

    private NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        final NetworkRings network = NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
        rings.add(network);
        return network;
    }

    @Override
    public void close() throws Exception
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
}
