package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edge's books of one app node, with the test playing the app node by hand over real UDP rings (its socket's ring
 * from the edge, its TX streams to the edge) and the data-plane messages, so that what the edge has read when a
 * message arrives is the test's to choose.
 */
class EdgeBooksTest
{
    private static final String NODE = "akka://edge-books-test@127.0.0.1:1";
    private static final long INCARNATION = 7;
    private static final Duration ASK = Duration.ofSeconds(10);

    private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "edge-books-test",
        ConfigFactory.parseString("""
            akka.loglevel = WARNING
            akka.actor.provider = cluster
            akka.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
            """).withFallback(ConfigFactory.load()));
    private final List<AutoCloseable> rings = new ArrayList<>();
    private final Queue<DataPlaneMessage> toApp = new ConcurrentLinkedQueue<>();
    private final Pipeline pipeline = Pipeline.start(system, PipelineConfig.builder().name("edge-books").cpus(1)
        .device("loop:tx=2,rx=1,ring=256,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16).build());
    private final ActorRef<EdgeDataPlane.Command> edge = system.systemActorOf(EdgeDataPlane.create(pipeline,
        rings("edge-books-edge"), "127.0.0.1:" + FreePorts.udp(),
        Map.of("echo", SocketOptions.udp4(7).reusePort(true))), "edge-data", Props.empty());
    private final NetworkRings appRings = rings("edge-books-app");
    private final ActorRef<DataPlaneMessage> app = system.systemActorOf(Behaviors.receiveMessage(message ->
    {
        toApp.add(message);
        return Behaviors.same();
    }), "app", Props.empty());

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
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSocketReleasedAloneHasItsLastSendRelayedBeforeItsMemberCloses()
    {
        final DataPlaneMessage.SocketBound bound = bind(0);
        final PacketClaim last = releaseWithLastSendHeld(bound, 1);
        books();
        last.commit();

        Await.until("the socket released and its last send read", () ->
        {
            final EdgeDataPlane.NodeBooks now = books();
            return 0 == now.sockets() && 1 == now.relayed() + now.rejected();
        }, this::books);
        final EdgeDataPlane.NodeBooks books = books();
        assertEquals(List.of(1L, 0L, 0L), List.of(books.relayed(), books.rejected(), books.refused()),
            "relayed, rejected, refused of the node");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSocketReopenedWhileItsFormerSelfWaitsForTheRelayBindsOnceThatOneClosed()
    {
        final DataPlaneMessage.SocketBound bound = bind(0);
        final PacketClaim last = releaseWithLastSendHeld(bound, 0);

        // Socket 0 again (sharding moved it back): same node, same index, same steering key.
        edge.tell(bindMessage(0, AppDataPlane.RX_STREAM_BASE + 1));
        assertEquals(1, books().sockets(), "the reopened socket waits; the released one is still there");
        assertEquals(List.of(), List.copyOf(toApp), "no reply to the bind yet");
        last.commit();

        Await.until("the reopened socket bound", () -> toApp.peek() instanceof DataPlaneMessage.SocketBound,
            toApp::toString);
        final DataPlaneMessage.SocketBound again = (DataPlaneMessage.SocketBound)toApp.poll();
        final EdgeDataPlane.NodeBooks books = books();
        assertEquals(List.of(1, 1L, 0L), List.of(books.sockets(), books.relayed(), books.rejected()),
            "sockets, relayed, rejected of the node");
        assertTrue(again.socketId() != bound.socketId(), "a new member");
    }

    /** Binds socket {@code index} of {@code echo} as the node, reading its ring from the edge. */
    private DataPlaneMessage.SocketBound bind(final int index)
    {
        edge.tell(bindMessage(index, AppDataPlane.RX_STREAM_BASE + index));
        Await.until("socket " + index + " bound", () -> toApp.peek() instanceof DataPlaneMessage.SocketBound,
            toApp::toString);
        return (DataPlaneMessage.SocketBound)toApp.poll();
    }

    private DataPlaneMessage.BindSocket bindMessage(final int index, final int streamId)
    {
        final PacketSubscription socketRing = appRings.addSubscription("127.0.0.1:0", streamId,
            new RingDoorbell(() -> { }));
        return new DataPlaneMessage.BindSocket("echo", index, NODE, INCARNATION, socketRing.localEndpoint(), streamId,
            app, appRings.dataPlane().receiverWindowLength());
    }

    /**
     * Releases the socket with its last send, a 64-byte frame on TX queue {@code txq}, claimed when it stops and the
     * node reads its TX positions, so that it reaches the edge's stream only once the caller commits it: as a reply
     * the relay has not read yet when the release arrives.
     */
    private PacketClaim releaseWithLastSendHeld(final DataPlaneMessage.SocketBound bound, final int txq)
    {
        final PacketPublication[] tx = txStreams(bound);
        final PacketClaim last = tx[txq].newClaim();
        assertTrue(tx[txq].tryClaim(64, last) > 0);
        last.buffer().setMemory(last.frameOffset(), 64, (byte)0);
        last.putHeader(0, bound.socketId(), 0, RingFrameHeader.NO_RX_QUEUE, 0, RingFrameHeader.NO_TRACE_ID, 0);
        edge.tell(new DataPlaneMessage.ReleaseSocket(bound.socketId(), 0, new long[] {tx[0].position(),
            tx[1].position()}));
        return last;
    }

    /** The node's TX streams to the edge, connected. */
    private PacketPublication[] txStreams(final DataPlaneMessage.SocketBound bound)
    {
        final PacketPublication[] tx = new PacketPublication[bound.txStreams().length];
        for (int q = 0; q < tx.length; q++)
        {
            final PacketPublication stream = appRings.addPublication(bound.edgeEndpoint(), bound.txStreams()[q]);
            Await.until("TX stream " + q + " connected", stream::isConnected, () -> stream);
            tx[q] = stream;
        }
        return tx;
    }

    /** The edge's books of the node, once it has handled every message sent to it before. */
    private EdgeDataPlane.NodeBooks books()
    {
        return ask(edge, EdgeDataPlane.GetBooks::new).node(NODE);
    }

    private NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        final NetworkRings network = NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
        rings.add(network);
        return network;
    }

    private <T, C> T ask(final ActorRef<C> actor, final Function<ActorRef<T>, C> message)
    {
        return AskPattern.<C, T>ask(actor, message::apply, ASK, system.scheduler()).toCompletableFuture().join();
    }
}
