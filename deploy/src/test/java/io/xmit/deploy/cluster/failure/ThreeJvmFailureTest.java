package io.xmit.deploy.cluster.failure;

import io.xmit.deploy.cluster.FreePorts;
import io.xmit.pipeline.testing.Await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16's failure tests on one cluster of four JVMs on 127.0.0.1 ({@code -Xmx256m} each): an edge with a loop
 * device whose clients load the service {@code echo} at a fixed rate, and three app nodes with two sockets each, every
 * node a {@link FailureNode} built from one deployment file with short failure settings (heartbeat 500 ms, acceptable
 * pause 3 s, static quorum of the edge, stable-after 3 s). Under load, in turn: app-3 is killed (SIGKILL), app-2 is
 * paused past the split-brain resolver's decision and resumed (SIGSTOP, SIGCONT), app-1 leaves (SIGTERM). After each
 * phase the load stops and the books are checked exactly: every request the clients sent is answered, dropped on the
 * edge under a reason, or unanswered by a node lost without leaving, and the edge's books of that node bound what it
 * left unanswered. The JVMs start once (most of the class's time) and are killed at the end whatever happened.
 */
class ThreeJvmFailureTest
{
    /** Four JVMs loading Akka at once on two shared cores (docs/cluster.md: 45 s and more seen for three). */
    private static final Duration ALL_UP = Duration.ofSeconds(180);
    /** Unreachable after the acceptable pause, then stable-after, then removal: 7 s and a margin for load. */
    private static final Duration REMOVED = Duration.ofSeconds(60);
    private static final Duration REPLY = Duration.ofSeconds(20);
    /** One request every 2 ms: 500 a second over the 48 flows. */
    private static final long LOAD_MICROS = 2_000;
    private static final int ANSWERS_BEFORE = 1_000;
    private static final int ANSWERS_AFTER = 1_000;
    private static final List<String> APP_NODES = List.of("app-1", "app-2", "app-3");

    @TempDir
    Path dir;

    private final List<NodeProcess> nodes = new ArrayList<>();
    private NodeProcess edge;
    private NodeProcess app1;
    private NodeProcess app2;
    private NodeProcess app3;

    /** Every JVM killed, then its output in the test's: what each node said is the record of a failure. */
    @AfterEach
    void killEveryNode()
    {
        nodes.forEach(NodeProcess::close);
        nodes.forEach(node -> System.out.println(node.output()));
    }

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void appNodesKilledPausedAndTerminatedUnderLoadMoveTheirFlowsAndEveryRequestIsAccountedFor()
    {
        startCluster();
        final long afterKill = appThreeKilled();
        final long afterPause = appTwoPausedPastTheSplitBrainDecision(afterKill);
        appOneTerminated(afterPause);
    }

    /**
     * SIGKILL app-3 under load: its flows move to app-1 and app-2, which keep answering; their books are exact; the
     * requests app-3 left unanswered are what the edge's books of it say. Returns the requests unanswered so far.
     */
    private long appThreeKilled()
    {
        load(app1, app2, app3);
        final long killedAt = System.currentTimeMillis();
        app3.kill();
        final long unreachableAt = memberChange("app-3", "unreachable");
        final long removedAt = memberChange("app-3", "removed");
        answeredAfterRemoval("app-3");
        final Map<String, String> edgeBooks = quietEdgeBooks();
        final long movedAt = number(edgeBooks, "movedOff.app-3");
        System.out.printf("failover after SIGKILL: unreachable %d ms, first flow of app-3 answered by another node " +
            "%d ms, removed %d ms%n", unreachableAt - killedAt, movedAt - killedAt, removedAt - killedAt);
        assertTrue(movedAt >= killedAt, () -> "a flow of app-3 was answered by another node after the kill: " +
            edgeBooks);

        survivorBooksExact(app1);
        survivorBooksExact(app2);
        return accountedFor(List.of("app-3"));
    }

    /**
     * SIGSTOP app-2 until the edge has removed it, then SIGCONT: it is downed and exits by itself; what it sent once
     * resumed is never relayed (the edge's books of it do not change after its removal); app-1 answers its flows.
     */
    private long appTwoPausedPastTheSplitBrainDecision(final long unansweredBefore)
    {
        load(app1, app2);
        final long pausedAt = System.currentTimeMillis();
        app2.signal("STOP");
        final long removedAt = memberChange("app-2", "removed");
        final Map<String, String> atRemoval = books().node("app-2");
        app2.signal("CONT");
        assertEquals(FailureNode.EXIT_DOWNED, app2.exitCode(REMOVED), app2::output);
        final String downed = app2.find("downed ", 0);
        assertTrue(null != downed, app2::output);
        answeredAfterRemoval("app-2");
        final Map<String, String> edgeBooks = quietEdgeBooks();
        final long movedAt = number(edgeBooks, "movedOff.app-2");
        System.out.printf("failover after SIGSTOP: first flow of app-2 answered by app-1 %d ms, removed %d ms; " +
            "after SIGCONT app-2 %s%n", movedAt - pausedAt, removedAt - pausedAt, app2.find("exit ", 0));
        assertTrue(movedAt >= pausedAt, edgeBooks::toString);

        final Map<String, String> gone = books().node("app-2");
        for (final String key : List.of("live", "published", "received", "unconfirmed", "rxNodeDown", "relayed",
            "rejected", "refused", "txNodeDown", "txStaleIncarnation"))
        {
            assertEquals(atRemoval.get(key), gone.get(key), () -> key + " of app-2 on the edge changed after its " +
                "removal: at removal " + atRemoval + ", at the end " + gone + "; app-2: " + downed);
        }
        // Its replies that the edge neither relayed nor counted: sent once resumed, or still in its buffers at the
        // pause; how many depends on what it read before its own downing stopped its sockets, so only printed.
        final long neverRelayed = number(NodeProcess.fields(downed), "sent") - number(gone, "relayed") -
            number(gone, "txNodeDown");
        System.out.println("app-2's replies never relayed: " + neverRelayed);
        assertTrue(neverRelayed >= 0, () -> "the edge relayed or counted more replies of app-2 than it sent: " +
            downed + "; on the edge: " + gone);

        survivorBooksExact(app1);
        final long unanswered = accountedFor(List.of("app-3", "app-2"));
        assertTrue(unanswered > unansweredBefore, () -> "app-2 left requests unanswered: " + unanswered);
        return unanswered;
    }

    /**
     * SIGTERM app-1, the last app node, under load: it drains, leaves and exits 0; its books on the edge are closed
     * against its own; it loses nothing (the requests unanswered stay those of app-3 and app-2), and every request
     * after its leave is dropped on the edge as {@code rx_drop_no_socket}.
     */
    private void appOneTerminated(final long unansweredBefore)
    {
        load(app1);
        final Map<String, String> before = edgeBooks();
        app1.terminate();
        assertEquals(0, app1.exitCode(REMOVED), app1::output);
        final Map<String, String> left = NodeProcess.fields(app1.find("left ", 0));
        memberChange("app-1", "removed");
        final Map<String, String> edgeBooks = quietEdgeBooks();

        assertEquals(number(edgeBooks, "dropped") - number(before, "dropped"),
            number(edgeBooks, "noSocket") - number(before, "noSocket"),
            () -> "dropped since the leave began, all for no socket: before " + before + ", after " + edgeBooks);
        final Map<String, String> gone = books().node("app-1");
        assertEquals(List.of("false", "0", left.get("received"), left.get("received"), "0", "0", left.get("sent"), "0",
                "0", "0", "0"),
            List.of(gone.get("live"), gone.get("sockets"), gone.get("published"), gone.get("received"),
                gone.get("unconfirmed"), gone.get("rxNodeDown"), gone.get("relayed"), gone.get("rejected"),
                gone.get("refused"), gone.get("txNodeDown"), gone.get("txStaleIncarnation")),
            () -> "live, sockets, published, received, unconfirmed, rxNodeDown, relayed, rejected, refused, " +
                "txNodeDown, txStaleIncarnation of app-1 on the edge against its own books at leave (" + left +
                "): " + gone);
        assertEquals(unansweredBefore, accountedFor(List.of("app-3", "app-2")));
    }

    /** Writes the file, starts the four JVMs, and waits until the edge steers to all six sockets. */
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
        app3 = NodeProcess.start(file, "app-3");
        nodes.add(app3);
        for (final NodeProcess app : List.of(app1, app2, app3))
        {
            app.await("sockets bound=2", 0, ALL_UP);
        }
        Await.until("the edge steers to both sockets of every app node", () ->
            {
                final Books books = books();
                return APP_NODES.stream().allMatch(node -> "2".equals(books.node(node).get("steered")));
            }, () -> edge.output() + "\n" + app1.output() + "\n" + app2.output() + "\n" + app3.output(), ALL_UP);
    }

    /** Starts the load and waits for {@link #ANSWERS_BEFORE} answers, with flows on each of {@code apps}. */
    private void load(final NodeProcess... apps)
    {
        final long answered = number(edgeBooks(), "answered");
        edge.send("load " + LOAD_MICROS);
        Await.until("the clients have " + ANSWERS_BEFORE + " more answers", () ->
            number(edgeBooks(), "answered") >= answered + ANSWERS_BEFORE, edge::output, REPLY);
        final Map<String, String> books = edgeBooks();
        for (final NodeProcess app : apps)
        {
            assertTrue(number(books, "flows." + app.name()) > 0, () -> app.name() + " answers flows: " + books);
        }
    }

    /** The service goes on: {@link #ANSWERS_AFTER} more answers after {@code lost} was removed. */
    private void answeredAfterRemoval(final String lost)
    {
        final long answered = number(edgeBooks(), "answered");
        Await.until(ANSWERS_AFTER + " answers after " + lost + "'s removal", () ->
            number(edgeBooks(), "answered") >= answered + ANSWERS_AFTER, edge::output, REPLY);
    }

    /** Stops the load; returns the edge's books then (requests may still be in flight). */
    private Map<String, String> quietEdgeBooks()
    {
        edge.ask("quiet", "quiet ", REPLY);
        return edgeBooks();
    }

    /**
     * The exact books once the load has stopped and the live nodes are quiet ({@link #survivorBooksExact}): every
     * request sent is answered, dropped on the edge under a reason, or unanswered, where what an app node left
     * unanswered is its {@code published - relayed} on the edge (an echo gives one reply a request; every relayed
     * reply reached the clients, none dropped on their port). Only the nodes {@code lost} without leaving have any;
     * for each, what its books name as possibly lost bounds it: {@code rxNodeDown} never reached it (all unanswered),
     * and only what was not confirmed read ({@code unconfirmed + rxNodeDown}) or whose reply was left in its TX
     * streams ({@code txNodeDown}) can be unanswered. Returns the requests unanswered.
     */
    private long accountedFor(final List<String> lost)
    {
        final long sent = number(edgeBooks(), "sent");
        Await.atLeast("answered + dropped on the edge + unanswered by the app nodes", sent, () -> accounted(books()),
            REPLY);
        final Books books = books();
        assertEquals(sent, accounted(books), () -> "answered + dropped on the edge + published - relayed of every " +
            "app node against sent " + sent + ": " + books);
        assertEquals(List.of("0", "ok"), List.of(books.edge().get("replyDropped"), books.edge().get("verify")),
            () -> "replies dropped on the clients' port, the pipeline's verification: " + books.edge());
        long unanswered = 0;
        for (final String node : APP_NODES)
        {
            final Map<String, String> of = books.node(node);
            final long left = number(of, "published") - number(of, "relayed");
            unanswered += left;
            if (lost.contains(node))
            {
                assertEquals("false", of.get("live"), () -> node + " is closed on the edge: " + of);
                assertEquals(number(of, "published"), number(of, "received") + number(of, "unconfirmed") +
                    number(of, "rxNodeDown"), () -> "published = received + unconfirmed + rxNodeDown of " + node +
                    ": " + of);
                assertTrue(number(of, "rxNodeDown") <= left && left <= number(of, "unconfirmed") +
                    number(of, "rxNodeDown") + number(of, "txNodeDown"), () -> "rxNodeDown <= unanswered " + left +
                    " <= unconfirmed + rxNodeDown + txNodeDown of " + node + ": " + of);
                assertEquals(List.of("0", "0", "0"), List.of(of.get("rejected"), of.get("refused"),
                    of.get("txStaleIncarnation")), () -> "rejected, refused, txStaleIncarnation of " + node + ": " +
                    of);
            }
            else
            {
                assertEquals(0, left, () -> node + " left no request unanswered: " + of);
            }
        }
        return unanswered;
    }

    private static long accounted(final Books books)
    {
        long accounted = number(books.edge(), "answered") + number(books.edge(), "dropped");
        for (final String node : APP_NODES)
        {
            accounted += number(books.node(node), "published") - number(books.node(node), "relayed");
        }
        return accounted;
    }

    /**
     * A live node's books and the edge's agree exactly once it has read what was published to it and its replies
     * are relayed: published = received on both sides = the replies it sent = relayed; nothing unconfirmed, never
     * sent, rejected, refused or stale; no request refused, malformed or failed in its handlers.
     */
    private void survivorBooksExact(final NodeProcess app)
    {
        final String name = app.name();
        final Map<String, Map<String, String>> seen = new HashMap<>();
        Await.until(name + " has read what the edge published to it and the edge relayed its replies", () ->
        {
            final Map<String, String> own = NodeProcess.fields(app.ask("books", "appbooks ", REPLY).getLast());
            final Map<String, String> onEdge = books().node(name);
            seen.put("own", own);
            seen.put("edge", onEdge);
            return List.of(onEdge.get("published"), onEdge.get("received"), own.get("sent"), onEdge.get("relayed"))
                .equals(List.of(own.get("received"), own.get("received"), own.get("received"), own.get("sent")));
        }, () -> "published, received on the edge, sent, relayed against received and sent of " + name + ": " + seen,
            REPLY);
        final Map<String, String> own = seen.get("own");
        final Map<String, String> onEdge = seen.get("edge");
        assertEquals(List.of("true", "2", "0", "0", "0", "0", "0", "0"), List.of(onEdge.get("live"),
            onEdge.get("steered"), onEdge.get("unconfirmed"), onEdge.get("rxNodeDown"), onEdge.get("rejected"),
            onEdge.get("refused"), onEdge.get("txNodeDown"), onEdge.get("txStaleIncarnation")),
            () -> "live, steered, unconfirmed, rxNodeDown, rejected, refused, txNodeDown, txStaleIncarnation of " +
                name + " on the edge: " + onEdge);
        assertEquals(List.of("0", "0", "0"), List.of(own.get("refused"), own.get("malformed"),
            own.get("handlerFailed")), () -> name + "'s refused, malformed, handler failures: " + own);
    }

    private long memberChange(final String node, final String change)
    {
        final String line = edge.await("member name=" + node + " change=" + change + " ", 0, REMOVED);
        return number(NodeProcess.fields(line), "at");
    }

    private Map<String, String> edgeBooks()
    {
        return books().edge();
    }

    /** The edge's books: its clients' and pipeline's line, and each app node's last incarnation's books. */
    private Books books()
    {
        Map<String, String> edgeLine = Map.of();
        final Map<String, Map<String, String>> byNode = new HashMap<>();
        for (final String line : edge.ask("books", "end books", REPLY))
        {
            if (line.startsWith("edge sent="))
            {
                edgeLine = NodeProcess.fields(line);
            }
            else if (line.startsWith("nodebooks "))
            {
                final Map<String, String> fields = NodeProcess.fields(line);
                byNode.put(fields.get("name"), fields);
            }
        }
        return new Books(edgeLine, byNode);
    }

    private record Books(Map<String, String> edge, Map<String, Map<String, String>> nodes)
    {
        Map<String, String> node(final String name)
        {
            return nodes.getOrDefault(name, Map.of());
        }
    }

    /** A number the books must have: a missing key names the line it is missing from. */
    private static long number(final Map<String, String> fields, final String key)
    {
        final String value = fields.get(key);
        if (null == value)
        {
            throw new IllegalStateException("no " + key + " in " + fields);
        }
        return Long.parseLong(value);
    }

    /**
     * Free ports on 127.0.0.1; an edge with one CPU that never spins; two sockets per app node; the failure settings
     * the issue asks for: a node unheard for 3 s is unreachable, and removed 3 s later.
     */
    private String deployment() throws IOException
    {
        final List<String> entries = new ArrayList<>();
        for (final String node : List.of("edge-1", "app-1", "app-2", "app-3"))
        {
            final boolean isEdge = node.startsWith("edge");
            entries.add("{ name = " + node + ", host = \"127.0.0.1\", port = " + FreePorts.tcp() + ", data-port = " +
                FreePorts.udp() + ", roles = [" + (isEdge ? "edge" : "app") + "]" + (isEdge ? ", devices = [{ name = " +
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
}
