package io.xmit.deploy.cluster.data;

import akka.actor.Address;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Join;
import akka.cluster.typed.Leave;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster data path in one JVM (issue 16): three ActorSystems over Artery TCP on 127.0.0.1, an edge with a loop
 * device pipeline and two app nodes, each with two sockets of the edge's service {@code echo} (a reuseport group on
 * port A, 10.0.0.1:7). Clients on port B send requests; the edge's RX queues steer each flow to a socket by
 * rendezvous hashing and publish it over an Aeron UDP ring to that socket's node; the socket echoes it back over the
 * node's TX stream to the edge, whose relay puts it into the qdisc rings; the client gets the reply. The books agree
 * on every node; then one app node leaves gracefully with requests in flight: nothing is lost, its flows move to the
 * other node and the other node's flows stay where they were.
 */
class ClusterDataPathTest
{
    private static final String SYSTEM_NAME = "xmit-data-path";
    private static final int FLOWS = 48;
    private static final int ROUNDS = 10;
    private static final int SOCKETS_PER_NODE = 2;
    private static final Endpoint SERVICE = Endpoint.of("10.0.0.1", 7);
    private static final Duration FORMATION = Duration.ofSeconds(20);
    private static final Duration ASK = Duration.ofSeconds(10);

    private static final Config CLUSTER = ConfigFactory.parseString("""
        akka {
          loglevel = WARNING
          loggers = ["akka.event.slf4j.Slf4jLogger"]
          logging-filter = "akka.event.slf4j.Slf4jLoggingFilter"
          actor.provider = cluster
          remote.artery {
            transport = tcp
            canonical { hostname = "127.0.0.1", port = 0 }
            advanced.inbound-lanes = 1
          }
          cluster {
            downing-provider-class = "akka.cluster.sbr.SplitBrainResolverProvider"
            split-brain-resolver { active-strategy = keep-majority, stable-after = 3s }
            failure-detector { heartbeat-interval = 1s, acceptable-heartbeat-pause = 3s }
            jmx.multi-mbeans-in-same-jvm = on
          }
          coordinated-shutdown.run-by-jvm-shutdown-hook = off
        }
        """).withFallback(ConfigFactory.load());

    private final List<ActorSystem<Void>> systems = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Which app node answered each client flow last, by the client's port. */
    private final Map<Integer, Integer> servedBy = new ConcurrentHashMap<>();
    private final AtomicLong[] repliesRefused = {new AtomicLong(), new AtomicLong()};
    private final AtomicLong firstRequestsWithRxQueue = new AtomicLong();

    @AfterEach
    void terminateAll() throws Exception
    {
        for (final ActorSystem<Void> system : systems.reversed())
        {
            system.terminate();
            Await.until(system.address() + " terminated",
                () -> system.getWhenTerminated().toCompletableFuture().isDone(), () -> "running",
                Duration.ofSeconds(15));
        }
        for (final AutoCloseable resource : resources.reversed())
        {
            resource.close();
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void requestsCrossTheUdpHopBooksAgreeAndAGracefulLeaveLosesNothing()
    {
        for (int i = 0; i < 3; i++)
        {
            systems.add(ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, CLUSTER));
        }
        final Address seed = address(systems.get(0));
        for (final ActorSystem<Void> system : systems)
        {
            Cluster.get(system).manager().tell(Join.create(seed));
        }
        for (final ActorSystem<Void> system : systems)
        {
            Await.until(address(system) + " sees three members Up", () -> upMembers(system) == 3,
                () -> upMembers(system), FORMATION);
        }

        final ActorSystem<Void> edgeSystem = systems.get(0);
        final Pipeline pipeline = Pipeline.start(edgeSystem, PipelineConfig.builder().name("edge").cpus(2)
            .device("loop:tx=2,rx=2,ring=1024,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16)
            .build());
        resources.add(pipeline);
        final NetworkRings edgeRings = rings("edge-data");
        final String edgeEndpoint = "127.0.0.1:" + freeUdpPort();
        final ActorRef<EdgeDataPlane.Command> edge = edgeSystem.systemActorOf(EdgeDataPlane.create(pipeline,
            edgeRings, edgeEndpoint, Map.of("echo", SocketOptions.udp4(SERVICE.port()).reusePort(true))),
            "edge-data", Props.empty());

        final List<ActorRef<AppDataPlane.Command>> apps = new ArrayList<>();
        final List<List<RemoteUdpSocket>> appSockets = new ArrayList<>();
        for (int n = 1; n <= 2; n++)
        {
            final ActorSystem<Void> system = systems.get(n);
            final int node = n;
            final ActorRef<AppDataPlane.Command> app = system.systemActorOf(AppDataPlane.create(rings("app-" + n),
                "127.0.0.1:" + freeUdpPort(), 0), "app-data", Props.empty());
            apps.add(app);
            final List<RemoteUdpSocket> opened = new ArrayList<>();
            for (int index = 0; index < SOCKETS_PER_NODE; index++)
            {
                final int socketIndex = index;
                final AppDataPlane.Opened reply = ask(system, app, replyTo -> new AppDataPlane.Open("echo",
                    socketIndex, (socket, request) -> echo(node, socket, request), replyTo));
                assertNull(reply.refusal(), "the edge refused a socket");
                opened.add(reply.socket());
            }
            appSockets.add(opened);
        }
        Await.until("all four remote sockets steered to", () -> steered(edgeSystem, edge) == 4,
            () -> edgeBooks(edgeSystem, edge), FORMATION);

        final UdpSocket[] clients = new UdpSocket[FLOWS];
        final AtomicLong replies = new AtomicLong();
        for (int f = 0; f < FLOWS; f++)
        {
            clients[f] = pipeline.openUdp(SocketOptions.udp4(20_000 + f).onPort(1)
                .handler((socket, reply) -> replies.incrementAndGet()));
        }

        // Round 1: every flow, both nodes serve.
        sendRound(clients);
        Await.exactly("replies to the first rounds", (long)FLOWS * ROUNDS, replies::get);
        final Map<Integer, Integer> before = Map.copyOf(servedBy);
        assertEquals(FLOWS, before.size());
        assertTrue(before.containsValue(1) && before.containsValue(2), "both nodes serve flows: " + before);
        assertEquals(FLOWS, firstRequestsWithRxQueue.get(), "every flow's RX queue travelled in the header");
        final AppDataPlane.AppBooks app1 = appBooks(systems.get(1), apps.get(0));
        final AppDataPlane.AppBooks app2 = appBooks(systems.get(2), apps.get(1));
        final long requests = (long)FLOWS * ROUNDS;
        assertEquals(requests, pipeline.total(CounterType.RX_DELIVERED, 0), "what the edge delivered");
        assertEquals(requests, app1.received() + app2.received(), "what the app nodes received");
        assertEquals(requests, app1.sent() + app2.sent(), "the replies they sent");
        final EdgeDataPlane.EdgeBooks edgeBooks = edgeBooks(edgeSystem, edge);
        assertEquals(app1.sent(), edgeBooks.node(address(systems.get(1)).toString()).relayed(), "relayed of node 1");
        assertEquals(app2.sent(), edgeBooks.node(address(systems.get(2)).toString()).relayed(), "relayed of node 2");
        Await.exactly("replies the edge transmitted and port B received", requests,
            () -> pipeline.total(CounterType.RX_DELIVERED, 1));
        pipeline.verify();

        // Round 2 goes out, and node 2 leaves at once: what its sockets had taken is still answered.
        sendRound(clients);
        final AppDataPlane.Left left = ask(systems.get(2), apps.get(1), AppDataPlane.Leave::new);
        final Address leaving = address(systems.get(2));
        Cluster.get(systems.get(2)).manager().tell(new Leave(leaving));
        Await.until(leaving + " removed", () -> upMembers(edgeSystem) == 2 &&
            systems.get(2).getWhenTerminated().toCompletableFuture().isDone(), () -> upMembers(edgeSystem),
            FORMATION);
        Await.exactly("replies to both rounds", 2L * requests, replies::get);

        final EdgeDataPlane.NodeBooks gone = edgeBooks(edgeSystem, edge).node(leaving.toString());
        assertNotNull(gone, "the edge keeps the books of a node that left");
        assertEquals(List.of(false, 0, left.books().sent(), left.books().received(), 0L, 0L, 0L),
            List.of(gone.live(), gone.sockets(), gone.relayed(), gone.received(), gone.rejected(), gone.refused(),
                gone.nodeDown()), "live, sockets, relayed, received, rejected, refused, node_down of the node that left");
        assertEquals(left.relayed(), gone.relayed());

        // Round 3: node 1 serves every flow; its own flows never moved.
        sendRound(clients);
        Await.exactly("replies to all three rounds", 3L * requests, replies::get);
        for (final Map.Entry<Integer, Integer> flow : before.entrySet())
        {
            assertEquals(1, servedBy.get(flow.getKey()), "flow " + flow.getKey() + " was on node " +
                flow.getValue());
        }
        final AppDataPlane.AppBooks survivor = appBooks(systems.get(1), apps.get(0));
        assertEquals(3L * requests, pipeline.total(CounterType.RX_DELIVERED, 0));
        assertEquals(3L * requests, survivor.received() + left.books().received(), "received on the two nodes");
        assertEquals(3L * requests, survivor.sent() + left.books().sent(), "replies sent by the two nodes");
        assertEquals(0, repliesRefused[0].get() + repliesRefused[1].get(), "replies the app nodes could not send");
        assertEquals(0, rxDrops(pipeline), "drops on the edge's port A");
        pipeline.verify();
    }

    /** The app's handler: echo, retrying a full TX stream briefly; which node served the flow is noted. */
    private void echo(final int node, final UdpSocket socket, final ReceivedDatagram request)
    {
        servedBy.put(request.sourcePort(), node);
        if (request.rxQueue() >= 0 && request.rxQueue() < 2 && request.payload()[0] == 0)
        {
            firstRequestsWithRxQueue.incrementAndGet();
        }
        long result;
        int tries = 0;
        while ((result = socket.reply(request, request.buffer(), request.payloadOffset(), request.payloadLength())) ==
            SendResult.BACK_PRESSURED && ++tries < 100_000)
        {
            Thread.onSpinWait();
        }
        if (result < 0)
        {
            repliesRefused[node - 1].incrementAndGet();
        }
    }

    private void sendRound(final UdpSocket[] clients)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        for (int r = 0; r < ROUNDS; r++)
        {
            payload.putByte(0, (byte)r);
            for (final UdpSocket client : clients)
            {
                long result;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((result = client.sendTo(SERVICE, payload, 0, payload.capacity())) == SendResult.BACK_PRESSURED &&
                    System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
                assertTrue(result > 0, "client send: " + SendResult.name(result));
            }
        }
    }

    private static long rxDrops(final Pipeline pipeline)
    {
        long drops = 0;
        for (final CounterType type : List.of(CounterType.RX_DROP_MALFORMED, CounterType.RX_DROP_NO_SOCKET,
            CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_UNSUPPORTED, CounterType.RX_DROP_FAILED))
        {
            drops += pipeline.total(type, 0);
        }
        return drops;
    }

    private NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        final NetworkRings rings = NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
        resources.add(rings);
        return rings;
    }

    private static int steered(final ActorSystem<Void> system, final ActorRef<EdgeDataPlane.Command> edge)
    {
        int steered = 0;
        for (final EdgeDataPlane.NodeBooks node : edgeBooks(system, edge).nodes())
        {
            steered += node.steered();
        }
        return steered;
    }

    private static EdgeDataPlane.EdgeBooks edgeBooks(final ActorSystem<Void> system,
        final ActorRef<EdgeDataPlane.Command> edge)
    {
        return ask(system, edge, EdgeDataPlane.GetBooks::new);
    }

    private static AppDataPlane.AppBooks appBooks(final ActorSystem<Void> system,
        final ActorRef<AppDataPlane.Command> app)
    {
        return ask(system, app, AppDataPlane.GetBooks::new);
    }

    private static <T, C> T ask(final ActorSystem<Void> system, final ActorRef<C> actor,
        final Function<ActorRef<T>, C> message)
    {
        return AskPattern.<C, T>ask(actor, message::apply, ASK, system.scheduler()).toCompletableFuture().join();
    }

    private static int upMembers(final ActorSystem<Void> system)
    {
        int up = 0;
        for (final akka.cluster.Member member : Cluster.get(system).state().getMembers())
        {
            up += MemberStatus.up().equals(member.status()) ? 1 : 0;
        }
        return up;
    }

    private static Address address(final ActorSystem<Void> system)
    {
        return Cluster.get(system).selfMember().address();
    }

    private static int freeUdpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
