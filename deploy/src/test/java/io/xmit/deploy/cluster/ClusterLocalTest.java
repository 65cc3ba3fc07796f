package io.xmit.deploy.cluster;

import io.xmit.deploy.Main;
import io.xmit.pipeline.testing.Await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit cluster local} on a three-node file: three JVMs ({@code -Xmx256m} each) form a real cluster over Artery
 * TCP on 127.0.0.1, the edge with its pipeline, each app node with a socket of the edge's service {@code echo}; the
 * edge offers load ({@code --load}) from its loop device's other port, through the app nodes and back; one SIGTERM to
 * the parent stops them one by one, each draining and leaving gracefully, every JVM exits 0, and the books every
 * node printed balance exactly.
 */
class ClusterLocalTest
{
    /**
     * Three JVMs loading Akka at once on two shared cores: the first ActorSystem of a JVM alone took 21–28 s on a
     * loaded machine (docs/cluster.md), and more than 45 s was seen here with three starting together.
     */
    private static final Duration ALL_UP = Duration.ofSeconds(240);
    private static final Duration ALL_STOPPED = Duration.ofSeconds(120);
    private static final List<String> NODES = List.of("edge-1", "app-1", "app-2");
    /** The edge's load: requests/s, for a few seconds, small enough for two shared cores. */
    private static final int RATE = 200;
    private static final int LOAD_SECONDS = 3;

    @TempDir
    Path dir;

    private Process parent;
    private final List<ProcessHandle> children = new ArrayList<>();

    @AfterEach
    void killEverything()
    {
        if (null != parent)
        {
            parent.descendants().forEach(ProcessHandle::destroyForcibly);
            parent.destroyForcibly();
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void threeNodesComeUpAndOneSignalStopsThemAllGracefully() throws Exception
    {
        final Path file = dir.resolve("three.conf");
        Files.writeString(file, deployment());
        final List<String> java = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(arg -> arg.startsWith("--"))
            .forEach(java::add);
        java.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "cluster", "local", file.toString(), "--load", Integer.toString(RATE), "--flows", "8", "--load-for",
            Integer.toString(LOAD_SECONDS)));
        parent = new ProcessBuilder(java).redirectErrorStream(true).start();
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Thread reader = Thread.ofPlatform().start(() -> readLines(parent, lines));

        for (final String node : NODES)
        {
            Await.until(node + " sees all three nodes up", () -> lines.contains(prefix(node) + "all 3 nodes up"),
                () -> String.join("\n", lines), ALL_UP);
        }
        final String started = prefix("edge-1") + "device nic0: pipeline started on loop:tx=2,rx=2,ring=256, 1 CPU; " +
            "counters " + dir.resolve("counters") + "/xmit-";
        Await.until("the edge's pipeline started", () -> lines.stream()
            .anyMatch(line -> line.startsWith(started) && line.endsWith("-nic0.counters")),
            () -> String.join("\n", lines), ALL_UP);
        parent.descendants().forEach(children::add);
        assertEquals(3, children.size(), () -> "the children: " + children);
        // The edge offers its load once it steers to both app nodes' sockets, for LOAD_SECONDS, then its books.
        Await.until("the load's books", () -> lines.stream().anyMatch(line -> line.startsWith(prefix("edge-1") +
            "load books: ")), () -> String.join("\n", lines), ALL_UP);

        // SIGTERM, as Ctrl-C would be; through the handle, which leaves the pipe of the output open.
        parent.toHandle().destroy();
        Await.until("the parent exited", () -> !parent.isAlive(), () -> String.join("\n", lines), ALL_STOPPED);
        reader.join(TimeUnit.SECONDS.toMillis(10));
        final String output = String.join("\n", lines);
        assertEquals(Main.EXIT_OK, parent.exitValue(), output);
        assertEquals(List.of("xmit cluster local: app-2 exited 0", "xmit cluster local: app-1 exited 0",
            "xmit cluster local: edge-1 exited 0"), lines.stream().filter(line -> line.contains(" exited ")).toList(),
            output);
        for (final String node : NODES)
        {
            assertTrue(lines.contains(prefix(node) + "leaving the cluster (SIGTERM)"), output);
            assertEquals(1, lines.stream().filter(line -> line.startsWith(prefix(node) + "left the cluster " +
                "gracefully in ") && line.endsWith("; exit 0")).count(), output);
        }
        // The edge, the last to go, saw the other two removed after they left.
        for (final String app : List.of("app-2", "app-1"))
        {
            assertTrue(lines.stream().anyMatch(line -> line.startsWith(prefix("edge-1") + "member " + app +
                " removed")), output);
        }
        assertTrue(lines.stream().anyMatch(line -> line.startsWith(prefix("edge-1") + "device nic0: stop: ")),
            output);
        assertBooksBalance(lines, output);
        for (final ProcessHandle child : children)
        {
            assertFalse(child.isAlive(), () -> "child " + child.pid() + " still runs");
        }
    }

    /**
     * Every request the clients sent was answered, none dropped; what the edge published to each app node is what
     * that node received and sent, and the edge relayed, with nothing unconfirmed; both nodes served.
     */
    private static void assertBooksBalance(final List<String> lines, final String output)
    {
        final Matcher load = only(lines, Pattern.compile(Pattern.quote(prefix("edge-1")) + "load books: sent (\\d+) " +
            "= answered (\\d+) \\+ requests dropped on port 0 (\\d+) \\+ replies dropped on port 1 (\\d+) \\+ " +
            "unanswered (\\d+); .*"), output);
        final long sent = Long.parseLong(load.group(1));
        assertTrue(sent >= RATE, output);
        assertEquals(List.of(sent, 0L, 0L, 0L), List.of(Long.parseLong(load.group(2)), Long.parseLong(load.group(3)),
            Long.parseLong(load.group(4)), Long.parseLong(load.group(5))), "answered, dropped, unanswered: " + output);
        long received = 0;
        for (final String app : List.of("app-1", "app-2"))
        {
            final Matcher books = only(lines, Pattern.compile(Pattern.quote(prefix(app) + "books " + app) +
                ": sockets 1, received (\\d+), sent (\\d+), back-pressured 0, refused 0, malformed 0, handler " +
                "failed 0"), output);
            final long appReceived = Long.parseLong(books.group(1));
            assertTrue(appReceived > 0, app + " served: " + output);
            assertEquals(appReceived, Long.parseLong(books.group(2)), app + " sent what it received: " + output);
            received += appReceived;
        }
        assertEquals(sent, received, "what the app nodes received: " + output);
        final Pattern edgeBooks = Pattern.compile(Pattern.quote(prefix("edge-1") + "books edge-1: app node ") +
            "\\S+ \\(gone\\) on nic0: published (\\d+), received (\\d+), unconfirmed 0, relayed (\\d+), rejected 0, " +
            "refused 0, tx_node_down 0");
        long published = 0;
        for (final String line : lines)
        {
            final Matcher books = edgeBooks.matcher(line);
            if (books.matches())
            {
                assertEquals(List.of(books.group(1), books.group(1)), List.of(books.group(2), books.group(3)), line);
                published += Long.parseLong(books.group(1));
            }
        }
        assertEquals(sent, published, "what the edge published to the app nodes: " + output);
        only(lines, Pattern.compile(Pattern.quote(prefix("edge-1") + "books edge-1: service echo on port 0 of " +
            "nic0: rx_delivered " + sent + ", rx dropped 0 ") + ".*"), output);
    }

    private static Matcher only(final List<String> lines, final Pattern pattern, final String output)
    {
        final List<Matcher> found = lines.stream().map(pattern::matcher).filter(Matcher::matches).toList();
        assertEquals(1, found.size(), pattern + " in\n" + output);
        return found.get(0);
    }

    private static String prefix(final String node)
    {
        return String.format("%-6s | ", node);
    }

    private static void readLines(final Process process, final List<String> lines)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            for (String line = in.readLine(); null != line; line = in.readLine())
            {
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("(the output could not be read: " + ex.getMessage() + ")");
        }
    }

    /**
     * Free ports on 127.0.0.1; a small edge (one CPU that never spins, short rings), and failure settings that
     * tolerate the pauses of a loaded machine: with a 10 s heartbeat pause, an app node was once downed during the
     * load while the whole module's tests ran beside it (load average above 20).
     */
    private String deployment() throws IOException
    {
        final List<String> nodes = new ArrayList<>();
        for (final String node : NODES)
        {
            final boolean edge = node.startsWith("edge");
            nodes.add("{ name = " + node + ", host = \"127.0.0.1\", port = " + FreePorts.tcp() + ", data-port = " +
                FreePorts.udp() + ", roles = [" + (edge ? "edge" : "app") + "]" + (edge ? ", devices = [{ name = nic0, " +
                "device = \"loop:tx=2,rx=2,ring=256\", cpus = 1, spin-polls = 0, counters.directory = \"" +
                dir.resolve("counters") + "\" }]" : "") + " }");
        }
        Files.createDirectories(dir.resolve("counters"));
        return "xmit.cluster {\n  name = local-test\n  nodes = [" + String.join(",\n    ", nodes) + "]\n" +
            "  seed-nodes = [edge-1]\n" +
            "  services = [{ name = echo, bind { device = nic0, port = 0, udp = 7 }, handler = echo, " +
            "placement = \"per-node 1\" }]\n" +
            "  failure { detector.acceptable-heartbeat-pause = 30s, split-brain.stable-after = 20s, " +
            "drain-deadline = 30s }\n}\n" +
            "akka.remote.artery.advanced.inbound-lanes = 1\n";
    }
}
