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
import io.xmit.deploy.cluster.FreePorts;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsChange;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
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
 * other node and the other node's flows stay where they were. And one app node lost without leaving: its flows move
 * once the cluster finds it unreachable, the others' stay, and the edge counts what it never confirmed. And a socket
 * connected to one client: its XPS by RX queue across the hop, and the edge's exact entry for it.
 */
class ClusterDataPathTest
{
    private static final String SYSTEM_NAME = "xmit-data-path";
    private static final int FLOWS = 48;
    private static final int ROUNDS = 10;
    private static final int SOCKETS_PER_NODE = 2;
    private static final Endpoint SERVICE = Endpoint.of("10.0.0.1", 7);
    private static final int CLIENT_PORT = 20_000;
    private static final Duration FORMATION = Duration.ofSeconds(20);
    private static final Duration ASK = Duration.ofSeconds(10);
    private static final Duration RECEIPTS = Duration.ofMillis(100);

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
          # terminate() stops a node as a crash would: no leave; a leave is asked for explicitly.
          coordinated-shutdown.run-by-actor-system-terminate = off
        }
        """).withFallback(ConfigFactory.load());

    private final List<ActorSystem<Void>> systems = new ArrayList<>();
    private final List<AutoCloseable> rings = new ArrayList<>();
    /** Which socket (its id on the edge) answered each client flow last, by the client's port. */
    private final Map<Integer, Integer> servedBy = new ConcurrentHashMap<>();
    /** Each socket's app node, by its id on the edge. */
    private final Map<Integer, Integer> nodeOf = new ConcurrentHashMap<>();
    /** The sockets (their ids on the edge) that served each client flow since the test last cleared it. */
    private final Map<Integer, Set<Integer>> socketsOfFlow = new ConcurrentHashMap<>();
    private final AtomicLong[] repliesRefused = {new AtomicLong(), new AtomicLong()};
    private final AtomicLong firstRequestsWithRxQueue = new AtomicLong();
    private final AtomicLongArray repliesByFlow = new AtomicLongArray(FLOWS);
    private final AtomicLong replies = new AtomicLong();
    private final List<ActorRef<AppDataPlane.Command>> apps = new ArrayList<>();
    private final UdpSocket[] clients = new UdpSocket[FLOWS];
    /** Each app node's first socket, by node. */
    private final Map<Integer, RemoteUdpSocket> appSockets = new ConcurrentHashMap<>();
    private final List<RemoteUdpSocket> allSockets = new CopyOnWriteArrayList<>();
    private ActorSystem<Void> edgeSystem;
    private Pipeline pipeline;
    private ActorRef<EdgeDataPlane.Command> edge;

    /** The pipeline first (its actors must still run to stop), then the systems, then the UDP rings. */
    @AfterEach
    void terminateAll() throws Exception
    {
        if (null != pipeline)
        {
            pipeline.close();
        }
        for (final ActorSystem<Void> system : systems.reversed())
        {
            system.terminate();
            Await.until(system.address() + " terminated",
                () -> system.getWhenTerminated().toCompletableFuture().isDone(), () -> "running",
                Duration.ofSeconds(15));
        }
        for (final AutoCloseable resource : rings.reversed())
        {
            resource.close();
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void requestsCrossTheUdpHopBooksAgreeAndAGracefulLeaveLosesNothing()
    {
        // Round 1: every flow, both nodes serve.
        startClusterAndServeRoundOne();
        final Map<Integer, Integer> before = nodeByFlow();
        final Map<Integer, Integer> socketBefore = Map.copyOf(servedBy);
        assertEquals(FLOWS, before.size());
        assertEquals(2 * SOCKETS_PER_NODE, Set.copyOf(socketBefore.values()).size(), "every socket serves flows");
        assertEquals(FLOWS, firstRequestsWithRxQueue.get(), "every flow's RX queue travelled in the header");
        final AppDataPlane.AppBooks app1 = appBooks(1);
        final AppDataPlane.AppBooks app2 = appBooks(2);
        final long requests = (long)FLOWS * ROUNDS;
        assertEquals(requests, pipeline.total(CounterType.RX_DELIVERED, 0), "what the edge delivered");
        assertEquals(requests, app1.received() + app2.received(), "what the app nodes received");
        assertEquals(requests, app1.sent() + app2.sent(), "the replies they sent");
        final EdgeDataPlane.EdgeBooks edgeBooks = edgeBooks();
        assertEquals(List.of(app1.received(), app1.sent()), List.of(nodeBooks(edgeBooks, 1).published(),
            nodeBooks(edgeBooks, 1).relayed()), "published to node 1, relayed from it");
        assertEquals(List.of(app2.received(), app2.sent()), List.of(nodeBooks(edgeBooks, 2).published(),
            nodeBooks(edgeBooks, 2).relayed()), "published to node 2, relayed from it");
        Await.exactly("replies the edge transmitted and port B received", requests,
            () -> pipeline.total(CounterType.RX_DELIVERED, 1));
        pipeline.verify();

        // Port A goes down to one TX queue through the edge: both nodes are told, and round 2's replies all leave on
        // queue 0 (§1.1(b)).
        final XpsChange oneQueue = ask(edgeSystem, edge, replyTo -> new EdgeDataPlane.SetTxQueueCount(0, 1, replyTo));
        assertTrue(oneQueue.applied(), oneQueue.message());
        Await.until("every app socket picks over one TX queue",
            () -> allSockets.stream().allMatch(socket -> 1 == socket.queueMap().realNumTx()), allSockets::toString);
        final long[] onQueue = {pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 0)),
            pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 1))};

        // Round 2 goes out, and node 2 leaves at once: what its sockets had taken is still answered.
        sendRound();
        final AppDataPlane.Left left = ask(systems.get(2), apps.get(1), AppDataPlane.Leave::new);
        final Address leaving = address(systems.get(2));
        Cluster.get(systems.get(2)).manager().tell(new Leave(leaving));
        Await.until(leaving + " removed", () -> upMembers(edgeSystem) == 2 &&
            systems.get(2).getWhenTerminated().toCompletableFuture().isDone(), () -> upMembers(edgeSystem),
            FORMATION);
        Await.exactly("replies to both rounds", 2L * requests, replies::get);
        assertEquals(List.of(requests, 0L), List.of(
            pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 0)) - onQueue[0],
            pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 1)) - onQueue[1]),
            "round 2's replies on port A's TX queues 0 and 1");

        final EdgeDataPlane.NodeBooks gone = edgeBooks().node(leaving.toString());
        assertNotNull(gone, "the edge keeps the books of a node that left");
        assertEquals(List.of(false, 0, left.books().received(), left.books().received(), 0L, left.books().sent(), 0L,
                0L, 0L),
            List.of(gone.live(), gone.sockets(), gone.published(), gone.received(), gone.unconfirmed(),
                gone.relayed(), gone.rejected(), gone.refused(), gone.txNodeDown()),
            "live, sockets, published, received, unconfirmed, relayed, rejected, refused, tx node_down of the node " +
                "that left");
        assertEquals(left.relayed(), gone.relayed());

        // Round 3: node 1 serves every flow; its own flows never moved, not even between its sockets.
        sendRound();
        Await.exactly("replies to all three rounds", 3L * requests, replies::get);
        assertOnlyNode2sFlowsMoved(before, socketBefore);
        final AppDataPlane.AppBooks survivor = appBooks(1);
        assertEquals(3L * requests, pipeline.total(CounterType.RX_DELIVERED, 0));
        assertEquals(3L * requests, survivor.received() + left.books().received(), "received on the two nodes");
        assertEquals(3L * requests, survivor.sent() + left.books().sent(), "replies sent by the two nodes");
        assertEquals(0, repliesRefused[0].get() + repliesRefused[1].get(), "replies the app nodes could not send");
        assertEquals(0, rxDrops(pipeline), "drops on the edge's port A");
        pipeline.verify();

        // Node 1 leaves too: the edge's receive books are at rest, everything accounted.
        ask(systems.get(1), apps.get(0), AppDataPlane.Leave::new);
        Await.until("port A at rest after both nodes left", () -> pipeline.verify().received().get(0).atRest(),
            () -> pipeline.accounting().line());
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aNodeLostWithoutLeavingLosesOnlyItsFlowsAndTheEdgeCountsWhatItNeverConfirmed()
    {
        startClusterAndServeRoundOne();
        final Map<Integer, Integer> before = nodeByFlow();
        final Map<Integer, Integer> socketBefore = Map.copyOf(servedBy);
        final long node2Flows = before.values().stream().filter(node -> 2 == node).count();
        assertTrue(node2Flows > 0 && node2Flows < FLOWS, "both nodes serve flows: " + before);

        // Node 2's receipts have reached the edge; then it stops as a crash does (no leave), and round 2 goes out
        // while the cluster has not noticed yet (or, on a slow machine, partly after: those flows go to node 1).
        final AppDataPlane.AppBooks node2 = appBooks(2);
        Await.exactly("what node 2 has read, as its receipts tell the edge", node2.received(),
            () -> nodeBooks(edgeBooks(), 2).received());
        final Address lost = address(systems.get(2));
        systems.get(2).terminate();
        Await.until(lost + " terminated", () -> systems.get(2).getWhenTerminated().toCompletableFuture().isDone(),
            () -> "running", FORMATION);
        sendRound();
        Await.until(lost + " removed from the edge's books", () -> {
            final EdgeDataPlane.NodeBooks books = edgeBooks().node(lost.toString());
            return null != books && !books.live();
        }, this::edgeBooks, Duration.ofSeconds(40));
        final EdgeDataPlane.NodeBooks gone = edgeBooks().node(lost.toString());

        // Node 2 read nothing after its last receipt (its driver confirms no more than that), and every reply it
        // sent was relayed: what it lost is exactly what was sent to it unconfirmed and what the edge never sent.
        // Every request is answered, dropped on the edge under a reason (node 2's rings gone), or in those counts.
        assertEquals(List.of(node2.received(), gone.published() - node2.received(), node2.sent(), 0L, 0L),
            List.of(gone.received(), gone.unconfirmed() + gone.rxNodeDown(), gone.relayed(), gone.rejected(),
                gone.txNodeDown()),
            "received (by its last receipt), unconfirmed + rx node_down, relayed, rejected, tx node_down of the " +
                "lost node");
        final long requests = 2L * FLOWS * ROUNDS;
        Await.exactly("requests answered, dropped on port A, or lost with node 2", requests,
            () -> replies.get() + rxDrops(pipeline) + gone.unconfirmed() + gone.rxNodeDown());
        final long dropped = rxDrops(pipeline);
        assertEquals(0, repliesRefused[0].get(), "replies node 1 could not send");
        assertEquals(2L * ROUNDS * (FLOWS - node2Flows), repliesOn(before, 1), "node 1's flows lost nothing");

        // Round 3: node 1 answers every flow; its own flows never moved.
        final long answered = replies.get();
        sendRound();
        Await.exactly("replies to round 3", answered + (long)FLOWS * ROUNDS, replies::get);
        assertOnlyNode2sFlowsMoved(before, socketBefore);
        assertEquals(dropped, rxDrops(pipeline), "drops on the edge's port A after node 2 was removed");
        pipeline.verify();
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aNewerIncarnationOfANodeFencesTheOldOneWhoseFramesAreRefusedNeverRelayed()
    {
        startClusterAndServeRoundOne();

        // Node 2 restarted as far as the edge can tell: a newer incarnation at its address binds socket 0 (as a
        // paused node's successor would, while the paused one still runs).
        final Address node2 = address(systems.get(2));
        final long oldUid = Cluster.get(systems.get(2)).selfMember().uniqueAddress().longUid();
        final NetworkRings successorRings = rings("app-2-successor");
        final PacketSubscription successorRing = successorRings.addSubscription("127.0.0.1:0",
            AppDataPlane.RX_STREAM_BASE, new RingDoorbell(() -> { }));
        final Queue<DataPlaneMessage> toSuccessor = new ConcurrentLinkedQueue<>();
        final ActorRef<DataPlaneMessage> successor = edgeSystem.systemActorOf(Behaviors.receiveMessage(message ->
        {
            toSuccessor.add(message);
            return Behaviors.same();
        }), "successor", Props.empty());
        final AppDataPlane.AppBooks node2Before = appBooks(2);
        edge.tell(new DataPlaneMessage.BindSocket("echo", 0, node2.toString(), oldUid + 1,
            successorRing.localEndpoint(), AppDataPlane.RX_STREAM_BASE, successor,
            successorRings.dataPlane().receiverWindowLength()));
        Await.until("the newer incarnation bound", () -> toSuccessor.peek() instanceof DataPlaneMessage.SocketBound,
            toSuccessor::toString);
        final EdgeDataPlane.NodeBooks fenced = incarnation(oldUid);
        assertEquals(List.of(false, 0, 0, node2Before.received(), node2Before.sent()),
            List.of(fenced.live(), fenced.sockets(), fenced.steered(), fenced.received() + fenced.unconfirmed() +
                fenced.rxNodeDown(), fenced.relayed()),
            "live, sockets, steered, received + unconfirmed + rx node_down, relayed of the old incarnation");
        assertEquals(node2Before.received(), fenced.published());

        // The old incarnation wakes and sends: every frame is refused and counted, none reaches the pipeline.
        final long sentOnTheEdge = pipeline.total(CounterType.SOCKET_SENT, 0);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        for (int i = 0; i < 10; i++)
        {
            assertTrue(appSockets.get(2).sendTo(clients[0].local(), payload, 0, payload.capacity()) > 0);
        }
        Await.exactly("the old incarnation's frames refused", 10, () -> incarnation(oldUid).txStaleIncarnation());
        assertEquals(List.of(node2Before.sent(), sentOnTheEdge), List.of(incarnation(oldUid).relayed(),
            pipeline.total(CounterType.SOCKET_SENT, 0)), "relayed from the old incarnation, sent on port A");

        // A bind from the old incarnation is refused by name; every flow is answered by node 1 meanwhile.
        final AppDataPlane.Opened late = ask(systems.get(2), apps.get(1), replyTo -> new AppDataPlane.Open("echo",
            5, (socket, request) -> { }, replyTo));
        assertEquals("node " + node2 + " incarnation " + oldUid + " was declared lost (removed from the cluster, " +
            "or a newer incarnation of it bound): its streams are refused; a restarted node binds as its new " +
            "incarnation", late.refusal());
        final long answered = replies.get();
        sendRound();
        Await.exactly("replies to round 2, all from node 1", answered + (long)FLOWS * ROUNDS, replies::get);
        assertEquals(0, rxDrops(pipeline), "drops on the edge's port A");
        pipeline.verify();
    }

    /**
     * A remote socket connected to one client (kernel-semantics §1, §2.4 across the hop): it records the RX queue its
     * peer's requests arrive on at the edge (from the frame header), picks its reply's TX queue by it under
     * {@code xps_rxqs} and caches it; the edge's completions bring its in-flight count back to 0, so once they have,
     * its next reply is a fresh pick (ooo_okay, §1.5) by the new map. The unconnected sockets beside it never cache a
     * queue nor record an RX queue, as before, and their in-flight counts come back to 0 too. The books keep their
     * identities.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aConnectedRemoteSocketCachesItsQueueByTheRequestsRxQueueAndTheEdgesCompletionsAgeIt()
    {
        startClusterAndServeRoundOne();
        for (final RemoteUdpSocket socket : allSockets)
        {
            awaitNoneInFlight(socket);
            assertEquals(List.of(-1, -1), List.of(socket.queueState().txQueue(), socket.queueState().rxQueue()),
                "socket " + socket.id() + " unconnected: cached TX queue, recorded RX queue");
        }

        // Crossed xps_rxqs on port A: TX queue 0 for RX queue 1, TX queue 1 for RX queue 0.
        setXpsRxqs("2", "1");
        final RemoteUdpSocket connected = appSockets.get(1);
        final int flow = flowServedBy(connected.id());
        connected.connect(clients[flow].local());
        final long answered = replies.get();
        final long[] onQueue = qdiscPackets();
        sendOne(flow);
        Await.exactly("the reply to the connected socket's peer", answered + 1, replies::get);
        final int rxQueue = connected.queueState().rxQueue();
        assertTrue(0 == rxQueue || 1 == rxQueue, "the request's RX queue, recorded: " + rxQueue);
        assertEquals(1 - rxQueue, connected.queueState().txQueue(), "cached: the TX queue xps_rxqs gives RX queue " +
            rxQueue);
        assertEquals(1, qdiscPackets()[1 - rxQueue] - onQueue[1 - rxQueue], "the reply on that TX queue");
        awaitNoneInFlight(connected);

        // Straight xps_rxqs now: nothing in flight, so the next reply picks afresh and caches the new queue.
        setXpsRxqs("1", "2");
        final long[] before = qdiscPackets();
        sendOne(flow);
        Await.exactly("the second reply", answered + 2, replies::get);
        assertEquals(List.of(rxQueue, rxQueue), List.of(connected.queueState().rxQueue(),
            connected.queueState().txQueue()), "RX queue recorded, TX queue cached by the new map");
        assertEquals(1, qdiscPackets()[rxQueue] - before[rxQueue], "the second reply on the new TX queue");
        awaitNoneInFlight(connected);
        for (final RemoteUdpSocket socket : allSockets)
        {
            if (socket != connected)
            {
                assertEquals(List.of(-1, -1), List.of(socket.queueState().txQueue(), socket.queueState().rxQueue()),
                    "socket " + socket.id() + " stays unconnected");
            }
        }

        final AppDataPlane.AppBooks app1 = appBooks(1);
        final AppDataPlane.AppBooks app2 = appBooks(2);
        final EdgeDataPlane.EdgeBooks books = edgeBooks();
        assertEquals(List.of(app1.sent(), app2.sent()), List.of(nodeBooks(books, 1).relayed(),
            nodeBooks(books, 2).relayed()), "each node's replies relayed");
        assertEquals(answered + 2, app1.sent() + app2.sent(), "replies sent, one per request");
        pipeline.verify();
    }

    /**
     * A remote socket connected to client flow A, which the group steers to the other node: the edge files it under
     * its 4-tuple, so it receives all of A's requests (and answers them) and no other flow's; of the other flows only
     * those the group steered to it move, each to one other socket (rendezvous: the rest stay where they were).
     * Disconnected, it gets its steered share back and A returns to its socket. Connected again and its node lost
     * without leaving: the entry goes with the node, and A goes to the live member the group steers it to. After each,
     * the edge's exact entries are exactly what the test expects, empty once nothing is connected.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aConnectedRemoteSocketReceivesExactlyItsPeersFlowUntilItDisconnectsOrItsNodeIsLost()
    {
        startClusterAndServeRoundOne();
        final Map<Integer, Integer> socketBefore = Map.copyOf(servedBy);
        final RemoteUdpSocket connected = appSockets.get(1);
        assertTrue(socketBefore.containsValue(connected.id()), "the socket served flows in round 1: " + socketBefore);
        final int flowA = flowServedByNode(2);
        final Endpoint peer = clients[flowA].local();
        assertEquals(Map.of(), connectedOnEdge(), "exact entries on the edge before any connect");

        connected.connect(peer);
        Await.until("the edge filed the socket under its 4-tuple",
            () -> Map.of(connected.id(), peer).equals(connectedOnEdge()), this::connectedOnEdge);
        final long flowAReplies = repliesByFlow.get(flowA);
        serveRound();
        assertEquals(ROUNDS, repliesByFlow.get(flowA) - flowAReplies, "A's requests answered");
        for (int f = 0; f < FLOWS; f++)
        {
            final int port = CLIENT_PORT + f;
            final Set<Integer> served = socketsOfFlow.get(port);
            if (f == flowA)
            {
                assertEquals(Set.of(connected.id()), served, "flow A, connected to socket " + connected.id());
            }
            else if (connected.id() == socketBefore.get(port))
            {
                assertEquals(1, served.size(), "flow " + port + " moved to one socket: " + served);
                assertTrue(!served.contains(connected.id()), "flow " + port + " is not steered to the connected " +
                    "socket: " + served);
            }
            else
            {
                assertEquals(Set.of(socketBefore.get(port)), served, "flow " + port + " stayed on its socket");
            }
        }

        connected.disconnect();
        Await.until("the edge's exact entry gone", () -> connectedOnEdge().isEmpty(), this::connectedOnEdge);
        serveRound();
        for (int f = 0; f < FLOWS; f++)
        {
            final int port = CLIENT_PORT + f;
            assertEquals(Set.of(socketBefore.get(port)), socketsOfFlow.get(port), "flow " + port + " is steered " +
                "as in round 1");
        }

        connected.connect(peer);
        Await.until("the edge filed the socket again", () -> Map.of(connected.id(), peer).equals(connectedOnEdge()),
            this::connectedOnEdge);
        final Address lost = address(systems.get(1));
        systems.get(1).terminate();
        Await.until(lost + " removed from the edge's books", () -> {
            final EdgeDataPlane.NodeBooks books = edgeBooks().node(lost.toString());
            return null != books && !books.live();
        }, this::edgeBooks, Duration.ofSeconds(40));
        Await.until("node 1's members closed, their exact entry with them", () -> connectedOnEdge().isEmpty(),
            this::connectedOnEdge);
        serveRound();
        assertEquals(Set.of(socketBefore.get(CLIENT_PORT + flowA)), socketsOfFlow.get(CLIENT_PORT + flowA),
            "flow A on the socket of node 2 the group steers it to");
        for (int f = 0; f < FLOWS; f++)
        {
            final Set<Integer> served = socketsOfFlow.get(CLIENT_PORT + f);
            assertEquals(List.of(1, 2), List.of(served.size(), nodeOf.get(served.iterator().next())),
                "flow " + (CLIENT_PORT + f) + ": sockets, and the node of the one that served it");
        }
        assertEquals(0, rxDrops(pipeline), "drops on the edge's port A");
        pipeline.verify();
    }

    /** A round on every flow, all answered, with {@link #socketsOfFlow} cleared before it. */
    private void serveRound()
    {
        socketsOfFlow.clear();
        final long answered = replies.get();
        sendRound();
        Await.exactly("replies to the round", answered + (long)FLOWS * ROUNDS, replies::get);
    }

    /** A client flow a socket of app node {@code node} served last. */
    private int flowServedByNode(final int node)
    {
        for (int f = 0; f < FLOWS; f++)
        {
            final Integer socket = servedBy.get(CLIENT_PORT + f);
            if (null != socket && node == nodeOf.get(socket))
            {
                return f;
            }
        }
        throw new AssertionError("node " + node + " served no flow: " + servedBy);
    }

    /** The edge pipeline's sockets filed under an exact 4-tuple: their peers by socket id. */
    private Map<Integer, Endpoint> connectedOnEdge()
    {
        final Map<Integer, Endpoint> connected = new HashMap<>();
        for (final UdpSocket socket : pipeline.sockets())
        {
            if (null != socket.remote())
            {
                connected.put(socket.id(), socket.remote());
            }
        }
        return connected;
    }

    /** {@link #startCluster}, then a round of requests on every flow, all answered. */
    private void startClusterAndServeRoundOne()
    {
        startCluster();
        sendRound();
        Await.exactly("replies to the first round", (long)FLOWS * ROUNDS, replies::get);
    }

    /**
     * Three systems in one cluster; the edge's pipeline (loop device, service {@code echo} on port A) and data
     * plane on the first; on each of the others an app data plane with two sockets of {@code echo}, all four
     * steered to; {@link #FLOWS} client sockets on port B.
     */
    private void startCluster()
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

        edgeSystem = systems.get(0);
        pipeline = Pipeline.start(edgeSystem, PipelineConfig.builder().name("edge").cpus(2)
            .device("loop:tx=2,rx=2,ring=1024,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16)
            .build());
        edge = edgeSystem.systemActorOf(EdgeDataPlane.create(pipeline, rings("edge-data"),
            "127.0.0.1:" + FreePorts.udp(), Map.of("echo", SocketOptions.udp4(SERVICE.port()).reusePort(true))),
            "edge-data", Props.empty());

        for (int n = 1; n <= 2; n++)
        {
            final ActorSystem<Void> system = systems.get(n);
            final int node = n;
            final ActorRef<AppDataPlane.Command> app = system.systemActorOf(AppDataPlane.create(rings("app-" + n),
                "127.0.0.1:" + FreePorts.udp(), 0, RECEIPTS), "app-data", Props.empty());
            apps.add(app);
            for (int index = 0; index < SOCKETS_PER_NODE; index++)
            {
                final int socketIndex = index;
                final AppDataPlane.Opened reply = ask(system, app, replyTo -> new AppDataPlane.Open("echo",
                    socketIndex, (socket, request) -> echo(node, socket, request), replyTo));
                assertNull(reply.refusal(), "the edge refused a socket");
                appSockets.putIfAbsent(node, reply.socket());
                allSockets.add(reply.socket());
            }
        }
        Await.until("all four remote sockets steered to", () -> steered() == 2 * SOCKETS_PER_NODE,
            this::edgeBooks, FORMATION);
        for (int f = 0; f < FLOWS; f++)
        {
            final int flow = f;
            clients[f] = pipeline.openUdp(SocketOptions.udp4(CLIENT_PORT + f).onPort(1).handler((socket, reply) ->
            {
                repliesByFlow.incrementAndGet(flow);
                replies.incrementAndGet();
            }));
        }
    }

    /** The app's handler: echo, retrying a full TX stream briefly; which node served the flow is noted. */
    private void echo(final int node, final UdpSocket socket, final ReceivedDatagram request)
    {
        servedBy.put(request.sourcePort(), socket.id());
        socketsOfFlow.computeIfAbsent(request.sourcePort(), flow -> ConcurrentHashMap.newKeySet()).add(socket.id());
        nodeOf.put(socket.id(), node);
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

    private void sendRound()
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

    /** The edge's completions count every packet of {@code socket} down (they are sent, never dropped, here). */
    private static void awaitNoneInFlight(final RemoteUdpSocket socket)
    {
        Await.until("socket " + socket.id() + "'s packets in flight back to 0 by the edge's completions",
            () -> 0 == socket.inFlight(), () -> socket.inFlight() + " in flight of " + socket.sent() + " sent");
    }

    /** One request on client flow {@code flow}. */
    private void sendOne(final int flow)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        payload.putByte(0, (byte)1);
        assertTrue(clients[flow].sendTo(SERVICE, payload, 0, payload.capacity()) > 0, "client send");
    }

    /** A client flow socket {@code socketId} served in round 1. */
    private int flowServedBy(final int socketId)
    {
        for (int f = 0; f < FLOWS; f++)
        {
            if (Integer.valueOf(socketId).equals(servedBy.get(CLIENT_PORT + f)))
            {
                return f;
            }
        }
        throw new AssertionError("socket " + socketId + " served no flow: " + servedBy);
    }

    /**
     * Writes port A's {@code xps_rxqs} of TX queues 0 and 1 through the edge, and waits until every app socket picks
     * by the new map.
     */
    private void setXpsRxqs(final String txq0, final String txq1)
    {
        final String[] masks = {txq0, txq1};
        for (int q = 0; q < 2; q++)
        {
            final int txq = q;
            final XpsChange change = ask(edgeSystem, edge, replyTo -> new EdgeDataPlane.SetXpsRxqs(0, txq, masks[txq],
                replyTo));
            assertTrue(change.applied(), change.message());
        }
        final boolean crossed = "2".equals(txq0);
        Await.until("every app socket picks by xps_rxqs " + txq0 + ", " + txq1, () -> allSockets.stream().allMatch(
            socket -> socket.queueMap().xpsRxqs(0).get(crossed ? 1 : 0) && socket.queueMap().xpsRxqs(1).get(crossed ?
                0 : 1) && !socket.queueMap().xpsRxqs(0).get(crossed ? 0 : 1)), allSockets::toString);
    }

    /** The packets port A's qdiscs of TX queues 0 and 1 have taken. */
    private long[] qdiscPackets()
    {
        return new long[] {pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 0)),
            pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, 1))};
    }

    /** What port A dropped on receive, counted: every RX-queue reason, and the device's missed and dropped frames. */
    private static long rxDrops(final Pipeline pipeline)
    {
        long drops = 0;
        for (final CounterType type : List.of(CounterType.RX_DROP_MALFORMED, CounterType.RX_DROP_NO_SOCKET,
            CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_NODE_DOWN, CounterType.RX_DROP_UNSUPPORTED,
            CounterType.RX_DROP_FAILED))
        {
            drops += pipeline.total(type, 0);
        }
        for (int q = 0; q < pipeline.driver(0).rxQueueCount(); q++)
        {
            drops += pipeline.driver(0).stats(q).rxMissed() + pipeline.driver(0).stats(q).rxDropped();
        }
        return drops;
    }

    private NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        final NetworkRings network = NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
        rings.add(network);
        return network;
    }

    /** Which app node served each flow last, by the client's port. */
    private Map<Integer, Integer> nodeByFlow()
    {
        final Map<Integer, Integer> nodes = new HashMap<>();
        servedBy.forEach((flow, socket) -> nodes.put(flow, nodeOf.get(socket)));
        return Map.copyOf(nodes);
    }

    /** Rendezvous steering: node 2's flows went to node 1, and every flow of node 1 stayed on its own socket. */
    private void assertOnlyNode2sFlowsMoved(final Map<Integer, Integer> nodeBefore,
        final Map<Integer, Integer> socketBefore)
    {
        for (final Map.Entry<Integer, Integer> flow : nodeBefore.entrySet())
        {
            final int socket = servedBy.get(flow.getKey());
            assertEquals(1, nodeOf.get(socket), "flow " + flow.getKey() + " is served by node 1");
            if (1 == flow.getValue())
            {
                assertEquals(socketBefore.get(flow.getKey()), socket, "flow " + flow.getKey() + " of node 1 moved");
            }
        }
    }

    /** Replies received on the flows that app node {@code node} served in round 1. */
    private long repliesOn(final Map<Integer, Integer> servedInRoundOne, final int node)
    {
        long sum = 0;
        for (int f = 0; f < FLOWS; f++)
        {
            sum += node == servedInRoundOne.get(CLIENT_PORT + f) ? repliesByFlow.get(f) : 0;
        }
        return sum;
    }

    private int steered()
    {
        int steered = 0;
        for (final EdgeDataPlane.NodeBooks node : edgeBooks().nodes())
        {
            steered += node.steered();
        }
        return steered;
    }

    private EdgeDataPlane.NodeBooks nodeBooks(final EdgeDataPlane.EdgeBooks books, final int node)
    {
        return books.node(address(systems.get(node)).toString());
    }

    /** The edge's books of node 2's incarnation {@code uid}. */
    private EdgeDataPlane.NodeBooks incarnation(final long uid)
    {
        return edgeBooks().nodes().stream().filter(books -> books.incarnation() == uid).findFirst().orElseThrow();
    }

    private EdgeDataPlane.EdgeBooks edgeBooks()
    {
        return ask(edgeSystem, edge, EdgeDataPlane.GetBooks::new);
    }

    private AppDataPlane.AppBooks appBooks(final int node)
    {
        return ask(systems.get(node), apps.get(node - 1), AppDataPlane.GetBooks::new);
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
}
