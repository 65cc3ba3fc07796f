package io.xmit.deploy.cluster;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterType;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.deploy.cluster.data.EdgeDataPlane;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedding API: a deployment read from HOCON, each of its three nodes started by {@link ClusterNode} in an
 * ActorSystem of its own made from the node's generated configuration; requests from clients on the edge's loop
 * device reach the app nodes' sockets (one node's handler registered in code, the other's the file's {@code echo})
 * and come back, with exact books; the app nodes leave gracefully and their final books close. A handler class that
 * is missing, of another type or whose constructor throws is refused naming the key. A {@code sharded 3} service has
 * exactly three sockets over the two app nodes, and all three on the other one after one left; a pinned one has
 * socket i on the i-th pin.
 */
class ClusterNodeTest
{
    private static final int FLOWS = 16;
    private static final int ROUNDS = 10;
    private static final Duration FORMATION = Duration.ofSeconds(60);
    private static final Config TEST = ConfigFactory.parseString("""
        akka.loglevel = WARNING
        akka.loggers = ["akka.event.slf4j.Slf4jLogger"]
        akka.logging-filter = "akka.event.slf4j.Slf4jLoggingFilter"
        akka.cluster.jmx.multi-mbeans-in-same-jvm = on
        akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
        """);

    private final List<ActorSystem<Void>> systems = new ArrayList<>();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicLong handledInCode = new AtomicLong();

    @AfterEach
    void terminateAll()
    {
        for (final ActorSystem<Void> system : systems.reversed())
        {
            system.terminate();
            Await.until(system.address() + " terminated",
                () -> system.getWhenTerminated().toCompletableFuture().isDone(), () -> "running",
                Duration.ofSeconds(30));
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDeploymentStartedThroughTheApiServesRequestsWithExactBooksAndDrainsOnLeave()
    {
        final List<ClusterNode> nodes = startAll("handler = echo, placement = \"per-node 2\"");
        final ClusterNode edge = nodes.get(0);
        for (final ClusterNode app : nodes.subList(1, 3))
        {
            assertEquals(2, app.ready().toCompletableFuture().join().size(), "sockets bound on " + app.node());
        }
        assertEquals(4, edge.plannedSockets());
        Await.exactly("sockets the edge steers to", 4, () -> edge.steered().toCompletableFuture().join(),
            FORMATION);

        final Pipeline pipeline = edge.pipelines().get("nic0");
        final List<UdpSocket> clients = clients(pipeline);
        final long requests = send(clients);
        Await.exactly("replies", requests, replies::get, FORMATION);
        assertTrue(handledInCode.get() > 0 && handledInCode.get() < requests,
            "app-1's registered handler served some flows, app-2's echo the others: " + handledInCode.get());

        for (final ClusterNode app : nodes.subList(1, 3))
        {
            app.leave().toCompletableFuture().join();
        }
        final long received = nodes.subList(1, 3).stream()
            .mapToLong(app -> app.finalBooks().orElseThrow().app().orElseThrow().received()).sum();
        final long sent = nodes.subList(1, 3).stream()
            .mapToLong(app -> app.finalBooks().orElseThrow().app().orElseThrow().sent()).sum();
        assertEquals(List.of(requests, requests), List.of(received, sent), "received and sent on the app nodes");
        assertEquals(handledInCode.get(), nodes.get(1).finalBooks().orElseThrow().app().orElseThrow().received());

        final ClusterNode.Books books = edge.books().toCompletableFuture().join();
        final List<EdgeDataPlane.NodeBooks> gone = books.edges().get("nic0").nodes();
        assertEquals(2, gone.size());
        for (final EdgeDataPlane.NodeBooks node : gone)
        {
            assertEquals(List.of(false, node.published(), 0L, node.published(), 0L, 0L, 0L),
                List.of(node.live(), node.received(), node.unconfirmed(), node.relayed(), node.rejected(),
                    node.refused(), node.txNodeDown()),
                "live, received, unconfirmed, relayed, rejected, refused, tx_node_down of " + node.node());
        }
        assertEquals(requests, gone.stream().mapToLong(EdgeDataPlane.NodeBooks::published).sum());
        final ClusterNode.ServiceBooks echo = books.edgeDevices().get(0);
        assertEquals(List.of("echo", requests, 0L), List.of(echo.service(), echo.delivered(), echo.dropped()));
        assertEquals(requests, pipeline.total(CounterType.RX_DELIVERED, 1), "replies delivered to the clients");
        edge.leave().toCompletableFuture().join();
        assertTrue(edge.finalBooks().isPresent(), "the edge took its books while draining");
    }

    /**
     * Two services on two devices of the edge, on the same UDP port: each device has an edge data plane of its own and
     * each app node a data plane per edge, so the edges' socket ids and ports, equal on both, never meet.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void servicesOnTwoDevicesAreServedByEveryAppNodeWithTheBooksOfEachDeviceExact()
    {
        final List<ClusterNode> nodes = startFile(deployment(device("nic0") + ", " + device("nic1"), """
            [{ name = echo, bind { device = nic0, port = 0, udp = 7 }, handler = echo, placement = "per-node 1" },
             { name = echo-b, bind { device = nic1, port = 0, udp = 7 }, handler = echo, placement = "per-node 2" }]
            """));
        final ClusterNode edge = nodes.get(0);
        for (final ClusterNode app : nodes.subList(1, 3))
        {
            assertEquals(3, app.ready().toCompletableFuture().join().size(), "sockets bound on " + app.node());
        }
        assertEquals(6, edge.plannedSockets());
        Await.exactly("sockets the edge steers to", 6, () -> edge.steered().toCompletableFuture().join(),
            FORMATION);

        final Map<String, Long> requests = new LinkedHashMap<>();
        for (final String device : List.of("nic0", "nic1"))
        {
            requests.put(device, send(clients(edge.pipelines().get(device))));
        }
        final long all = requests.values().stream().mapToLong(Long::longValue).sum();
        Await.exactly("replies on both devices", all, replies::get, FORMATION);
        assertTrue(handledInCode.get() > 0 && handledInCode.get() < requests.get("nic0"),
            "app-1's registered handler served some of echo's flows and none of echo-b's: " + handledInCode.get());

        for (final ClusterNode app : nodes.subList(1, 3))
        {
            app.leave().toCompletableFuture().join();
        }
        assertEquals(List.of(all, all), List.of(
            nodes.subList(1, 3).stream().mapToLong(app -> app.finalBooks().orElseThrow().app().orElseThrow()
                .received()).sum(),
            nodes.subList(1, 3).stream().mapToLong(app -> app.finalBooks().orElseThrow().app().orElseThrow()
                .sent()).sum()), "received and sent on the app nodes, over both of their data planes");
        final ClusterNode.Books books = edge.books().toCompletableFuture().join();
        assertEquals(List.of("nic0", "nic1"), List.copyOf(books.edges().keySet()));
        for (final String device : List.of("nic0", "nic1"))
        {
            final List<EdgeDataPlane.NodeBooks> gone = books.edges().get(device).nodes();
            assertEquals(2, gone.size(), "app nodes served on " + device);
            for (final EdgeDataPlane.NodeBooks node : gone)
            {
                assertEquals(List.of(false, node.published(), 0L, node.published(), 0L, 0L, 0L),
                    List.of(node.live(), node.received(), node.unconfirmed(), node.relayed(), node.rejected(),
                        node.refused(), node.txNodeDown()),
                    "live, received, unconfirmed, relayed, rejected, refused, tx_node_down of " + node.node() +
                        " on " + device);
            }
            assertEquals(requests.get(device), gone.stream().mapToLong(EdgeDataPlane.NodeBooks::published).sum(),
                "published on " + device);
            assertEquals(requests.get(device), edge.pipelines().get(device).total(CounterType.RX_DELIVERED, 1),
                "replies delivered to the clients on " + device);
        }
        assertEquals(List.of("echo nic0 " + requests.get("nic0") + " 0", "echo-b nic1 " + requests.get("nic1") + " 0"),
            books.edgeDevices().stream().map(service -> service.service() + " " + service.device() + " " +
                service.delivered() + " " + service.dropped()).toList());
        edge.leave().toCompletableFuture().join();
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shardedSocketsAreExactlyNClusterWideAndMoveToTheOtherNodeWhenOneLeaves()
    {
        final List<ClusterNode> nodes = startAll("handler = echo, placement = \"sharded 3\"");
        final ClusterNode edge = nodes.get(0);
        assertEquals(List.of(), nodes.get(1).ready().toCompletableFuture().join(), "sharding places the sockets");
        assertEquals(3, edge.plannedSockets());
        Await.exactly("sockets the edge steers to", 3, () -> edge.steered().toCompletableFuture().join(),
            FORMATION);
        // Sharding decides the split (3-0 or 2-1): the node that holds more leaves, so at least one socket moves.
        final boolean firstHoldsMore = steeredOn(edge, nodes.get(1)) >= steeredOn(edge, nodes.get(2));
        final ClusterNode leaving = nodes.get(firstHoldsMore ? 1 : 2);
        final ClusterNode staying = nodes.get(firstHoldsMore ? 2 : 1);
        final int moving = steeredOn(edge, leaving);
        assertTrue(moving >= 2, "the node leaving holds " + moving + " of the 3 sockets");
        final Pipeline pipeline = edge.pipelines().get("nic0");
        final List<UdpSocket> clients = clients(pipeline);
        final long requests = send(clients);
        Await.exactly("replies", requests, replies::get, FORMATION);

        leaving.leave().toCompletableFuture().join();
        Await.exactly("sockets the edge steers to on " + staying.node().name(), 3, () -> steeredOn(edge, staying),
            FORMATION);
        assertEquals(3, edge.steered().toCompletableFuture().join(), "sockets the edge steers to, cluster-wide");
        final long more = send(clients);
        Await.exactly("replies after the move", requests + more, replies::get, FORMATION);

        staying.leave().toCompletableFuture().join();
        assertBalanced(edge, leaving);
        assertBalanced(edge, staying);
        final AppDataPlane.AppBooks left = leaving.finalBooks().orElseThrow().app().orElseThrow();
        final AppDataPlane.AppBooks stayed = staying.finalBooks().orElseThrow().app().orElseThrow();
        assertEquals(List.of(requests + more, requests + more), List.of(left.received() + stayed.received(),
            left.sent() + stayed.sent()), "received and sent on the app nodes");
        final ClusterNode.ServiceBooks echo = edge.books().toCompletableFuture().join().edgeDevices().get(0);
        assertEquals(List.of(requests + more, 0L), List.of(echo.delivered(), echo.dropped()));
    }

    /**
     * Sharding moves a socket to a node that joins later (its rebalance), which closes the socket alone on the node
     * that had all three ({@link io.xmit.deploy.cluster.data.AppDataPlane.Close}): out of steering, read to the end,
     * released, with the books of both nodes exact.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aShardedSocketMovedByARebalanceIsClosedGracefullyWhereItWas()
    {
        final Deployment deployment = DeploymentReader.fromConfig(ConfigFactory.parseString(deployment(
            "handler = echo, placement = \"sharded 3\"")));
        final ClusterNode edge = start(deployment, deployment.requireNode("edge-1"));
        final ClusterNode first = start(deployment, deployment.requireNode("app-1"));
        Await.exactly("sockets the edge steers to on app-1", 3, () -> steeredOn(edge, first), FORMATION);
        final List<UdpSocket> clients = clients(edge.pipelines().get("nic0"));
        final long requests = send(clients);
        Await.exactly("replies", requests, replies::get, FORMATION);

        final ClusterNode second = start(deployment, deployment.requireNode("app-2"));
        Await.until("a socket moved to app-2, three in all", () -> steeredOn(edge, second) > 0 &&
            3 == edge.steered().toCompletableFuture().join(), () -> List.of(steeredOn(edge, first),
            steeredOn(edge, second)), FORMATION);
        final long more = send(clients);
        Await.exactly("replies after the move", requests + more, replies::get, FORMATION);
        final long closedOnFirst = first.books().toCompletableFuture().join().app().orElseThrow().sockets() -
            steeredOn(edge, first);
        assertTrue(closedOnFirst > 0, "app-1 closed the sockets that moved: " + closedOnFirst);

        first.leave().toCompletableFuture().join();
        second.leave().toCompletableFuture().join();
        assertEquals(requests + more, assertBalanced(edge, first) + assertBalanced(edge, second),
            "received on the app nodes");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPinnedShardedSocketRunsOnItsPinnedNode()
    {
        final List<ClusterNode> nodes = startAll(
            "handler = echo, placement = \"sharded 3 pinned\", pin = [app-2, app-1, app-2]");
        final ClusterNode edge = nodes.get(0);
        assertEquals(List.of(1, 2), nodes.subList(1, 3).stream()
            .map(app -> app.ready().toCompletableFuture().join().size()).toList(), "sockets bound on app-1, app-2");
        assertEquals(3, edge.plannedSockets());
        Await.exactly("sockets the edge steers to", 3, () -> edge.steered().toCompletableFuture().join(),
            FORMATION);
        assertEquals(List.of(1, 2), nodes.subList(1, 3).stream().map(app -> steeredOn(edge, app)).toList(),
            "sockets steered to on app-1, app-2");
        final long requests = send(clients(edge.pipelines().get("nic0")));
        Await.exactly("replies", requests, replies::get, FORMATION);
    }

    @Test
    void aHandlerClassThatIsMissingOfAnotherTypeOrThrowsIsRefusedByItsKey()
    {
        final String key = "xmit.cluster.services[0].handler";
        assertEquals(key + " = 'com.example.NoSuchHandler': no such class on the class path " +
                "(java.lang.ClassNotFoundException: com.example.NoSuchHandler)",
            refusal("handler = com.example.NoSuchHandler"));
        assertEquals(key + " = 'java.lang.String' does not implement io.xmit.actors.DatagramHandler",
            refusal("handler = java.lang.String"));
        assertEquals(key + " = '" + ThrowingHandler.class.getName() + "': its constructor threw " +
            "java.lang.IllegalStateException: no licence", refusal("handler = \"" + ThrowingHandler.class.getName() +
            "\""));
        assertEquals(key + " = '" + PrivateHandler.class.getName() + "' has no public no-argument constructor",
            refusal("handler = \"" + PrivateHandler.class.getName() + "\""));
        assertEquals("a handler is registered for service 'ech', which the deployment does not have; its " +
            "services are [echo]", assertThrows(IllegalArgumentException.class, () -> ClusterNode.check(
                DeploymentReader.fromConfig(ConfigFactory.parseString(deployment("handler = echo"))),
                new ServiceHandlers().register("ech", EchoHandler::new))).getMessage());
    }

    @Test
    void anAppNodeWithoutAHandlerForItsServiceIsRefusedBeforeAnythingStarts()
    {
        final Deployment deployment = DeploymentReader.fromConfig(ConfigFactory.parseString(deployment("")));
        ClusterNode.check(deployment, new ServiceHandlers());
        final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), deployment.name(),
            deployment.akkaConfig(deployment.requireNode("app-1")).withFallback(TEST)
                .withFallback(ConfigFactory.load()));
        systems.add(system);
        assertEquals("xmit.cluster.services[0].handler: service echo has no handler, and its sockets are to run on " +
                "this node; name a class that implements io.xmit.actors.DatagramHandler (or echo), or register one " +
                "in code",
            assertThrows(IllegalArgumentException.class, () -> ClusterNode.start(system, deployment, "app-1",
                new ServiceHandlers())).getMessage());
    }

    private static String refusal(final String service)
    {
        final Deployment deployment = DeploymentReader.fromConfig(ConfigFactory.parseString(deployment(service)));
        return assertThrows(IllegalArgumentException.class,
            () -> ClusterNode.check(deployment, new ServiceHandlers())).getMessage();
    }

    /**
     * The deployment of {@code service}'s keys, its three nodes started in systems of their own, in the file's
     * order (edge-1, app-1, app-2); app-1's handler is registered in code.
     */
    private List<ClusterNode> startAll(final String service)
    {
        return startFile(deployment(service));
    }

    /** The deployment {@code file}'s nodes started in systems of their own, in the file's order. */
    private List<ClusterNode> startFile(final String file)
    {
        final Deployment deployment = DeploymentReader.fromConfig(ConfigFactory.parseString(file));
        return deployment.nodes().stream().map(node -> start(deployment, node)).toList();
    }

    private ClusterNode start(final Deployment deployment, final Node node)
    {
        final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), deployment.name(),
            deployment.akkaConfig(node).withFallback(TEST).withFallback(ConfigFactory.load()));
        systems.add(system);
        final ServiceHandlers handlers = new ServiceHandlers();
        if ("app-1".equals(node.name()))
        {
            handlers.register("echo", () -> this::countingEcho);
        }
        return ClusterNode.start(system, deployment, node.name(), handlers);
    }

    /**
     * The edge's books of {@code app}, gone after a graceful leave, balance with the node's own final books: all it
     * was published received and relayed, none unconfirmed, rejected, refused or lost to its going down. Returns what
     * the node received.
     */
    private static long assertBalanced(final ClusterNode edge, final ClusterNode app)
    {
        final EdgeDataPlane.NodeBooks gone = edge.books().toCompletableFuture().join().edges().get("nic0")
            .node(app.node().akkaAddress("embedded"));
        final AppDataPlane.AppBooks own = app.finalBooks().orElseThrow().app().orElseThrow();
        assertEquals(List.of(false, gone.published(), gone.published(), 0L, gone.published(), 0L, 0L, 0L),
            List.of(gone.live(), own.received(), gone.received(), gone.unconfirmed(), gone.relayed(),
                gone.rejected(), gone.refused(), gone.txNodeDown()),
            "live, received on the node, received, unconfirmed, relayed, rejected, refused, tx_node_down of " +
                app.node().name());
        return own.received();
    }

    /** The sockets {@code edge} steers to on {@code app} now: 0 before it has bound any. */
    private static int steeredOn(final ClusterNode edge, final ClusterNode app)
    {
        final EdgeDataPlane.NodeBooks books = edge.books().toCompletableFuture().join().edges().get("nic0")
            .node(app.node().akkaAddress("embedded"));
        return null == books ? 0 : books.steered();
    }

    /** A client per flow on the edge's loop device, each counting the replies it gets. */
    private List<UdpSocket> clients(final Pipeline pipeline)
    {
        final List<UdpSocket> clients = new ArrayList<>();
        for (int f = 0; f < FLOWS; f++)
        {
            clients.add(pipeline.openUdp(SocketOptions.udp4(20_000 + f).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7)).handler((socket, reply) -> replies.incrementAndGet())));
        }
        return clients;
    }

    /** {@code ROUNDS} requests from every client; returns how many were sent. */
    private static long send(final List<UdpSocket> clients)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        for (int r = 0; r < ROUNDS; r++)
        {
            for (final UdpSocket client : clients)
            {
                long result;
                while (SendResult.BACK_PRESSURED == (result = client.send(payload, 0, payload.capacity())))
                {
                    Thread.onSpinWait();
                }
                assertTrue(result > 0, "client send: " + SendResult.name(result));
            }
        }
        return (long)clients.size() * ROUNDS;
    }

    /** An echo that counts what it served: registered in code for app-1. */
    private void countingEcho(final UdpSocket socket, final ReceivedDatagram request)
    {
        handledInCode.incrementAndGet();
        socket.reply(request, request.buffer(), request.payloadOffset(), request.payloadLength());
    }

    /** An edge with a small loop device and two app nodes on free ports; {@code service} is the service's keys. */
    private static String deployment(final String service)
    {
        return deployment(device("nic0"), "[{ name = echo, bind { device = nic0, port = 0, udp = 7 }, " + service +
            " }]");
    }

    /** A small loop device named {@code name}, as an entry of an edge's {@code devices}. */
    private static String device(final String name)
    {
        return """
            { name = %s, device = "loop:tx=2,rx=2,ring=256,frame=2048", cpus = 1, spin-polls = 0,
              rings.qdisc-term-length = 1MiB, rings.socket-term-length = 64KiB }""".formatted(name);
    }

    /** An edge with {@code devices} and two app nodes on free ports, serving {@code services}. */
    private static String deployment(final String devices, final String services)
    {
        return """
            xmit.cluster {
              name = embedded
              nodes = [
                { name = edge-1, host = "127.0.0.1", port = %d, data-port = %d, roles = [edge], devices = [%s] }
                { name = app-1, host = "127.0.0.1", port = %d, data-port = %d, roles = [app] }
                { name = app-2, host = "127.0.0.1", port = %d, data-port = %d, roles = [app] }
              ]
              seed-nodes = [edge-1]
              services = %s
              failure { detector.acceptable-heartbeat-pause = 10s, split-brain.stable-after = 20s }
            }
            akka.remote.artery.advanced.inbound-lanes = 1
            """.formatted(FreePorts.tcp(), FreePorts.udp(), devices, FreePorts.tcp(), FreePorts.udp(),
                FreePorts.tcp(), FreePorts.udp(), services);
    }

    /** A handler whose constructor fails. */
    public static final class ThrowingHandler implements DatagramHandler
    {
        public ThrowingHandler()
        {
            throw new IllegalStateException("no licence");
        }

        @Override
        public void onDatagram(final UdpSocket socket, final ReceivedDatagram datagram)
        {
            throw new AssertionError("never made");
        }
    }

    /** A handler without a public no-argument constructor. */
    public static final class PrivateHandler implements DatagramHandler
    {
        private PrivateHandler()
        {
        }

        @Override
        public void onDatagram(final UdpSocket socket, final ReceivedDatagram datagram)
        {
            throw new AssertionError("never made");
        }
    }
}
