package io.xmit.actors.stats;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.xps.QueueMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running pipeline's XPS maps in a small text file beside its counters file, {@code xmit-<pid>-<name>.xps}, so
 * {@code xmit stat --xps} and {@code xmit explain --live} in another process see the maps the senders select over.
 * The mapping actors rewrite it whenever a map changes, as a whole and atomically (a temporary file renamed over it),
 * so a reader sees one version or the next, never half of one; the pipeline's stop deletes it. The senders never
 * touch it.
 * <p>
 * The file holds the flow hash key (an explanation of a hash choice needs it), so it is readable by its owner only,
 * as the kernel keeps its key from other users. Its lines, one fact each:
 * <pre>
 *   xmit-xps 1
 *   written 2025-01-01T00:00:00.000Z
 *   hash-key 000102030405060708090a0b0c0d0e0f
 *   txq-reselection-ns 1000000000
 *   ports 1
 *   port 0 tx-queues 4 real 4 cpus 2 rx-queues 4
 *   port 0 xps-cpus 0=0,2 1=1,3
 *   port 0 xps-rxqs 0=0 1=1 2=2 3=3
 * </pre>
 * An {@code xps-cpus} or {@code xps-rxqs} line lists each CPU or RX queue that has an entry, {@code id=queues} with the
 * queues in map order (which one a flow hash picks depends on it, kernel-semantics §2.3); none listed is a disabled
 * map.
 */
public final class XpsMapsFile implements AutoCloseable
{
    public static final String FILE_SUFFIX = ".xps";
    static final String FORMAT = "xmit-xps 1";
    private static final Pattern FILE_NAME = Pattern.compile("xmit-(\\d{1,18})-[A-Za-z0-9._-]{1,64}\\.xps");

    private final Path path;
    private final String hashKey;
    private final Duration txqReselection;
    private final QueueMap[] ports;
    private boolean closed;

    private XpsMapsFile(final Path path, final FlowHasher hasher, final Duration txqReselection,
        final QueueMap[] ports)
    {
        this.path = path;
        this.hashKey = hasher.keyHex();
        this.txqReselection = txqReselection;
        this.ports = ports;
    }

    /** What one version of the file says. */
    public record Maps(Path path, Instant written, FlowHasher hasher, Duration txqReselection, List<QueueMap> ports)
    {
        /** The map of {@code port}, or an {@link IllegalArgumentException} naming a port the pipeline lacks. */
        public QueueMap port(final int port)
        {
            if (port < 0 || port >= ports.size())
            {
                throw new IllegalArgumentException("port " + port + " is not in 0.." + (ports.size() - 1) +
                    " (the pipeline's ports)");
            }
            return ports.get(port);
        }
    }

    /**
     * The maps file that belongs beside {@code countersFile}: {@code xmit-<pid>-<name>.xps} for
     * {@code xmit-<pid>-<name>.counters}.
     */
    public static Path beside(final Path countersFile)
    {
        final String name = countersFile.getFileName().toString();
        final String stem = name.endsWith(CountersFile.FILE_SUFFIX) ?
            name.substring(0, name.length() - CountersFile.FILE_SUFFIX.length()) : name;
        return countersFile.resolveSibling(stem + FILE_SUFFIX);
    }

    /**
     * Writes the maps file beside {@code countersFile} with each port's map at start, first deleting the maps files
     * of processes no longer alive there (what a crashed pipeline leaves behind).
     *
     * @throws UncheckedIOException if the file cannot be written, naming it.
     */
    public static XpsMapsFile create(final Path countersFile, final FlowHasher hasher, final Duration txqReselection,
        final QueueMap[] initial)
    {
        removeFilesOfDeadProcesses(countersFile.getParent());
        final XpsMapsFile file = new XpsMapsFile(beside(countersFile), hasher, txqReselection, initial.clone());
        file.write();
        return file;
    }

    public Path path()
    {
        return path;
    }

    /**
     * Records {@code map} as {@code port}'s map in force and rewrites the file; after {@link #close} it does nothing.
     * Called by the port's mapping actor after it publishes a change, off the send path.
     *
     * @throws UncheckedIOException if the file cannot be written, naming it.
     */
    public synchronized void update(final int port, final QueueMap map)
    {
        if (closed)
        {
            return;
        }
        ports[port] = map;
        write();
    }

    /** Deletes the file; what the mapping actors record after this is not written. Closing twice does nothing. */
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
            throw new UncheckedIOException("cannot delete XPS maps file " + path, ex);
        }
    }

    /**
     * Reads the maps file at {@code file}.
     *
     * @throws IllegalStateException if it is gone (the pipeline stopped), unreadable, or not a maps file of this
     *                               version, naming the file and the line.
     */
    public static Maps read(final Path file)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalStateException("no XPS maps file " + file + " (the pipeline has stopped, or predates " +
                "the file)");
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read XPS maps file " + file + ": " + ex.getMessage());
        }
        try
        {
            return parse(file, lines);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException("XPS maps file " + file + " is damaged: " + ex.getMessage());
        }
    }

    private static Maps parse(final Path file, final List<String> lines)
    {
        final Lines in = new Lines(lines);
        in.expect(FORMAT);
        final Instant written = Instant.parse(in.value("written"));
        final String key = in.value("hash-key");
        if (!key.matches("[0-9a-f]{32}"))
        {
            throw new IllegalArgumentException("hash-key '" + key + "' is not 32 hex digits");
        }
        final FlowHasher hasher = new FlowHasher(Long.parseUnsignedLong(key.substring(0, 16), 16),
            Long.parseUnsignedLong(key.substring(16), 16));
        final Duration reselection = Duration.ofNanos(Long.parseLong(in.value("txq-reselection-ns")));
        final int count = Integer.parseInt(in.value("ports"));
        final List<QueueMap> ports = new ArrayList<>();
        for (int p = 0; p < count; p++)
        {
            final String[] sizes = in.value("port " + p + " tx-queues").split(" ");
            if (sizes.length != 7 || !"real".equals(sizes[1]) || !"cpus".equals(sizes[3]) ||
                !"rx-queues".equals(sizes[5]))
            {
                throw new IllegalArgumentException("line " + in.at + ": expected 'port " + p +
                    " tx-queues N real N cpus N rx-queues N'");
            }
            final int numCpus = Integer.parseInt(sizes[4]);
            final int numRxQueues = Integer.parseInt(sizes[6]);
            final int[][] cpus = entries(in.value("port " + p + " xps-cpus"), numCpus);
            final int[][] rxqs = entries(in.value("port " + p + " xps-rxqs"), numRxQueues);
            ports.add(QueueMap.fromEntries(Integer.parseInt(sizes[0]), Integer.parseInt(sizes[2]), numCpus,
                numRxQueues, cpus, rxqs));
        }
        return new Maps(file, written, hasher, reselection, List.copyOf(ports));
    }

    /** {@code id=q,q id=q …} as one entry per id, in map order; ids not listed have none. */
    private static int[][] entries(final String text, final int count)
    {
        final int[][] entries = new int[count][];
        Arrays.fill(entries, new int[0]);
        for (final String entry : text.isEmpty() ? new String[0] : text.split(" "))
        {
            final int eq = entry.indexOf('=');
            final int id = Integer.parseInt(entry.substring(0, eq));
            if (id < 0 || id >= count)
            {
                throw new IllegalArgumentException("entry '" + entry + "' is for id " + id + ", not in 0.." +
                    (count - 1));
            }
            entries[id] = Arrays.stream(entry.substring(eq + 1).split(",")).mapToInt(Integer::parseInt).toArray();
        }
        return entries;
    }

    /** The file's lines, read in order: each a key and its value. */
    private static final class Lines
    {
        private final List<String> lines;
        private int at;

        Lines(final List<String> lines)
        {
            this.lines = lines;
        }

        void expect(final String line)
        {
            if (lines.isEmpty() || !line.equals(lines.getFirst()))
            {
                throw new IllegalArgumentException("line 1 is not '" + line + "'");
            }
            at = 1;
        }

        /** The rest of the next line after {@code key} and a space (empty if nothing follows the key). */
        String value(final String key)
        {
            if (at >= lines.size())
            {
                throw new IllegalArgumentException("ends before '" + key + "'");
            }
            final String line = lines.get(at++);
            if (line.equals(key))
            {
                return "";
            }
            if (!line.startsWith(key + " "))
            {
                throw new IllegalArgumentException("line " + at + " is not '" + key + " …': '" + line + "'");
            }
            return line.substring(key.length() + 1);
        }
    }

    /** The whole file, written beside it and renamed over it. */
    private void write()
    {
        final StringBuilder text = new StringBuilder(FORMAT).append('\n')
            .append("written ").append(Instant.now()).append('\n')
            .append("hash-key ").append(hashKey).append('\n')
            .append("txq-reselection-ns ").append(txqReselection.toNanos()).append('\n')
            .append("ports ").append(ports.length).append('\n');
        for (int p = 0; p < ports.length; p++)
        {
            final QueueMap map = ports[p];
            text.append("port ").append(p).append(" tx-queues ").append(map.numTxQueues())
                .append(" real ").append(map.realNumTx()).append(" cpus ").append(map.numCpus())
                .append(" rx-queues ").append(map.numRxQueues()).append('\n');
            text.append("port ").append(p).append(" xps-cpus");
            for (int cpu = 0; cpu < map.numCpus(); cpu++)
            {
                entry(text, cpu, map.cpuEntry(cpu));
            }
            text.append('\n').append("port ").append(p).append(" xps-rxqs");
            for (int rxq = 0; rxq < map.numRxQueues(); rxq++)
            {
                entry(text, rxq, map.rxqEntry(rxq));
            }
            text.append('\n');
        }
        try
        {
            // A temporary file is created readable by its owner only; renamed, it keeps that.
            final Path temporary = Files.createTempFile(path.getParent(), "." + path.getFileName(), ".tmp");
            try
            {
                Files.writeString(temporary, text, StandardCharsets.UTF_8);
                move(temporary);
            }
            finally
            {
                Files.deleteIfExists(temporary);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write XPS maps file " + path, ex);
        }
    }

    private void move(final Path temporary) throws IOException
    {
        try
        {
            Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            throw new IOException("the file system of " + path.getParent() + " cannot rename atomically", ex);
        }
    }

    private static void entry(final StringBuilder text, final int id, final int[] queues)
    {
        if (queues.length == 0)
        {
            return;
        }
        text.append(' ').append(id).append('=');
        for (int i = 0; i < queues.length; i++)
        {
            text.append(i > 0 ? "," : "").append(queues[i]);
        }
    }

    /** Deletes the maps files in {@code directory} whose pid names no live process; a file not ours is left. */
    private static void removeFilesOfDeadProcesses(final Path directory)
    {
        try (var files = Files.newDirectoryStream(directory, CountersFile.FILE_PREFIX + "*" + FILE_SUFFIX))
        {
            for (final Path file : files)
            {
                final Matcher matcher = FILE_NAME.matcher(file.getFileName().toString());
                if (matcher.matches() && !CountersFile.isAlive(Long.parseLong(matcher.group(1))))
                {
                    Files.deleteIfExists(file);
                }
            }
        }
        catch (final IOException ignore)
        {
            // Another user's leftover in a shared directory is theirs to remove; it must not stop this pipeline.
        }
    }
}
