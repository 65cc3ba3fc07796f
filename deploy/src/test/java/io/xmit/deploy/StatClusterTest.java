package io.xmit.deploy;

import io.xmit.deploy.cluster.NodeBooksFile;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit stat --cluster} over books files the test writes as running nodes of this process would: an edge
 * whose books hold an app node running here, and two incarnations of one running elsewhere (the first lost);
 * the exact tables and identities, piped and on a narrow terminal, JSON, an identity that does not balance, and
 * the one line when no node runs, when a file is damaged and when the options do not go with {@code --cluster}.
 */
class StatClusterTest
{
    private static final long PID = ProcessHandle.current().pid();
    private static final String HEADER = """
        xmit-books 1
        written 2026-12-01T10:00:00Z
        cluster shop
        node %s
        roles %s
        address akka://shop@10.0.0.%d:25520
        incarnation %d
        peer app-1 akka://shop@10.0.0.2:25520
        peer app-2 akka://shop@10.0.0.3:25520
        peer edge-1 akka://shop@10.0.0.1:25520
        """;

    @TempDir
    Path dir;

    @BeforeEach
    void nodes() throws IOException
    {
        write("edge-1", HEADER.formatted("edge-1", "edge", 1, 7) + """
            edge nic0 node=akka://shop@10.0.0.2:25520 incarnation=11 live=true sockets=2 steered=2 published=100 \
            received=90 unconfirmed=0 relayed=95 rejected=1 refused=2 tx-node-down=0 relay-back-pressured=3 \
            rx-node-down=0 tx-stale-incarnation=0
            edge nic0 node=akka://shop@10.0.0.3:25520 incarnation=21 live=false sockets=0 steered=0 published=40 \
            received=30 unconfirmed=6 relayed=20 rejected=0 refused=0 tx-node-down=4 relay-back-pressured=0 \
            rx-node-down=4 tx-stale-incarnation=2
            edge nic0 node=akka://shop@10.0.0.3:25520 incarnation=22 live=true sockets=2 steered=1 published=1500 \
            received=1500 unconfirmed=0 relayed=1480 rejected=0 refused=0 tx-node-down=0 relay-back-pressured=0 \
            rx-node-down=0 tx-stale-incarnation=0
            """);
        write("app-1", HEADER.formatted("app-1", "app", 2, 11) + """
            app sockets=2 received=97 sent=99 back-pressured=5 refused=0 malformed=1 handler-failed=0
            """);
    }

    private void write(final String node, final String text) throws IOException
    {
        Files.writeString(dir.resolve("xmit-" + PID + "-cluster-" + node + ".books"), text);
    }

    /** The files as read, with the pid of a process the expected tables can name whatever this one's is. */
    private List<NodeBooksFile.Books> nodesOfPid4242()
    {
        return NodeBooksView.read(dir).stream().map(node -> new NodeBooksFile.Books(node.path(), 4242,
            node.written(), node.identity(), node.edges(), node.app())).toList();
    }

    @Test
    void everyNodesBooksAndTheEdgesViewOfItsAppNodesWithTheIdentities()
    {
        assertEquals("""
            cluster shop  2 nodes on this machine, totals as each last wrote them
            node    roles   pid  incarnation               written  sockets  received  sent  back_pressured
            app-1     app  4242           11  2026-12-01T10:00:00Z        2        97    99               5
            edge-1   edge  4242            7  2026-12-01T10:00:00Z        -         -     -               -
            node    refused  malformed  handler_failed
            app-1         0          1               0
            edge-1        -          -               -
            edge edge-1 device nic0: its app nodes
            app node  incarnation  live  sockets  steered  published  received  unconfirmed  rx_node_down
            app-1              11   yes        2        2        100        90            0             0
            app-2              21    no        0        0         40        30            6             4
            app-2              22   yes        2        1      1,500     1,500            0             0
            app node  relayed  rejected  refused  tx_node_down  tx_stale  relay_bp
            app-1          95         1        2             0         0         3
            app-2          20         0        0             4         2         0
            app-2       1,480         0        0             0         0         0
            books (each node's as of its file; across nodes exact when the traffic is quiet):
              app-1 incarnation 11 (books of edge edge-1 device nic0): rx published 100 = received 90 +
                unconfirmed 0 + rx_node_down 0 + in flight 10
              app-1 own books: rx received 97, within the edge's receipts 90 and its published 100; tx sent 99 =
                relayed 95 + rejected 1 + refused 2 + tx_node_down 0 + tx_stale 0 + in flight 1
              app-2 incarnation 21 (books of edge edge-1 device nic0): rx published 40 = received 30 +
                unconfirmed 6 + rx_node_down 4 + in flight 0
              app-2 incarnation 22 (books of edge edge-1 device nic0): rx published 1500 = received 1500 +
                unconfirmed 0 + rx_node_down 0 + in flight 0
              all app nodes (books of edge edge-1 device nic0): rx published 1640 = received 1620 + unconfirmed
                6 + rx_node_down 4 + in flight 10
            """, NodeBooksView.text(nodesOfPid4242(), 100));
    }

    @Test
    void theTablesReflowToANarrowTerminal()
    {
        assertEquals("""
            cluster shop  2 nodes on this machine, totals as each last wrote them
            node    roles   pid  incarnation               written
            app-1     app  4242           11  2026-12-01T10:00:00Z
            edge-1   edge  4242            7  2026-12-01T10:00:00Z
            node    sockets  received  sent  back_pressured  refused
            app-1         2        97    99               5        0
            edge-1        -         -     -               -        -
            node    malformed  handler_failed
            app-1           1               0
            edge-1          -               -
            edge edge-1 device nic0: its app nodes
            app node  incarnation  live  sockets  steered  published
            app-1              11   yes        2        2        100
            app-2              21    no        0        0         40
            app-2              22   yes        2        1      1,500
            app node  received  unconfirmed  rx_node_down  relayed
            app-1           90            0             0       95
            app-2           30            6             4       20
            app-2        1,500            0             0    1,480
            app node  rejected  refused  tx_node_down  tx_stale
            app-1            1        2             0         0
            app-2            0        0             4         2
            app-2            0        0             0         0
            app node  relay_bp
            app-1            3
            app-2            0
            app-2            0
            books (each node's as of its file; across nodes exact when
              the traffic is quiet):
              app-1 incarnation 11 (books of edge edge-1 device nic0):
                rx published 100 = received 90 + unconfirmed 0 +
                rx_node_down 0 + in flight 10
              app-1 own books: rx received 97, within the edge's
                receipts 90 and its published 100; tx sent 99 = relayed
                95 + rejected 1 + refused 2 + tx_node_down 0 + tx_stale
                0 + in flight 1
              app-2 incarnation 21 (books of edge edge-1 device nic0):
                rx published 40 = received 30 + unconfirmed 6 +
                rx_node_down 4 + in flight 0
              app-2 incarnation 22 (books of edge edge-1 device nic0):
                rx published 1500 = received 1500 + unconfirmed 0 +
                rx_node_down 0 + in flight 0
              all app nodes (books of edge edge-1 device nic0): rx
                published 1640 = received 1620 + unconfirmed 6 +
                rx_node_down 4 + in flight 10
            """, NodeBooksView.text(nodesOfPid4242(), 60));
    }

    @Test
    void statClusterOncePrintsTheBooksOfTheNodesInDir()
    {
        final RunCommandTest.Result piped = xmit("stat", "--cluster", "--once", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, piped.code(), piped.err());
        assertEquals(NodeBooksView.text(NodeBooksView.read(dir), Integer.MAX_VALUE), piped.out());
        final RunCommandTest.Result narrow = xmit(new Terminal(true, 60), "stat", "--cluster", "--once", "--dir",
            dir.toString());
        assertEquals(NodeBooksView.text(NodeBooksView.read(dir), 60), narrow.out());
        final RunCommandTest.Result twice = xmit("stat", "--cluster", "--count", "2", "--interval", "0.1", "--dir",
            dir.toString());
        assertEquals(Main.EXIT_OK, twice.code(), twice.err());
        final String block = "at T, every 0.1 s" + System.lineSeparator() +
            NodeBooksView.text(NodeBooksView.read(dir), Integer.MAX_VALUE) + System.lineSeparator();
        assertEquals(block + block, twice.out().replaceAll("at [0-9T:.-]+Z, every", "at T, every"),
            "piped, one block a snapshot under its time, each followed by an empty line");
    }

    @Test
    void json()
    {
        final RunCommandTest.Result result = xmit("stat", "--cluster", "--once", "--json", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        assertEquals("""
            {"time":"T","clusters":[{"cluster":"shop","nodes":[{"node":"app-1","roles":["app"],"pid":%d,\
            "address":"akka://shop@10.0.0.2:25520","incarnation":11,"written":"2026-12-01T10:00:00Z","app":{"sockets":2,\
            "received":97,"sent":99,"back_pressured":5,"refused":0,"malformed":1,"handler_failed":0},"edges":[]},\
            {"node":"edge-1","roles":["edge"],"pid":%d,"address":"akka://shop@10.0.0.1:25520","incarnation":7,\
            "written":"2026-12-01T10:00:00Z","edges":[{"device":"nic0","app_nodes":[{"node":"app-1",\
            "address":"akka://shop@10.0.0.2:25520","incarnation":11,"live":true,"sockets":2,"steered":2,"published":100,\
            "received":90,"unconfirmed":0,"rx_node_down":0,"relayed":95,"rejected":1,"refused":2,"tx_node_down":0,\
            "tx_stale_incarnation":0,"relay_back_pressured":3},{"node":"app-2","address":"akka://shop@10.0.0.3:25520",\
            "incarnation":21,"live":false,"sockets":0,"steered":0,"published":40,"received":30,"unconfirmed":6,\
            "rx_node_down":4,"relayed":20,"rejected":0,"refused":0,"tx_node_down":4,"tx_stale_incarnation":2,\
            "relay_back_pressured":0},{"node":"app-2","address":"akka://shop@10.0.0.3:25520","incarnation":22,\
            "live":true,"sockets":2,"steered":1,"published":1500,"received":1500,"unconfirmed":0,"rx_node_down":0,\
            "relayed":1480,"rejected":0,"refused":0,"tx_node_down":0,"tx_stale_incarnation":0,\
            "relay_back_pressured":0}]}]}],\
            "books":["app-1 incarnation 11 (books of edge edge-1 device nic0): rx published 100 = received 90 + unconfirmed 0 + rx_node_down 0 + in flight 10",\
            "app-1 own books: rx received 97,\
             within the edge's receipts 90 and its published 100; tx sent 99 = relayed 95 + rejected 1 + refused 2 + tx_node_down 0 + tx_stale 0 + in flight 1",\
            "app-2 incarnation 21 (books of edge edge-1 device nic0): rx published 40 = received 30 + unconfirmed 6 + rx_node_down 4 + in flight 0",\
            "app-2 incarnation 22 (books of edge edge-1 device nic0): rx published 1500 = received 1500 + unconfirmed 0 + rx_node_down 0 + in flight 0",\
            "all app nodes (books of edge edge-1 device nic0): rx published 1640 = received 1620 + unconfirmed 6 + rx_node_down 4 + in flight 10"]}]}
            """.formatted(PID, PID), result.out().replaceFirst("\"time\":\"[^\"]+\"", "\"time\":\"T\""));
    }

    @Test
    void aGoneNodeWithFramesStillInFlightDoesNotBalance() throws IOException
    {
        write("edge-1", HEADER.formatted("edge-1", "edge", 1, 7) + """
            edge nic0 node=akka://shop@10.0.0.3:25520 incarnation=21 live=false sockets=0 steered=0 published=40 \
            received=30 unconfirmed=4 relayed=20 rejected=0 refused=0 tx-node-down=4 relay-back-pressured=0 \
            rx-node-down=3 tx-stale-incarnation=0
            """);
        assertEquals(List.of(
                "app-2 incarnation 21 (books of edge edge-1 device nic0): rx published 40 = received 30 + " +
                    "unconfirmed 4 + rx_node_down 3 + in flight 3: does not balance",
                "all app nodes (books of edge edge-1 device nic0): rx published 40 = received 30 + unconfirmed 4 + " +
                    "rx_node_down 3 + in flight 3: does not balance"),
            NodeBooksView.identities(NodeBooksView.read(dir)).stream().filter(line -> !line.startsWith("app-1"))
                .toList());
    }

    @Test
    void noNodeADamagedFileAndOptionsThatDoNotGoWithClusterAreOneLine(@TempDir final Path empty) throws IOException
    {
        final RunCommandTest.Result none = xmit("stat", "--cluster", "--dir", empty.toString());
        assertEquals(Main.EXIT_FAILED, none.code());
        assertEquals("xmit stat: no xmit cluster node is running (no books file of a live process in " + empty + ")",
            none.err().strip());

        for (final String other : List.of("run", "--pid=1", "--all", "--xps", "--jmx", "--prometheus=0"))
        {
            final RunCommandTest.Result both = xmit("stat", "--cluster", other, "--dir", dir.toString());
            assertEquals(Main.EXIT_USAGE, both.code(), other);
            assertTrue(both.err().startsWith("xmit stat: --cluster shows every cluster node's books: not with NAME, " +
                "--pid, --all, --xps, --prometheus or --jmx"), both.err());
        }

        final Path app = dir.resolve("xmit-" + PID + "-cluster-app-1.books");
        Files.writeString(app, HEADER.formatted("app-1", "app", 2, 11) + "app sockets=2 received=lots\n");
        final RunCommandTest.Result damaged = xmit("stat", "--cluster", "--once", "--dir", dir.toString());
        assertEquals(Main.EXIT_FAILED, damaged.code());
        assertEquals("xmit stat: books file " + app + " is damaged: line 11: received=lots is not a number",
            damaged.err().strip());
    }
}
