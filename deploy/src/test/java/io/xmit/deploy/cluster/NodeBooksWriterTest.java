package io.xmit.deploy.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.typed.Cluster;
import com.typesafe.config.ConfigFactory;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.deploy.cluster.data.EdgeDataPlane;
import io.xmit.deploy.cluster.data.EdgeDataPlane.NodeBooks;
import io.xmit.pipeline.testing.Await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's books file as {@link NodeBooksWriter} keeps it, with scripted data planes that answer {@code GetBooks}
 * with books the test sets: who the node is at once, the books each interval after, owner-only, deleted when the
 * writer stops or the node's system terminates; a dead process's file is cleared; a damaged file is named.
 */
class NodeBooksWriterTest
{
    private static final Duration INTERVAL = Duration.ofMillis(20);
    private static final String EDGE_ADDRESS = "akka://books@127.0.0.1:25520";
    private static final String APP_ADDRESS = "akka://books@127.0.0.1:25521";
    private static final NodeBooksFile.Identity EDGE = new NodeBooksFile.Identity("books", "edge-1",
        List.of("edge", "app"), EDGE_ADDRESS, 77, Map.of(EDGE_ADDRESS, "edge-1", APP_ADDRESS, "app-1"));

    @TempDir
    Path dir;

    private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "node-books-writer-test");

    @AfterEach
    void stop()
    {
        system.terminate();
    }

    private static NodeBooks nodeBooks(final long published)
    {
        return new NodeBooks(APP_ADDRESS, -5, true, 2, 2, published, published - 3, 0, published - 1, 1, 0, 0, 4, 0, 0);
    }

    private static Behavior<EdgeDataPlane.Command> edge(final AtomicReference<NodeBooks> books)
    {
        return Behaviors.receive(EdgeDataPlane.Command.class)
            .onMessage(EdgeDataPlane.GetBooks.class, get ->
            {
                get.replyTo().tell(new EdgeDataPlane.EdgeBooks(List.of(books.get())));
                return Behaviors.same();
            })
            .build();
    }

    private static Behavior<AppDataPlane.Command> app(final AppDataPlane.AppBooks books)
    {
        return Behaviors.receive(AppDataPlane.Command.class)
            .onMessage(AppDataPlane.GetBooks.class, get ->
            {
                get.replyTo().tell(books);
                return Behaviors.same();
            })
            .build();
    }

    @Test
    void writesWhoTheNodeIsThenItsDataPlanesBooksAndDeletesTheFileWhenStopped() throws IOException
    {
        final AtomicReference<NodeBooks> edgeBooks = new AtomicReference<>(nodeBooks(10));
        final AppDataPlane.AppBooks appBooks = new AppDataPlane.AppBooks(1, 6, 5, 2, 1, 0, 3);
        final ActorRef<EdgeDataPlane.Command> edge = system.systemActorOf(edge(edgeBooks), "edge",
            Props.empty());
        final ActorRef<AppDataPlane.Command> app = system.systemActorOf(app(appBooks), "app",
            Props.empty());

        final NodeBooksFile file = NodeBooksFile.create(dir, EDGE);
        assertEquals(dir.resolve("xmit-" + ProcessHandle.current().pid() + "-cluster-edge-1.books"), file.path());
        final NodeBooksFile.Books first = NodeBooksFile.read(file.path());
        assertEquals(EDGE, first.identity());
        assertEquals(ProcessHandle.current().pid(), first.pid());
        assertEquals(List.of(), first.edges(), "no books before a data plane answered");
        assertEquals(Optional.empty(), first.app());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())));

        final ActorRef<NodeBooksWriter.Command> writer = system.systemActorOf(NodeBooksWriter.create(file,
            NodeBooksWriter.Sources.NONE.withEdge("nic0", edge).withApp(app), INTERVAL), NodeBooksWriter.NAME,
            Props.empty());
        Await.until("both data planes' books in the file", () -> books(file).app().isPresent() &&
            !books(file).edges().isEmpty(), () -> books(file));
        assertEquals(List.of(new NodeBooksFile.EdgeView("nic0", List.of(nodeBooks(10)))), books(file).edges());
        assertEquals(Optional.of(appBooks), books(file).app());

        edgeBooks.set(nodeBooks(25));
        Await.until("the edge's next books in the file", () -> books(file).edges().getFirst().nodes()
            .equals(List.of(nodeBooks(25))), () -> books(file));
        assertEquals(EDGE, books(file).identity(), "who the node is stays");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())),
            "a rewritten file is the owner's only");

        writer.tell(NodeBooksWriter.Stop.INSTANCE);
        Await.until("the file deleted once the writer stops", () -> !Files.exists(file.path()), () -> file);
        try (var left = Files.list(dir))
        {
            assertEquals(List.of(), left.toList(), "no temporary file left behind");
        }
    }

    /**
     * The entry point {@code cluster run} calls, on a node's own cluster ActorSystem: the file is named for the node
     * of the deployment, says its Akka address and incarnation as Akka Cluster has them, names the deployment's nodes
     * by address, holds its app data plane's books, and goes when the system terminates.
     */
    @Test
    void startTakesWhoTheNodeIsFromItsClusterSystemAndTheDeployment() throws IOException
    {
        final int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = free.getLocalPort();
        }
        final Deployment deployment = DeploymentReader.fromConfig(ConfigFactory.parseString("""
            xmit.cluster {
              name = books-test
              nodes = [{ name = app-1, host = "127.0.0.1", port = %d, data-port = 40999, roles = [app] }]
              seed-nodes = [app-1]
              failure.split-brain.strategy = keep-majority
            }
            """.formatted(port)));
        final Node node = deployment.requireNode("app-1");
        final ActorSystem<Void> member = ActorSystem.create(Behaviors.empty(), deployment.name(),
            NodeRunner.systemConfig(deployment, node));
        try
        {
            final AppDataPlane.AppBooks appBooks = new AppDataPlane.AppBooks(2, 9, 8, 0, 1, 0, 0);
            final ActorRef<AppDataPlane.Command> app = member.systemActorOf(app(appBooks), "app", Props.empty());
            NodeBooksWriter.start(member, deployment, node, dir, NodeBooksWriter.Sources.NONE.withApp(app));
            final Path file = NodeBooksFile.path(dir, "app-1");
            final String address = "akka://books-test@127.0.0.1:" + port;
            assertEquals(new NodeBooksFile.Identity("books-test", "app-1", List.of("app"), address,
                Cluster.get(member).selfMember().uniqueAddress().longUid(), Map.of(address, "app-1")),
                NodeBooksFile.read(file).identity());
            Await.until("the app data plane's books in the file", () -> NodeBooksFile.read(file).app().isPresent(),
                () -> NodeBooksFile.read(file));
            assertEquals(Optional.of(appBooks), NodeBooksFile.read(file).app());
            member.terminate();
            Await.until("the node's system terminated", () -> member.whenTerminated().isCompleted(), () -> member);
            assertFalse(Files.exists(file));
        }
        finally
        {
            member.terminate();
        }
    }

    @Test
    void theFileGoesWhenTheNodesSystemTerminates()
    {
        final NodeBooksFile file = NodeBooksFile.create(dir, EDGE);
        system.systemActorOf(NodeBooksWriter.create(file, NodeBooksWriter.Sources.NONE, INTERVAL),
            NodeBooksWriter.NAME, Props.empty());
        assertEquals(List.of(file.path()), NodeBooksFile.list(dir));
        system.terminate();
        Await.until("the system terminated", () -> system.whenTerminated().isCompleted(), () -> system);
        assertFalse(Files.exists(file.path()));
        assertEquals(List.of(), NodeBooksFile.list(dir));
    }

    @Test
    void aDeadProcessesFileIsClearedAndNotListed() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path stale = dir.resolve("xmit-" + gone.pid() + "-cluster-app-9.books");
        Files.writeString(stale, NodeBooksFile.FORMAT + "\n");
        assertEquals(List.of(), NodeBooksFile.list(dir), "a dead process's node is not running");
        final NodeBooksFile file = NodeBooksFile.create(dir, EDGE);
        assertFalse(Files.exists(stale), "cleared when a node starts");
        file.close();
        assertFalse(Files.exists(file.path()));
    }

    @Test
    void aDamagedFileANodeNameNoFileCanHaveAndAGoneFileAreNamed() throws IOException
    {
        final NodeBooksFile file = NodeBooksFile.create(dir, EDGE);
        final List<String> lines = Files.readAllLines(file.path());
        Files.writeString(file.path(), String.join("\n", lines) + "\nedge nic0 node=x published=many\n");
        assertEquals("books file " + file.path() + " is damaged: line 10 has no field incarnation",
            assertThrows(IllegalStateException.class, () -> NodeBooksFile.read(file.path())).getMessage());
        Files.writeString(file.path(), String.join("\n", lines.subList(0, 3)) + "\nroles edge\n");
        assertEquals("books file " + file.path() + " is damaged: line 4 is not 'node …': 'roles edge'",
            assertThrows(IllegalStateException.class, () -> NodeBooksFile.read(file.path())).getMessage());
        file.close();
        assertEquals("no books file " + file.path() + " (the node has stopped)",
            assertThrows(IllegalStateException.class, () -> NodeBooksFile.read(file.path())).getMessage());
        assertEquals("node name 'a b' cannot name a books file: 1 to 64 letters, digits, '.', '-' or '_'",
            assertThrows(IllegalArgumentException.class, () -> NodeBooksFile.create(dir,
                new NodeBooksFile.Identity("books", "a b", List.of("app"), APP_ADDRESS, 1, Map.of()))).getMessage());
        final Path missing = dir.resolve("missing");
        assertTrue(assertThrows(UncheckedIOException.class, () -> NodeBooksFile.create(missing, EDGE)).getMessage()
            .startsWith("cannot write books file " + missing.resolve(file.path().getFileName())));
    }

    private static NodeBooksFile.Books books(final NodeBooksFile file)
    {
        return NodeBooksFile.read(file.path());
    }
}
