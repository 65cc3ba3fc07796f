package io.xmit.actors.stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import static io.xmit.actors.stats.CountersFile.HEADER_LENGTH;

/**
 * A read-only mapping of a {@link CountersFile}, as a monitoring tool in another process holds it. The header
 * is checked against the file's size before any counter is read, so a truncated or foreign file is reported
 * rather than read past its end. Counters are found by their type id and key, decoded into a {@link CounterScope}; a
 * key that decodes to no scope is reported as damage, as a label of impossible length is.
 */
public final class CountersView implements AutoCloseable
{
    /** Receives one allocated counter; its key, label and value are read at the moment of the call. */
    @FunctionalInterface
    public interface CounterVisitor
    {
        void accept(int counterId, int typeId, CounterScope scope, String label, long value);
    }

    private final Path path;
    private final MappedByteBuffer mapping;
    private final long pid;
    private final long startTimeMs;
    private final CountersReader reader;
    private boolean closed;

    private CountersView(
        final Path path,
        final MappedByteBuffer mapping,
        final long pid,
        final long startTimeMs,
        final CountersReader reader)
    {
        this.path = path;
        this.mapping = mapping;
        this.pid = pid;
        this.startTimeMs = startTimeMs;
        this.reader = reader;
    }

    static CountersView open(final Path file)
    {
        final MappedByteBuffer mapping;
        final long fileLength;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            fileLength = channel.size();
            if (fileLength < HEADER_LENGTH)
            {
                throw new IllegalStateException("not a counters file, " + fileLength + " bytes is shorter than the " +
                    HEADER_LENGTH + "-byte header: " + file);
            }
            if (fileLength > Integer.MAX_VALUE)
            {
                throw new IllegalStateException("not a counters file, " + fileLength +
                    " bytes is larger than any counters file: " + file);
            }
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, fileLength);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalArgumentException("no such counters file: " + file, ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot map counters file " + file, ex);
        }

        try
        {
            return wrap(file, mapping, (int)fileLength);
        }
        catch (final RuntimeException ex)
        {
            IoUtil.unmap(mapping);
            throw ex;
        }
    }

    private static CountersView wrap(final Path file, final MappedByteBuffer mapping, final int fileLength)
    {
        final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        final int magic = header.getIntVolatile(CountersFile.MAGIC_OFFSET);
        if (CountersFile.MAGIC != magic)
        {
            throw new IllegalStateException(String.format(
                "not a counters file (or one still being created), magic is 0x%08x, expected 0x%08x: %s",
                magic, CountersFile.MAGIC, file));
        }
        final int version = header.getInt(CountersFile.VERSION_OFFSET);
        if (CountersFile.VERSION != version)
        {
            throw new IllegalStateException("counters file has version " + version + ", this reader reads version " +
                CountersFile.VERSION + ": " + file);
        }

        final int metadataLength = header.getInt(CountersFile.METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(CountersFile.VALUES_LENGTH_OFFSET);
        final boolean lengthsAgree = valuesLength > 0 &&
            0 == valuesLength % CountersReader.COUNTER_LENGTH &&
            (long)metadataLength ==
                (long)(valuesLength / CountersReader.COUNTER_LENGTH) * CountersReader.METADATA_LENGTH;
        if (!lengthsAgree)
        {
            throw new IllegalStateException("counters file header is inconsistent, metadata length " +
                metadataLength + " and values length " + valuesLength + " do not describe whole counters: " + file);
        }
        final long expectedLength = (long)HEADER_LENGTH + metadataLength + valuesLength;
        if (expectedLength != fileLength)
        {
            throw new IllegalStateException("counters file is " + fileLength + " bytes but its header says " +
                expectedLength + " (truncated or overwritten): " + file);
        }

        final UnsafeBuffer metadata = new UnsafeBuffer(mapping, HEADER_LENGTH, metadataLength);
        final UnsafeBuffer values = new UnsafeBuffer(mapping, HEADER_LENGTH + metadataLength, valuesLength);
        return new CountersView(
            file,
            mapping,
            header.getLong(CountersFile.PID_OFFSET),
            header.getLong(CountersFile.START_TIME_OFFSET),
            new CountersReader(metadata, values, StandardCharsets.UTF_8));
    }

    /**
     * Visits every allocated counter in id order.
     *
     * @param visitor receives each counter.
     */
    public void forEach(final CounterVisitor visitor)
    {
        checkOpen();
        final int maxCounterId = reader.maxCounterId();
        for (int counterId = 0; counterId <= maxCounterId; counterId++)
        {
            final int state = reader.getCounterState(counterId);
            // Agrona allocates ids in order, so the first never-used record ends the allocated ones.
            if (CountersReader.RECORD_UNUSED == state)
            {
                break;
            }
            if (CountersReader.RECORD_ALLOCATED == state)
            {
                visitor.accept(
                    counterId,
                    reader.getCounterTypeId(counterId),
                    scope(counterId),
                    label(counterId),
                    reader.getCounterValue(counterId));
            }
        }
    }

    /**
     * The value of the first allocated counter of this type and scope, found by its type id and key.
     *
     * @param type  the kind, e.g. {@link CounterType#QDISC_BYPASSED}.
     * @param scope what it belongs to, e.g. {@code CounterScope.txq(0, 3)}.
     * @return its value, or -1 if no allocated counter has that type and scope. Pipeline counters never go negative,
     * so -1 is not a value a present counter holds.
     */
    public long value(final CounterType type, final CounterScope scope)
    {
        checkOpen();
        final int maxCounterId = reader.maxCounterId();
        for (int counterId = 0; counterId <= maxCounterId; counterId++)
        {
            final int state = reader.getCounterState(counterId);
            if (CountersReader.RECORD_UNUSED == state)
            {
                break;
            }
            if (CountersReader.RECORD_ALLOCATED == state && type.typeId() == reader.getCounterTypeId(counterId) &&
                scope.matches(reader.metaDataBuffer(), keyOffset(counterId)))
            {
                return reader.getCounterValue(counterId);
            }
        }
        return -1;
    }

    /**
     * A counter's scope, decoded from its key.
     *
     * @throws IllegalStateException naming the file if the key is not that of any scope.
     */
    private CounterScope scope(final int counterId)
    {
        final CounterScope scope = CounterScope.decode(reader.metaDataBuffer(), keyOffset(counterId));
        if (null == scope)
        {
            throw new IllegalStateException("counters file is damaged: counter " + counterId +
                " has a key that is no counter scope: " + path);
        }
        return scope;
    }

    private static int keyOffset(final int counterId)
    {
        return CountersReader.metaDataOffset(counterId) + CountersReader.KEY_OFFSET;
    }

    /**
     * A counter's label, once its length is checked: the file is another process's, and a damaged length would
     * read past the record.
     *
     * @throws IllegalStateException naming the file if the label's length is not that of any label.
     */
    private String label(final int counterId)
    {
        final int length = reader.metaDataBuffer().getInt(
            CountersReader.metaDataOffset(counterId) + CountersReader.LABEL_OFFSET);
        if (length < 0 || length > CountersReader.MAX_LABEL_LENGTH)
        {
            throw new IllegalStateException("counters file is damaged: counter " + counterId + " has a label of " +
                length + " bytes (at most " + CountersReader.MAX_LABEL_LENGTH + "): " + path);
        }
        return reader.getCounterLabel(counterId);
    }

    /**
     * @return the pid of the process that created the file.
     */
    public long pid()
    {
        return pid;
    }

    /**
     * @return when the file was created, in epoch milliseconds.
     */
    public long startTimeMs()
    {
        return startTimeMs;
    }

    /**
     * @return true if a process with the creator's pid is alive. A recycled pid makes a dead owner look alive.
     */
    public boolean ownerAlive()
    {
        return CountersFile.isAlive(pid);
    }

    /**
     * @return the mapped file.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return the Agrona reader over the mapping, for tools that want the raw metadata; valid until close.
     */
    public CountersReader reader()
    {
        checkOpen();
        return reader;
    }

    /**
     * Unmaps the file. Closing twice does nothing.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            IoUtil.unmap(mapping);
        }
    }

    private void checkOpen()
    {
        // Reading through an unmapped address would crash the JVM rather than throw.
        if (closed)
        {
            throw new IllegalStateException("counters view is closed: " + path);
        }
    }
}
