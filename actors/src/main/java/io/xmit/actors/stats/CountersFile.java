package io.xmit.actors.stats;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pipeline's counters in a memory-mapped file named {@code xmit-<pid>-<pipelineName>.counters}, so a tool in
 * another process can read them while the pipeline runs, as AeronStat reads Aeron's CnC file.
 * <p>
 * Layout, all little-endian as Agrona writes it:
 * <pre>
 *   0                   4                   8
 *   +-------------------+-------------------+
 *   |  magic            |  version          |
 *   +-------------------+-------------------+
 *   |  pid                                  |
 *   +-------------------+-------------------+
 *   |  metadata length  |  values length    |
 *   +-------------------+-------------------+
 *   |  start time (epoch ms)                |
 *   +---------------------------------------+
 *   |  reserved up to HEADER_LENGTH         |
 *   +---------------------------------------+
 *   |  CountersManager metadata buffer      |  capacity * CountersReader.METADATA_LENGTH
 *   +---------------------------------------+
 *   |  CountersManager values buffer        |  capacity * CountersReader.COUNTER_LENGTH
 *   +---------------------------------------+
 * </pre>
 * Each counter's type id is its {@link CounterType} and its key is its {@link CounterScope}, which readers decode to
 * find it; the label is for people.
 * <p>
 * Allocation and freeing are control-plane operations and are serialised on this object. Each counter handed
 * out is then written by one thread with the single-writer release operations of {@link AtomicCounter}.
 */
public final class CountersFile implements AutoCloseable
{
    /** "XMIT" read as a big-endian int, so a hex dump of the file starts with something recognisable. */
    public static final int MAGIC = 0x584D4954;
    /** 2 since each counter's key holds its {@link CounterScope}; version 1 files carried the scope in labels only. */
    public static final int VERSION = 2;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int PID_OFFSET = 8;
    public static final int METADATA_LENGTH_OFFSET = 16;
    public static final int VALUES_LENGTH_OFFSET = 20;
    public static final int START_TIME_OFFSET = 24;

    /** Two cache lines, so the metadata and values buffers that follow stay cache-line aligned. */
    public static final int HEADER_LENGTH = 128;

    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");
    /**
     * Room for about 9,000 sockets (7 counters each) beside the queues' counters. The file is sparse: a page of
     * memory is used only once counters on it are allocated, so room costs address space, not memory (42 MB of it).
     */
    public static final int DEFAULT_CAPACITY = 65_536;
    public static final int MAX_CAPACITY = 1_000_000;
    public static final String FILE_PREFIX = "xmit-";
    public static final String FILE_SUFFIX = ".counters";

    static final Pattern PIPELINE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    static final Pattern FILE_NAME = Pattern.compile("xmit-(\\d{1,18})-([A-Za-z0-9._-]{1,64})\\.counters");

    private final Path path;
    private final CountersManager countersManager;
    private final List<AtomicCounter> allocated = new ArrayList<>();
    private boolean closed;

    private CountersFile(final Path path, final CountersManager countersManager)
    {
        this.path = path;
        this.countersManager = countersManager;
    }

    /**
     * Creates the counters file for a pipeline in {@link #DEFAULT_DIRECTORY} with {@link #DEFAULT_CAPACITY}.
     *
     * @see #create(String, Path, int)
     */
    public static CountersFile create(final String pipelineName)
    {
        return create(pipelineName, DEFAULT_DIRECTORY, DEFAULT_CAPACITY);
    }

    /**
     * Removes the counters files of processes that are no longer alive from {@code directory}, then creates
     * {@code xmit-<pid>-<pipelineName>.counters} there with room for {@code capacity} counters.
     *
     * @param pipelineName letters, digits, '.', '_' and '-', 1 to 64 characters.
     * @param directory    an existing writable directory.
     * @param capacity     how many counters the file holds, 1 to {@link #MAX_CAPACITY}.
     * @return the open file, which the caller closes.
     * @throws IllegalArgumentException if an argument is outside the above.
     * @throws IllegalStateException    if this process already has a counters file of that name there.
     */
    public static CountersFile create(final String pipelineName, final Path directory, final int capacity)
    {
        if (null == pipelineName || !PIPELINE_NAME.matcher(pipelineName).matches())
        {
            throw new IllegalArgumentException("pipelineName must be 1 to 64 letters, digits, '.', '_' or '-': " +
                (null == pipelineName ? "null" : "'" + pipelineName + "'"));
        }
        checkDirectory(directory, true);
        if (capacity < 1 || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException(
                "capacity must be between 1 and " + MAX_CAPACITY + " counters: " + capacity);
        }

        removeFilesOfDeadProcesses(directory);

        final long pid = ProcessHandle.current().pid();
        final Path path = directory.resolve(FILE_PREFIX + pid + "-" + pipelineName + FILE_SUFFIX);
        final int metadataLength = capacity * CountersReader.METADATA_LENGTH;
        final int valuesLength = capacity * CountersReader.COUNTER_LENGTH;
        final long fileLength = (long)HEADER_LENGTH + metadataLength + valuesLength;

        final MappedByteBuffer mapping;
        // CREATE_NEW so two pipelines of one process given the same name fail instead of sharing one file.
        try (FileChannel channel = FileChannel.open(
            path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new IllegalStateException("counters file already exists, pipeline name '" + pipelineName +
                "' is in use in this process: " + path, ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create counters file " + path, ex);
        }

        final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        final UnsafeBuffer metadata = new UnsafeBuffer(mapping, HEADER_LENGTH, metadataLength);
        final UnsafeBuffer values = new UnsafeBuffer(mapping, HEADER_LENGTH + metadataLength, valuesLength);

        header.putLong(PID_OFFSET, pid);
        header.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        header.putInt(VALUES_LENGTH_OFFSET, valuesLength);
        header.putLong(START_TIME_OFFSET, System.currentTimeMillis());
        header.putInt(VERSION_OFFSET, VERSION);
        // Magic last: a reader that sees it also sees the lengths, as Aeron publishes the CnC version last.
        header.putIntRelease(MAGIC_OFFSET, MAGIC);

        return new CountersFile(path, new CountersManager(metadata, values, StandardCharsets.UTF_8));
    }

    /**
     * Allocates a counter with {@code scope} written into its key and labelled {@code type.label() + " " +
     * scope.label()}, e.g. {@code qdisc_bypassed port=0 txq=3}. The returned counter is written by one thread; release
     * it with {@link #free(AtomicCounter)}.
     *
     * @param type  the kind, stored as the counter's type id.
     * @param scope which queue, qdisc or socket the counter belongs to, stored as the counter's key.
     * @return the counter, starting at zero.
     * @throws IllegalStateException    if the file is full or closed.
     * @throws IllegalArgumentException if the type or scope is null.
     */
    public synchronized AtomicCounter allocate(final CounterType type, final CounterScope scope)
    {
        if (null == type)
        {
            throw new IllegalArgumentException("type must not be null");
        }
        if (null == scope)
        {
            throw new IllegalArgumentException("scope must not be null for " + type);
        }
        final String label = type.label() + " " + scope.label();
        if (closed)
        {
            throw new IllegalStateException("counters file is closed: " + path);
        }
        if (countersManager.available() < 1)
        {
            throw new IllegalStateException("counters file is full at its capacity of " +
                countersManager.capacity() + " counters, cannot allocate '" + label + "'; create it with a " +
                "larger capacity (CountersFile.create(name, directory, capacity)): " + path);
        }

        final AtomicCounter counter = countersManager.newCounter(label, type.typeId(), key -> scope.encode(key, 0));
        allocated.add(counter);
        return counter;
    }

    /**
     * Frees a counter this file allocated, so its slot can be reused and readers stop showing it. Use this
     * rather than {@link AtomicCounter#close()}, which would free outside this file's lock. Freeing a counter
     * twice, or after {@link #close()}, does nothing.
     *
     * @param counter a counter from {@link #allocate(CounterType, CounterScope)}.
     */
    public synchronized void free(final AtomicCounter counter)
    {
        if (!closed && allocated.remove(counter))
        {
            counter.close();
        }
    }

    /**
     * @return where the file is.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return a reader over this process's own mapping, for in-process reporting and tests.
     */
    public CountersReader reader()
    {
        return countersManager;
    }

    /** The value of this process's counter {@code type} for {@code scope}, or -1 if there is none. */
    public long value(final CounterType type, final CounterScope scope)
    {
        final long[] value = {-1};
        countersManager.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeId == type.typeId() && scope.matches(keyBuffer, 0))
            {
                value[0] = countersManager.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    /**
     * The sum of this process's counter {@code type} over {@code port}: its queues', sockets', stages' and its own.
     * A counter with a {@link CounterScope.Side} is left out: it counts another event under the same kind (a TX
     * queue's reclaim errors beside its qdisc's send errors, each of which is a requeue).
     */
    public long total(final CounterType type, final int port)
    {
        final long[] sum = {0};
        countersManager.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeId == type.typeId())
            {
                final CounterScope scope = CounterScope.decode(keyBuffer, 0);
                if (null != scope && scope.port() == port && CounterScope.Side.NONE == scope.side())
                {
                    sum[0] += countersManager.getCounterValue(counterId);
                }
            }
        });
        return sum[0];
    }

    /** Every counter of this process, label → value, in allocation order. */
    public Map<String, Long> values()
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        countersManager.forEach((counterId, typeId, keyBuffer, label) ->
            values.put(label, countersManager.getCounterValue(counterId)));
        return values;
    }

    /**
     * Frees every counter and deletes the file. The mapping is left to the garbage collector, so a thread that still
     * writes a counter after the close writes into live memory (the write is lost, the JVM is safe). Closing twice
     * does nothing.
     */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;

        // A reader that mapped the file keeps its mapping after the delete; freed records tell it the
        // counters are gone rather than frozen.
        for (final AtomicCounter counter : allocated)
        {
            counter.close();
        }
        allocated.clear();
        // Not unmapped: a writer racing the close (a socket sending as its pipeline stops) then writes into memory
        // that stays mapped until the last counter referring to it is unreachable, never into a hole that would crash
        // the JVM. The file's name is gone at once; its pages go with the garbage collector.
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete counters file " + path, ex);
        }
    }

    /**
     * Maps an existing counters file read-only, as a tool in another process does.
     *
     * @param file a file written by {@link #create(String, Path, int)}.
     * @return the view, which the caller closes.
     * @throws IllegalStateException if the file is not a counters file of this version or its lengths do not
     *                               match its size.
     */
    public static CountersView open(final Path file)
    {
        return CountersView.open(file);
    }

    /**
     * @param directory where to look, e.g. {@link #DEFAULT_DIRECTORY}.
     * @return the counters files in the directory, by name, whether or not their owners are alive.
     */
    public static List<Path> list(final Path directory)
    {
        checkDirectory(directory, false);
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, FILE_PREFIX + "*" + FILE_SUFFIX))
        {
            for (final Path file : stream)
            {
                if (FILE_NAME.matcher(file.getFileName().toString()).matches())
                {
                    files.add(file);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list counters files in " + directory, ex);
        }
        files.sort(null);
        return files;
    }

    /**
     * Deletes the counters files in {@code directory} whose pid names no live process, which is what a crashed
     * pipeline leaves behind. Files of live processes are never touched.
     *
     * @param directory where to look.
     * @return how many files were deleted.
     */
    public static int removeFilesOfDeadProcesses(final Path directory)
    {
        int removed = 0;
        for (final Path file : list(directory))
        {
            final Matcher matcher = FILE_NAME.matcher(file.getFileName().toString());
            if (matcher.matches() && !isAlive(Long.parseLong(matcher.group(1))))
            {
                try
                {
                    if (Files.deleteIfExists(file))
                    {
                        removed++;
                    }
                }
                catch (final IOException ignore)
                {
                    // Another user's leftover in a shared directory is theirs to remove; it must not stop
                    // this pipeline from starting.
                }
            }
        }
        return removed;
    }

    static boolean isAlive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void checkDirectory(final Path directory, final boolean writable)
    {
        if (null == directory)
        {
            throw new IllegalArgumentException("counters directory must not be null");
        }
        if (!Files.isDirectory(directory))
        {
            throw new IllegalArgumentException("counters directory does not exist or is not a directory: " +
                directory);
        }
        if (writable && !Files.isWritable(directory))
        {
            throw new IllegalArgumentException("counters directory is not writable: " + directory);
        }
    }
}
