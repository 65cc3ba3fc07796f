package io.xmit.deploy.cluster;

import io.xmit.actors.stats.CountersFile;
import io.xmit.deploy.cluster.data.AppDataPlane.AppBooks;
import io.xmit.deploy.cluster.data.EdgeDataPlane.NodeBooks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running cluster node's books in a small text file, {@code xmit-<pid>-cluster-<node>.books} in the directory the
 * counters files use, so that {@code xmit stat --cluster} in another process sees every node of this machine and,
 * on an edge, the edge's books of every app node, wherever it runs. {@link NodeBooksWriter} rewrites it as a whole
 * and atomically (a temporary file renamed over it: a reader sees one version or the next), readable by its owner
 * only as the counters and XPS files are; the node's stop deletes it. Its lines, one fact each:
 * <pre>
 *   xmit-books 1
 *   written 2025-01-01T00:00:00.000Z
 *   cluster local-echo
 *   node edge-1
 *   roles edge
 *   address akka://local-echo@127.0.0.1:25520
 *   incarnation 8214417330185263751
 *   peer app-1 akka://local-echo@127.0.0.1:25521
 *   edge nic0 node=akka://local-echo@127.0.0.1:25521 incarnation=-3 live=true sockets=2 steered=2 published=9 …
 *   app sockets=2 received=9 sent=9 back-pressured=0 refused=0 malformed=0 handler-failed=0
 * </pre>
 * A {@code peer} line names each node of the deployment by its Akka address (the edge's books name nodes by
 * address); an {@code edge} line is one app node in the books of the edge pipeline of a device; the {@code app} line
 * is this node's own sockets' books, on an app node. Fields are {@code name=value}; a reader ignores a field it does
 * not know, so books that gain a field stay readable.
 */
public final class NodeBooksFile implements AutoCloseable
{
    public static final String FILE_SUFFIX = ".books";
    static final String FORMAT = "xmit-books 1";
    private static final Pattern FILE_NAME =
        Pattern.compile("xmit-(\\d{1,18})-cluster-([A-Za-z0-9._-]{1,64})\\.books");

    /**
     * Who the node is.
     *
     * @param incarnation its Akka unique address's uid: a restarted node is a new incarnation.
     * @param peers       the deployment's node names by Akka address, to name the nodes in an edge's books.
     */
    public record Identity(String cluster, String node, List<String> roles, String address, long incarnation,
        Map<String, String> peers)
    {
        public Identity
        {
            roles = List.copyOf(roles);
            peers = Map.copyOf(peers);
        }

        /** The node name at {@code address}, or the address itself when no node of the deployment has it. */
        public String nameOf(final String address)
        {
            return peers.getOrDefault(address, address);
        }
    }

    /** One edge pipeline's books of its app nodes, live and gone. */
    public record EdgeView(String device, List<NodeBooks> nodes)
    {
        public EdgeView
        {
            nodes = List.copyOf(nodes);
        }
    }

    /** What one version of a node's file says; {@code pid} is the node's process. */
    public record Books(Path path, long pid, Instant written, Identity identity, List<EdgeView> edges,
        Optional<AppBooks> app)
    {
        public Books
        {
            edges = List.copyOf(edges);
        }
    }

    private final Path path;
    private final Identity identity;
    private boolean closed;

    private NodeBooksFile(final Path path, final Identity identity)
    {
        this.path = path;
        this.identity = identity;
    }

    /**
     * Where {@code node}'s books file goes: beside the counters file of its first device's pipeline on an edge, else
     * in {@link CountersFile#DEFAULT_DIRECTORY}, where {@code xmit stat} looks by default.
     */
    public static Path directory(final Node node)
    {
        return node.devices().isEmpty() ? CountersFile.DEFAULT_DIRECTORY :
            node.devices().getFirst().pipeline().countersDir();
    }

    /** The file of node {@code node} of this process in {@code directory}. */
    public static Path path(final Path directory, final String node)
    {
        return directory.resolve(CountersFile.FILE_PREFIX + ProcessHandle.current().pid() + "-cluster-" + node +
            FILE_SUFFIX);
    }

    /**
     * Writes the node's file with no books yet, first deleting the books files of processes no longer alive in
     * {@code directory} (what a crashed node leaves behind).
     *
     * @throws IllegalArgumentException if the node's name cannot be part of a file name.
     * @throws UncheckedIOException     if the file cannot be written, naming it.
     */
    public static NodeBooksFile create(final Path directory, final Identity identity)
    {
        final Path path = path(directory, identity.node());
        if (!FILE_NAME.matcher(path.getFileName().toString()).matches())
        {
            throw new IllegalArgumentException("node name '" + identity.node() + "' cannot name a books file: 1 to " +
                "64 letters, digits, '.', '-' or '_'");
        }
        removeFilesOfDeadProcesses(directory);
        final NodeBooksFile file = new NodeBooksFile(path, identity);
        file.write(List.of(), Optional.empty());
        return file;
    }

    public Path path()
    {
        return path;
    }

    public Identity identity()
    {
        return identity;
    }

    /**
     * Rewrites the file with these books; after {@link #close} it does nothing.
     *
     * @throws UncheckedIOException if the file cannot be written, naming it.
     */
    public synchronized void write(final List<EdgeView> edges, final Optional<AppBooks> app)
    {
        if (closed)
        {
            return;
        }
        final StringBuilder text = new StringBuilder(FORMAT).append('\n')
            .append("written ").append(Instant.now()).append('\n')
            .append("cluster ").append(identity.cluster()).append('\n')
            .append("node ").append(identity.node()).append('\n')
            .append("roles ").append(String.join(",", identity.roles())).append('\n')
            .append("address ").append(identity.address()).append('\n')
            .append("incarnation ").append(identity.incarnation()).append('\n');
        new TreeMap<>(identity.peers()).forEach((address, name) ->
            text.append("peer ").append(name).append(' ').append(address).append('\n'));
        for (final EdgeView edge : edges)
        {
            for (final NodeBooks books : edge.nodes())
            {
                text.append("edge ").append(edge.device()).append(fields(books)).append('\n');
            }
        }
        app.ifPresent(books -> text.append("app").append(fields(books)).append('\n'));
        try
        {
            // A temporary file is created readable by its owner only; renamed, it keeps that.
            final Path temporary = Files.createTempFile(path.getParent(), "." + path.getFileName(), ".tmp");
            try
            {
                Files.writeString(temporary, text, StandardCharsets.UTF_8);
                Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            finally
            {
                Files.deleteIfExists(temporary);
            }
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            throw new UncheckedIOException("cannot write books file " + path + ": the file system of " +
                path.getParent() + " cannot rename atomically", ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write books file " + path, ex);
        }
    }

    /** Deletes the file; books written after this are not. Closing twice does nothing. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete books file " + path, ex);
        }
    }

    /**
     * The books files in {@code directory} of processes still alive, by node name.
     *
     * @throws UncheckedIOException if the directory cannot be listed, naming it.
     */
    public static List<Path> list(final Path directory)
    {
        final Map<String, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory,
            CountersFile.FILE_PREFIX + "*" + FILE_SUFFIX))
        {
            for (final Path file : stream)
            {
                final Matcher matcher = FILE_NAME.matcher(file.getFileName().toString());
                if (matcher.matches() && alive(Long.parseLong(matcher.group(1))))
                {
                    files.put(matcher.group(2) + " " + matcher.group(1), file);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list books files in " + directory, ex);
        }
        return List.copyOf(files.values());
    }

    /**
     * Reads the books file at {@code file}.
     *
     * @throws IllegalStateException if it is gone (the node stopped), unreadable, or not a books file of this
     *                               version, naming the file and the line.
     */
    public static Books read(final Path file)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalStateException("no books file " + file + " (the node has stopped)");
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read books file " + file + ": " + ex.getMessage());
        }
        try
        {
            return parse(file, lines);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException("books file " + file + " is damaged: " + ex.getMessage());
        }
    }

    private static Books parse(final Path file, final List<String> lines)
    {
        final Matcher name = FILE_NAME.matcher(file.getFileName().toString());
        final long pid = name.matches() ? Long.parseLong(name.group(1)) : -1;
        if (lines.isEmpty() || !FORMAT.equals(lines.getFirst()))
        {
            throw new IllegalArgumentException("line 1 is not '" + FORMAT + "'");
        }
        final String[] header = {"written", "cluster", "node", "roles", "address", "incarnation"};
        final String[] values = new String[header.length];
        for (int i = 0; i < header.length; i++)
        {
            final int at = i + 1;
            final String line = at < lines.size() ? lines.get(at) : "";
            if (!line.startsWith(header[i] + " "))
            {
                throw new IllegalArgumentException("line " + (at + 1) + " is not '" + header[i] + " …': '" + line +
                    "'");
            }
            values[i] = line.substring(header[i].length() + 1);
        }
        final Map<String, String> peers = new HashMap<>();
        final Map<String, List<NodeBooks>> edges = new LinkedHashMap<>();
        AppBooks app = null;
        for (int at = header.length + 1; at < lines.size(); at++)
        {
            final String[] words = lines.get(at).split(" ");
            final int number = at + 1;
            switch (words[0])
            {
                case "peer" ->
                {
                    if (words.length != 3)
                    {
                        throw new IllegalArgumentException("line " + number + ": expected 'peer NAME ADDRESS'");
                    }
                    peers.put(words[2], words[1]);
                }
                case "edge" ->
                {
                    if (words.length < 2)
                    {
                        throw new IllegalArgumentException("line " + number +
                            ": expected 'edge DEVICE field=value …'");
                    }
                    edges.computeIfAbsent(words[1], device -> new ArrayList<>())
                        .add(nodeBooks(new Fields(number, words, 2)));
                }
                case "app" -> app = appBooks(new Fields(number, words, 1));
                default -> throw new IllegalArgumentException("line " + number + " is not a peer, edge or app line: '" +
                    lines.get(at) + "'");
            }
        }
        final Identity identity = new Identity(values[1], values[2],
            values[3].isEmpty() ? List.of() : List.of(values[3].split(",")), values[4], Long.parseLong(values[5]),
            peers);
        final List<EdgeView> views = new ArrayList<>();
        edges.forEach((device, nodes) -> views.add(new EdgeView(device, nodes)));
        return new Books(file, pid, Instant.parse(values[0]), identity, views, Optional.ofNullable(app));
    }

    private static String fields(final NodeBooks books)
    {
        return " node=" + books.node() + " incarnation=" + books.incarnation() + " live=" + books.live() +
            " sockets=" + books.sockets() + " steered=" + books.steered() + " published=" + books.published() +
            " received=" + books.received() + " unconfirmed=" + books.unconfirmed() + " relayed=" + books.relayed() +
            " rejected=" + books.rejected() + " refused=" + books.refused() + " tx-node-down=" + books.txNodeDown() +
            " relay-back-pressured=" + books.relayBackPressured() + " rx-node-down=" + books.rxNodeDown() +
            " tx-stale-incarnation=" + books.txStaleIncarnation();
    }

    private static NodeBooks nodeBooks(final Fields fields)
    {
        return new NodeBooks(fields.text("node"), fields.number("incarnation"), fields.flag("live"),
            (int)fields.number("sockets"), (int)fields.number("steered"), fields.number("published"),
            fields.number("received"), fields.number("unconfirmed"), fields.number("relayed"),
            fields.number("rejected"), fields.number("refused"), fields.number("tx-node-down"),
            fields.number("relay-back-pressured"), fields.number("rx-node-down"),
            fields.number("tx-stale-incarnation"));
    }

    private static String fields(final AppBooks books)
    {
        return " sockets=" + books.sockets() + " received=" + books.received() + " sent=" + books.sent() +
            " back-pressured=" + books.backPressured() + " refused=" + books.refused() + " malformed=" +
            books.malformed() + " handler-failed=" + books.handlerFailed();
    }

    private static AppBooks appBooks(final Fields fields)
    {
        return new AppBooks((int)fields.number("sockets"), fields.number("received"), fields.number("sent"),
            fields.number("back-pressured"), fields.number("refused"), fields.number("malformed"),
            fields.number("handler-failed"));
    }

    /** A line's {@code name=value} fields from word {@code from} on; a field not asked for is ignored. */
    private static final class Fields
    {
        private final int line;
        private final Map<String, String> values = new HashMap<>();

        Fields(final int line, final String[] words, final int from)
        {
            this.line = line;
            for (int i = from; i < words.length; i++)
            {
                final int eq = words[i].indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("line " + line + ": '" + words[i] + "' is not name=value");
                }
                values.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }

        String text(final String name)
        {
            final String value = values.get(name);
            if (null == value)
            {
                throw new IllegalArgumentException("line " + line + " has no field " + name);
            }
            return value;
        }

        long number(final String name)
        {
            final String value = text(name);
            try
            {
                return Long.parseLong(value);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("line " + line + ": " + name + "=" + value + " is not a number");
            }
        }

        boolean flag(final String name)
        {
            final String value = text(name);
            if (!"true".equals(value) && !"false".equals(value))
            {
                throw new IllegalArgumentException("line " + line + ": " + name + "=" + value + " is not true or " +
                    "false");
            }
            return "true".equals(value);
        }
    }

    /** Deletes the books files in {@code directory} whose pid names no live process; a file not ours is left. */
    private static void removeFilesOfDeadProcesses(final Path directory)
    {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory,
            CountersFile.FILE_PREFIX + "*" + FILE_SUFFIX))
        {
            for (final Path file : files)
            {
                final Matcher matcher = FILE_NAME.matcher(file.getFileName().toString());
                if (matcher.matches() && !alive(Long.parseLong(matcher.group(1))))
                {
                    Files.deleteIfExists(file);
                }
            }
        }
        catch (final IOException ignore)
        {
            // Another user's leftover in a shared directory is theirs to remove; it must not stop this node.
        }
    }

    private static boolean alive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
