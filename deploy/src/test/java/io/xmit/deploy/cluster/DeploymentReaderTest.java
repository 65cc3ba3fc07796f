package io.xmit.deploy.cluster;

import com.typesafe.config.ConfigFactory;
import io.xmit.deploy.Main;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The deployment file read into records, and each of its checks refusing a bad file with its one line: the key, the
 * value and what is allowed.
 */
class DeploymentReaderTest
{
    static final String EDGE = "{ name = edge-1, host = \"127.0.0.1\", port = 25520, data-port = 40120, " +
        "roles = [edge], devices = [{ name = nic0, device = \"loop:tx=4,rx=4,ring=1024\", cpus = 2 }] }";
    static final String APP_1 = "{ name = app-1, host = \"127.0.0.1\", port = 25521, data-port = 40121, " +
        "roles = [app] }";
    static final String APP_2 = "{ name = app-2, host = \"127.0.0.1\", port = 25522, data-port = 40122, " +
        "roles = [app] }";
    static final String ECHO = "{ name = echo, bind { device = nic0, port = 0, udp = 7 }, " +
        "handler = \"com.example.Echo\", role = app, placement = \"per-node 2\" }";
    /** Three nodes, one service, every other setting its default. */
    static final String FILE = "xmit.cluster { name = echo, nodes = [" + EDGE + ", " + APP_1 + ", " + APP_2 + "], " +
        "seed-nodes = [edge-1, app-1], services = [" + ECHO + "] }";

    @TempDir
    Path dir;

    @Test
    void readsEveryNodeServiceAndTheDefaults()
    {
        final Deployment deployment = read("");
        assertEquals("echo", deployment.name());
        assertEquals(List.of("edge-1", "app-1", "app-2"), deployment.nodeNames());
        final Node edge = deployment.requireNode("edge-1");
        assertEquals(new Node("edge-1", "127.0.0.1", 25520, 40120, Set.of(Role.EDGE), edge.devices()), edge);
        assertEquals(1, edge.devices().size());
        assertEquals("nic0", edge.devices().getFirst().name());
        assertEquals("nic0", edge.devices().getFirst().pipeline().name());
        assertEquals(2, edge.devices().getFirst().pipeline().cpus());
        assertEquals(2048, edge.devices().getFirst().maxFrame());
        assertEquals(List.of("edge-1", "app-1"), deployment.seeds());
        assertEquals(List.of(new Service("echo", "nic0", 0, 7, Optional.of("com.example.Echo"), Role.APP,
            new Placement(Placement.Kind.PER_NODE, 2, List.of()), Service.Steering.FLOW_HASH)), deployment.services());
        // The smallest MTU for 2048-byte frames (+ 32 + 32 header bytes), 1 MiB terms, Aeron's 128 KiB window.
        assertEquals(2112, deployment.dataPlane().streams().mtuLength());
        assertEquals(1 << 20, deployment.dataPlane().streams().termLength());
        assertEquals(128 << 10, deployment.dataPlane().streams().receiverWindowLength());
        assertEquals(128 << 10, deployment.dataPlane().streams().socketRcvbufLength());
        assertEquals(0, deployment.dataPlane().streams().socketSndbufLength());
        assertEquals(DataPlane.Idle.BACKOFF, deployment.dataPlane().idle());
        assertEquals(0, deployment.dataPlane().socketSpinPolls());
        assertEquals(Duration.ofMillis(100), deployment.dataPlane().receiptInterval());
        assertEquals(new FailureSettings(Duration.ofSeconds(1), Duration.ofSeconds(3),
            new SplitBrain(SplitBrain.Strategy.STATIC_QUORUM, Optional.of(Role.EDGE), 1, Duration.ofSeconds(20)),
            Duration.ofSeconds(10)), deployment.failure());
    }

    @Test
    void readsAShardedPinnedServiceAndEverySetting()
    {
        final Deployment deployment = read("""
            xmit.cluster.services = [{ name = kv, bind { device = nic0, port = 1, udp = 11211 },
              placement = "sharded 3 pinned", pin = [app-1, app-2, app-1], steering = flow-hash }]
            xmit.cluster.data-plane { mtu = 8KiB, term-length = 4MiB, receiver-window = 256KiB, so-rcvbuf = 512KiB,
              so-sndbuf = 64KiB, idle-strategy = busy-spin, socket-spin-polls = 64, receipt-interval = 20ms }
            xmit.cluster.failure { detector { heartbeat-interval = 500ms, acceptable-heartbeat-pause = 2s }
              split-brain { strategy = keep-majority, role = app, stable-after = 5s }, drain-deadline = 4s }
            """);
        assertEquals(List.of(new Service("kv", "nic0", 1, 11211, Optional.empty(), Role.APP,
            new Placement(Placement.Kind.SHARDED, 3, List.of("app-1", "app-2", "app-1")), Service.Steering.FLOW_HASH)),
            deployment.services());
        assertEquals("sharded 3 pinned", deployment.services().getFirst().placement().toString());
        assertEquals(8192, deployment.dataPlane().streams().mtuLength());
        assertEquals(4 << 20, deployment.dataPlane().streams().termLength());
        assertEquals(256 << 10, deployment.dataPlane().streams().receiverWindowLength());
        assertEquals(512 << 10, deployment.dataPlane().streams().socketRcvbufLength());
        assertEquals(64 << 10, deployment.dataPlane().streams().socketSndbufLength());
        assertEquals(DataPlane.Idle.BUSY_SPIN, deployment.dataPlane().idle());
        assertEquals(64, deployment.dataPlane().socketSpinPolls());
        assertEquals(Duration.ofMillis(20), deployment.dataPlane().receiptInterval());
        assertEquals(new FailureSettings(Duration.ofMillis(500), Duration.ofSeconds(2),
            new SplitBrain(SplitBrain.Strategy.KEEP_MAJORITY, Optional.of(Role.APP), 0, Duration.ofSeconds(5)),
            Duration.ofSeconds(4)), deployment.failure());
    }

    @Test
    void refusesUnknownKeys()
    {
        assertRefused("xmit.cluster.data-plane.mtuu = 8192 is not a known key; xmit.cluster.data-plane knows mtu, " +
            "term-length, receiver-window, so-rcvbuf, so-sndbuf, idle-strategy, socket-spin-polls, receipt-interval",
            "xmit.cluster.data-plane.mtuu = 8192");
        assertRefused("xmit.cluster.seeds = [\"edge-1\"] is not a known key; xmit.cluster knows name, nodes, " +
            "seed-nodes, services, data-plane, failure", "xmit.cluster.seeds = [edge-1]");
        assertRefused("xmit.cluster.nodes[2].data-prot = 40122 is not a known key; xmit.cluster.nodes[2] knows " +
            "name, host, port, data-port, roles, devices", nodes(EDGE, APP_1,
                APP_2.replace("data-port = 40122", "data-port = 40122, data-prot = 40122")));
        assertRefused("xmit.cluster.nodes[0].devices[0].qdisc.bulk-limt = 16 is not a known key; " +
            "xmit.cluster.nodes[0].devices[0].qdisc knows quota, bulk-limit, band-limit, overflow, bypass, " +
            "sender-bypass",
            nodes(EDGE.replace("cpus = 2", "cpus = 2, qdisc.bulk-limt = 16"), APP_1, APP_2));
        assertRefused("xmit.run = {\"rate\":5} is not a known key; in a deployment file xmit holds cluster, and a " +
            "device's pipeline keys go in its entry of xmit.cluster.nodes[].devices", "xmit.run.rate = 5");
        assertRefused("pekko = {\"loglevel\":\"INFO\"} is not a known key; a deployment file holds xmit.cluster " +
            "{ … } and akka { … }", "pekko.loglevel = INFO");
    }

    @Test
    void refusesNamesThatAreNotNodes()
    {
        assertRefused("xmit.cluster.seed-nodes[1] = 'app-9' is not a node; the nodes are edge-1, app-1, app-2",
            "xmit.cluster.seed-nodes = [edge-1, app-9]");
        assertRefused("xmit.cluster.services[0].pin[1] = 'app-3' is not a node; the nodes are edge-1, app-1, app-2",
            "xmit.cluster.services = [" + ECHO.replace("\"per-node 2\"", "\"sharded 2 pinned\", pin = [app-1, " +
                "app-3]") + "]");
        assertRefused("xmit.cluster.services[0].bind.device = 'nic1' is not a device of an edge node; the devices " +
            "are nic0", "xmit.cluster.services = [" + ECHO.replace("device = nic0", "device = nic1") + "]");
    }

    @Test
    void refusesSeedsThatAreNotNodesOrNone()
    {
        assertRefused("xmit.cluster.seed-nodes[0] = 'edge-2' is not a node; the nodes are edge-1, app-1, app-2",
            "xmit.cluster.seed-nodes = [edge-2]");
        assertRefused("xmit.cluster.seed-nodes must name at least one node, the first of which forms the cluster, " +
            "e.g. [edge-1]", "xmit.cluster.seed-nodes = []");
        assertRefused("xmit.cluster.seed-nodes[1] = 'edge-1' is already a seed node",
            "xmit.cluster.seed-nodes = [edge-1, edge-1]");
    }

    @Test
    void refusesDuplicateNodeNames()
    {
        assertRefused("xmit.cluster.nodes[2].name = 'app-1' is already the name of xmit.cluster.nodes[1]; each node " +
            "needs its own", nodes(EDGE, APP_1, APP_2.replace("name = app-2", "name = app-1")));
    }

    @Test
    void refusesTwoNodesOnOneHostAndPort()
    {
        assertRefused("xmit.cluster.nodes[2].port = 25521: 127.0.0.1:25521 is already the Akka port of node app-1; " +
            "each node needs its own host:port", nodes(EDGE, APP_1, APP_2.replace("port = 25522", "port = 25521")));
        assertRefused("xmit.cluster.nodes[2].data-port = 40120: 127.0.0.1:40120 is already the data port of node " +
            "edge-1; each node needs its own host:port", nodes(EDGE, APP_1, APP_2.replace("40122", "40120")));
        // The same port on another host is another address.
        assertEquals(25521, read(nodes(EDGE, APP_1, APP_2.replace("port = 25522", "port = 25521")
            .replace("127.0.0.1", "10.0.0.2"))).requireNode("app-2").port());
    }

    @Test
    void refusesADeviceOnANodeWithoutTheEdgeRole()
    {
        assertRefused("xmit.cluster.nodes[1].devices: node app-1 has the roles [app]; only a node with the role " +
            "edge owns devices (add edge to its roles, or move the devices to an edge node)",
            nodes(EDGE, APP_1.replace("roles = [app]", "roles = [app], devices = [{ name = nic1, device = " +
                "\"afpacket:if=eth0\" }]"), APP_2));
    }

    @Test
    void refusesAServiceRoleNoNodeHas()
    {
        assertRefused("xmit.cluster.services[0].role = app: no node has the role app (the nodes' roles: edge)",
            "xmit.cluster { nodes = [" + EDGE + "], seed-nodes = [edge-1] }");
    }

    @Test
    void refusesAnMtuTooSmallForTheDevicesFrames()
    {
        assertRefused("xmit.cluster.data-plane.mtu = 1408 is too small for device nic0 of node edge-1 " +
            "(loop:tx=4,rx=4,ring=1024): a frame of up to 2048 bytes needs 2112 with Aeron's data header and xmit's " +
            "frame header, and xmit never fragments a frame; use at least 2112", "xmit.cluster.data-plane.mtu = 1408");
        assertRefused("xmit.cluster.data-plane.mtu = 1000 is not a multiple of 32 in 32..65504",
            "xmit.cluster.data-plane.mtu = 1000");
    }

    @Test
    void refusesAReceiverWindowAboveTheSocketBuffer()
    {
        assertRefused("xmit.cluster.data-plane.receiver-window = 262144 is above xmit.cluster.data-plane.so-rcvbuf " +
            "= 131072: Aeron refuses a receiver window larger than the socket's receive buffer; raise so-rcvbuf or " +
            "lower receiver-window", "xmit.cluster.data-plane { receiver-window = 256KiB, so-rcvbuf = 128KiB }");
        assertRefused("xmit.cluster.data-plane.receiver-window = 1048576 is not in 2112..524288 (from the MTU to " +
            "half a term)", "xmit.cluster.data-plane.receiver-window = 1MiB");
    }

    @Test
    void refusesBadPlacementsAndSplitBrainSettings()
    {
        assertRefused("xmit.cluster.services[0].placement = 'everywhere' is not per-node N, sharded N or sharded N " +
            "pinned", "xmit.cluster.services = [" + ECHO.replace("\"per-node 2\"", "everywhere") + "]");
        assertRefused("xmit.cluster.services[0].pin names 1 nodes for xmit.cluster.services[0].placement = 'sharded " +
            "2 pinned'; it names one node per socket, 2 in all", "xmit.cluster.services = [" +
            ECHO.replace("\"per-node 2\"", "\"sharded 2 pinned\", pin = [app-1]") + "]");
        assertRefused("xmit.cluster.services[0].pin[0] = 'edge-1': node edge-1 has the roles [edge], not the " +
            "service's role app", "xmit.cluster.services = [" +
            ECHO.replace("\"per-node 2\"", "\"sharded 1 pinned\", pin = [edge-1]") + "]");
        assertRefused("xmit.cluster.failure.split-brain.quorum-size = 1 is too small for 2 nodes of the role app: " +
            "with more than 2 × quorum-size − 1 of them both sides of a partition could hold a quorum; use at least 2",
            "xmit.cluster.failure.split-brain { role = app, quorum-size = 1 }");
        assertRefused("xmit.cluster.failure.split-brain.strategy = 'lease-majority' is not static-quorum, " +
            "keep-majority, keep-oldest, down-all", "xmit.cluster.failure.split-brain.strategy = lease-majority");
        assertRefused("xmit.cluster.failure.drain-deadline = 0s is not in 1s..1h",
            "xmit.cluster.failure.drain-deadline = 0s");
    }

    @Test
    void refusesBadSocketSpinPollsAndReceiptIntervals()
    {
        assertRefused("xmit.cluster.data-plane.socket-spin-polls = -1 is not in 0..16777216",
            "xmit.cluster.data-plane.socket-spin-polls = -1");
        assertRefused("xmit.cluster.data-plane.socket-spin-polls = 16777217 is not in 0..16777216",
            "xmit.cluster.data-plane.socket-spin-polls = 16777217");
        assertRefused("xmit.cluster.data-plane.socket-spin-polls = \"many\" is not a whole number (an int)",
            "xmit.cluster.data-plane.socket-spin-polls = many");
        assertRefused("xmit.cluster.data-plane.receipt-interval = 0s is not in 1ms..1m",
            "xmit.cluster.data-plane.receipt-interval = 0s");
        assertRefused("xmit.cluster.data-plane.receipt-interval = 2m is not in 1ms..1m",
            "xmit.cluster.data-plane.receipt-interval = 2m");
        assertRefused("xmit.cluster.data-plane.receipt-interval = \"often\" is not a duration, e.g. 500ms, 3s or 1m",
            "xmit.cluster.data-plane.receipt-interval = often");
    }

    /**
     * A handler class that is not there, {@code xmit cluster run --node} with a name not in the file, and a bad file,
     * as the command line says them.
     */
    @Test
    void theCommandsNameABadNodeOrFileInOneLineAndExitTwo() throws IOException
    {
        final Path file = dir.resolve("echo.conf");
        Files.writeString(file, FILE);
        final String handler = "xmit.cluster.services[0].handler = 'com.example.Echo': no such class on the class " +
            "path (java.lang.ClassNotFoundException: com.example.Echo)\n";
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster check: " + handler), xmit("cluster", "check",
            file.toString()));
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster run: " + handler), xmit("cluster", "run",
            "--config", file.toString(), "--node", "app-1"));
        Files.writeString(file, FILE.replace("\"com.example.Echo\"", "echo"));
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster run: --node 'app-9': no such node in " + file +
            "; its nodes are edge-1, app-1, app-2\n"), xmit("cluster", "run", "--config", file.toString(), "--node",
            "app-9"));
        Files.writeString(file, FILE + "\nxmit.cluster.data-plane.mtu = 1408\n");
        final String mtu = "xmit.cluster.data-plane.mtu = 1408 is too small for device nic0 of node edge-1 " +
            "(loop:tx=4,rx=4,ring=1024): a frame of up to 2048 bytes needs 2112 with Aeron's data header and xmit's " +
            "frame header, and xmit never fragments a frame; use at least 2112\n";
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster check: " + mtu), xmit("cluster", "check",
            file.toString()));
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster local: " + mtu), xmit("cluster", "local",
            file.toString()));
        assertEquals(new Result(Main.EXIT_USAGE, "", "xmit cluster check: '" + dir.resolve("none.conf") + "': no " +
            "such file\n"), xmit("cluster", "check", dir.resolve("none.conf").toString()));
    }

    /** The example the docs point to is a valid deployment. */
    @Test
    void theExampleFilePassesTheCheck()
    {
        final Result check = xmit("cluster", "check", "../examples/cluster-local.conf");
        assertEquals(Main.EXIT_OK, check.code(), check.err());
        assertEquals("../examples/cluster-local.conf: cluster local-echo, 3 nodes, seeds edge-1, app-1",
            check.out().lines().findFirst().orElseThrow());
    }

    static Deployment read(final String change)
    {
        return DeploymentReader.fromConfig(ConfigFactory.parseString(change)
            .withFallback(ConfigFactory.parseString(FILE)).resolve());
    }

    static String nodes(final String... nodes)
    {
        return "xmit.cluster.nodes = [" + String.join(", ", nodes) + "]";
    }

    private static void assertRefused(final String message, final String change)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> read(change)).getMessage());
    }

    record Result(int code, String out, String err)
    {
    }

    static Result xmit(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
