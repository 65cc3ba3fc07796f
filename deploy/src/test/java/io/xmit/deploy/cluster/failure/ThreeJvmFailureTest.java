package io.xmit.deploy.cluster.failure;

import io.xmit.pipeline.testing.Await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16's failure tests with three JVMs on 127.0.0.1 ({@code -Xmx256m} each): an edge with a loop device whose
 * clients load the service {@code echo} at a fixed rate, and two app nodes with two sockets each, every node a
 * {@link FailureNode} built from one deployment file with short failure settings (heartbeat 500 ms, acceptable pause
 * 3 s, static quorum of the edge, stable-after 3 s). One app node is killed (SIGKILL), terminated (SIGTERM) or paused
 * past the split-brain resolver's decision and resumed (SIGSTOP, SIGCONT) under load; the service goes on on the
 * other, and every request the clients sent is answered, dropped on the edge under a reason, or counted in the lost
 * node's {@code unconfirmed}. Each test starts its own three JVMs (20–45 s on a loaded machine) and kills them at the
 * end whatever happened.
 */
class ThreeJvmFailureTest
{
    /** Three JVMs loading Akka at once on two shared cores (docs/cluster.md: 45 s and more seen). */
    private static final Duration ALL_UP = Duration.ofSeconds(180);
    /** Unreachable after the acceptable pause, then stable-after, then removal: 7 s and a margin for load. */
    private static final Duration REMOVED = Duration.ofSeconds(60);
    private static final Duration REPLY = Duration.ofSeconds(20);
    /** One request every 2 ms: 500 a second over the 48 flows. */
    private static final long LOAD_MICROS = 2_000;
    private static final int ANSWERS_BEFORE = 1_000;
    private static final int ANSWERS_AFTER = 1_000;

    @TempDir
    Path dir;

    private final List<NodeProcess> nodes = new ArrayList<>();
    private NodeProcess edge;
    private NodeProcess app1;
    private NodeProcess app2;

    /** Every JVM killed, then its output in the test's: what each node said is the record of a failure. */
    @AfterEach
    void killEveryNode()
    {
        nodes.forEach(NodeProcess::close);
        nodes.forEach(node -> System.out.println(node.output()));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anAppNodeKilledUnderLoadMovesItsFlowsAndEveryRequestIsAccountedFor()
    {
        startCluster();
        loadUntilBothNodesAnswered();

        final long killedAt = System.currentTimeMillis();
        app2.kill();
        final long unreachableAt = memberChange("app-2", "unreachable");
        final long removedAt = memberChange("app-2", "removed");
        answeredAfterRemoval();
        final Map<String, String> edgeBooks = quietEdgeBooks();
        final long movedAt = Long.parseLong(edgeBooks.get("movedOff.app-2"));
        System.out.printf("failover after SIGKILL: unreachable %d ms, first flow of app-2 answered by app-1 %d ms, " +
            "removed %d ms%n", unreachableAt - killedAt, movedAt - killedAt, removedAt - killedAt);
        assertTrue(movedAt >= killedAt, () -> "a flow of app-2 was answered by app-1 after the kill: " + edgeBooks);

        survivorBooksExact();
        final Map<String, String> gone = accountedFor("app-2");
        assertEquals("false", gone.get("live"), () -> "app-2 is closed on the edge: " + gone);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anAppNodeTerminatedUnderLoadLeavesGracefullyAndLosesNothing()
    {
        startCluster();
        loadUntilBothNodesAnswered();

        app2.terminate();
        assertEquals(0, app2.exitCode(REMOVED), app2::output);
        final Map<String, String> left = NodeProcess.fields(app2.find("left ", 0));
        memberChange("app-2", "removed");
        answeredAfterRemoval();
        final Map<String, String> edgeBooks = quietEdgeBooks();

        assertEquals(List.of(edgeBooks.get("sent"), "0", "0"), List.of(edgeBooks.get("answered"),
            edgeBooks.get("dropped"), edgeBooks.get("replyDropped")), () -> "sent = answered, nothing dropped: " +
            edgeBooks);
        final Map<String, String> gone = nodeBooks("app-2");
        assertEquals(List.of("false", "0", left.get("received"), left.get("received"), "0", left.get("sent"), "0",
                "0", "0"),
            List.of(gone.get("live"), gone.get("sockets"), gone.get("published"), gone.get("received"),
                gone.get("unconfirmed"), gone.get("relayed"), gone.get("rejected"), gone.get("refused"),
                gone.get("txNodeDown")),
            () -> "live, sockets, published, received, unconfirmed, relayed, rejected, refused, txNodeDown of app-2 " +
                "on the edge against its own books at leave (" + left + "): " + gone);
        assertEquals(left.get("relayed"), gone.get("relayed"));
        survivorBooksExact();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anAppNodePausedPastTheSplitBrainDecisionIsDownedExitsAndItsLateFramesAreNotRelayed()
    {
        startCluster();
        loadUntilBothNodesAnswered();

        final long pausedAt = System.currentTimeMillis();
        app2.signal("STOP");
        final long removedAt = memberChange("app-2", "removed");
        final Map<String, String> atRemoval = nodeBooks("app-2");
        app2.signal("CONT");
        final int code = app2.exitCode(REMOVED);
        final String downed = app2.find("downed ", 0);
        assertNotEquals(0, code, app2::output);
        assertEquals(FailureNode.EXIT_DOWNED, code, app2::output);
        assertTrue(null != downed, app2::output);
        answeredAfterRemoval();
        final Map<String, String> edgeBooks = quietEdgeBooks();
        System.out.printf("pause: app-2 removed %d ms after SIGSTOP; after SIGCONT it %s%n", removedAt - pausedAt,
            app2.find("exit ", 0));

        // The edge closed app-2's streams at its removal: whatever it sent after it was resumed is never relayed.
        final Map<String, String> gone = nodeBooks("app-2");
        final Map<String, String> handlers = NodeProcess.fields(downed);
        final long neverRelayed = Long.parseLong(handlers.get("sent")) - Long.parseLong(gone.get("relayed")) -
            Long.parseLong(gone.get("txNodeDown"));
        assertTrue(neverRelayed > 0, () -> "app-2 sent replies that reached the edge only after its removal " +
            "(after SIGCONT), which the edge neither relayed nor counted: " + downed + "; on the edge: " + gone);
        for (final String key : List.of("live", "published", "received", "relayed", "rejected", "refused",
            "txNodeDown"))
        {
            assertEquals(atRemoval.get(key), gone.get(key), () -> key + " of app-2 on the edge changed after its " +
                "removal: at removal " + atRemoval + ", at the end " + gone + "; app-2: " + downed);
        }
        assertTrue(Long.parseLong(edgeBooks.get("movedOff.app-2")) >= pausedAt, () -> edgeBooks.toString());
        survivorBooksExact();
        accountedFor("app-2");
    }

    /** Writes the file, starts the three JVMs, and waits until the edge steers to all four sockets. */
    private void startCluster()
    {
        final Path file = dir.resolve("failure.conf");
        try
        {
            Files.writeString(file, deployment());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        edge = NodeProcess.start(file, "edge-1");
        nodes.add(edge);
        app1 = NodeProcess.start(file, "app-1");
        nodes.add(app1);
        app2 = NodeProcess.start(file, "app-2");
        nodes.add(app2);
        for (final NodeProcess app : List.of(app1, app2))
        {
            app.await("socket index=1 ", 0, ALL_UP);
        }
        Await.until("the edge steers to both sockets of both app nodes", () ->
            "2".equals(nodeBooks("app-1").get("steered")) && "2".equals(nodeBooks("app-2").get("steered")),
            () -> edge.output() + "\n" + app1.output() + "\n" + app2.output(), ALL_UP);
    }

    private void loadUntilBothNodesAnswered()
    {
        edge.send("load " + LOAD_MICROS);
        Await.until("the clients have " + ANSWERS_BEFORE + " answers", () ->
            Long.parseLong(edgeBooks().get("answered")) >= ANSWERS_BEFORE, edge::output, REPLY);
        final Map<String, String> books = edgeBooks();
        assertTrue(Integer.parseInt(books.get("flows.app-1")) > 0 && Integer.parseInt(books.get("flows.app-2")) > 0,
            () -> "both app nodes answer flows: " + books);
    }

    /** The service goes on: {@link #ANSWERS_AFTER} more answers after app-2 was removed. */
    private void answeredAfterRemoval()
    {
        final long answered = Long.parseLong(edgeBooks().get("answered"));
        Await.until(ANSWERS_AFTER + " answers after app-2's removal", () ->
            Long.parseLong(edgeBooks().get("answered")) >= answered + ANSWERS_AFTER, edge::output, REPLY);
    }

    /** Stops the load and returns the edge's books once every request sent is answered or dropped on the edge. */
    private Map<String, String> quietEdgeBooks()
    {
        edge.ask("quiet", "quiet ", REPLY);
        return edgeBooks();
    }

    /**
     * Every request the clients sent is answered, dropped on the edge under a reason, or counted unconfirmed by the
     * lost node, exactly; the reply side dropped nothing. Returns the lost node's books on the edge.
     */
    private Map<String, String> accountedFor(final String lost)
    {
        final long sent = Long.parseLong(edgeBooks().get("sent"));
        final LongSupplier accounted = () ->
        {
            final Map<String, String> books = edgeBooks();
            return Long.parseLong(books.get("answered")) + Long.parseLong(books.get("dropped")) +
                Long.parseLong(nodeBooks(lost).get("unconfirmed"));
        };
        Await.atLeast("answered + dropped on the edge + unconfirmed by " + lost, sent, accounted, REPLY);
        final Map<String, String> books = edgeBooks();
        final Map<String, String> gone = nodeBooks(lost);
        assertEquals("0", books.get("replyDropped"), () -> "replies dropped on the clients' port: " + books);
        // Past sent means a request counted twice: answered, and unconfirmed too because the node read it after its
        // last receipt (then its relayed replies exceed its received).
        assertEquals(sent, accounted.getAsLong(), () -> "answered + dropped on the edge + unconfirmed by " + lost +
            " against sent: " + books + "; " + lost + " on the edge: " + gone);
        return gone;
    }

    /**
     * app-1's books and the edge's agree exactly once its last receipt is in: published = received on both sides,
     * its replies all relayed, nothing unconfirmed, rejected or refused; the edge's pipeline verifies.
     */
    private void survivorBooksExact()
    {
        final Map<String, String> app = NodeProcess.fields(app1.ask("books", "appbooks ", REPLY).getLast());
        Await.until("app-1's last receipt on the edge", () ->
            app.get("received").equals(nodeBooks("app-1").get("received")), () -> nodeBooks("app-1") + " " + app,
            REPLY);
        final Map<String, String> onEdge = nodeBooks("app-1");
        assertEquals(List.of("true", app.get("received"), app.get("received"), "0", app.get("sent"), "0", "0", "0"),
            List.of(onEdge.get("live"), onEdge.get("published"), onEdge.get("received"), onEdge.get("unconfirmed"),
                onEdge.get("relayed"), onEdge.get("rejected"), onEdge.get("refused"), onEdge.get("txNodeDown")),
            () -> "live, published, received, unconfirmed, relayed, rejected, refused, txNodeDown of app-1 on the " +
                "edge against its own books " + app + ": " + onEdge);
        assertEquals(List.of("0", "0", "0"), List.of(app.get("refused"), app.get("malformed"),
            app.get("handlerFailed")), () -> "app-1's refused, malformed, handler failures: " + app);
        assertEquals("ok", edgeBooks().get("verify"), edge::output);
    }

    private long memberChange(final String node, final String change)
    {
        final String line = edge.await("member name=" + node + " change=" + change + " ", 0, REMOVED);
        return Long.parseLong(NodeProcess.fields(line).get("at"));
    }

    private Map<String, String> edgeBooks()
    {
        return NodeProcess.fields(edge.ask("books", "end books", REPLY).stream()
            .filter(line -> line.startsWith("edge sent=")).findFirst().orElseThrow());
    }

    /** The edge's books of {@code node}'s last incarnation. */
    private Map<String, String> nodeBooks(final String node)
    {
        Map<String, String> found = Map.of();
        for (final String line : edge.ask("books", "end books", REPLY))
        {
            if (line.startsWith("nodebooks name=" + node + " "))
            {
                found = NodeProcess.fields(line);
            }
        }
        return found;
    }

    /**
     * Free ports on 127.0.0.1; an edge with one CPU that never spins; two sockets per app node; the failure settings
     * the issue asks for: a node unheard for 3 s is unreachable, and removed 3 s later.
     */
    private String deployment() throws IOException
    {
        final List<String> entries = new ArrayList<>();
        for (final String node : List.of("edge-1", "app-1", "app-2"))
        {
            final boolean isEdge = node.startsWith("edge");
            entries.add("{ name = " + node + ", host = \"127.0.0.1\", port = " + freeTcpPort() + ", data-port = " +
                freeUdpPort() + ", roles = [" + (isEdge ? "edge" : "app") + "]" + (isEdge ? ", devices = [{ name = " +
                "nic0, device = \"loop:tx=2,rx=2,ring=1024,frame=2048\", cpus = 1, spin-polls = 0, " +
                "counters.directory = \"" + dir + "\" }]" : "") + " }");
        }
        return "xmit.cluster {\n  name = failure-test\n  nodes = [" + String.join(",\n    ", entries) + "]\n" +
            "  seed-nodes = [edge-1]\n" +
            "  services = [{ name = echo, bind { device = nic0, port = 0, udp = 7 }, placement = \"per-node 2\" }]\n" +
            "  failure {\n" +
            "    detector { heartbeat-interval = 500ms, acceptable-heartbeat-pause = 3s }\n" +
            "    split-brain { strategy = static-quorum, role = edge, quorum-size = 1, stable-after = 3s }\n" +
            "    drain-deadline = 20s\n  }\n}\n" +
            "akka.remote.artery { advanced.inbound-lanes = 1, bind.bind-timeout = 30s }\n";
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
