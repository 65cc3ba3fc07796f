package io.xmit.transport.ring;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;

import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Aeron IPC rings of one pipeline: an embedded media driver in a directory of its own and one Aeron client, from
 * which the pipeline adds {@link PacketPublication}s and {@link PacketSubscription}s, one Aeron stream per ring.
 * <p>
 * The directory is {@code <base>/xmit-<pid>-<n>-<name>}, unique per {@code Rings} in this process; it is cleared
 * when the driver starts and removed on {@link #close()}. A process that dies without closing leaves it behind,
 * with its term buffers (hundreds of MiB of memory on a tmpfs): the next launch under the same base removes every
 * {@code xmit-<pid>-...} directory whose process is gone.
 * <p>
 * Close only after the pipeline's producers and consumers have stopped: closing unmaps the rings under them.
 */
public final class Rings implements AutoCloseable
{
    /** The channel every ring uses; term length and MTU come from {@link RingsConfig}. */
    public static final String CHANNEL = "aeron:ipc";

    private static final Logger LOG = LoggerFactory.getLogger(Rings.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final Pattern LEFT_BEHIND = Pattern.compile("xmit-(\\d{1,10})-\\d+-[A-Za-z0-9._-]{1,64}");

    /**
     * How stale the in-process driver's keepalive may be before the client gives up on it, in both contexts. The
     * driver runs in this JVM, so it is only ever that stale when the whole process was stopped (SIGSTOP, a long GC
     * pause, a suspended VM); with Aeron's 10 s, a process resumed after that exits with -1 through Aeron's default
     * error handler, before anything of xmit's (a cluster node's split-brain resolver, a stop's books) can run.
     */
    static final long DRIVER_TIMEOUT_MS = 60_000;

    /** Hands a ring handler's exception back to the caller of the poll instead of printing it. */
    private static final ErrorHandler RETHROW = throwable ->
    {
        if (throwable instanceof RuntimeException runtime)
        {
            throw runtime;
        }
        if (throwable instanceof Error error)
        {
            throw error;
        }
        throw new IllegalStateException(throwable);
    };

    private final String name;
    private final RingsConfig config;
    private final Path directory;
    private final MediaDriver driver;
    private final Aeron aeron;
    private boolean closed;

    private Rings(
        final String name, final RingsConfig config, final Path directory, final MediaDriver driver, final Aeron aeron)
    {
        this.name = name;
        this.config = config;
        this.directory = directory;
        this.driver = driver;
        this.aeron = aeron;
    }

    /** Starts the rings of the pipeline {@code name} with {@link RingsConfig#defaults()}. */
    public static Rings launch(final String name)
    {
        return launch(name, RingsConfig.defaults());
    }

    /**
     * Starts a media driver in a new directory under {@link RingsConfig#directoryBase()} and connects a client.
     *
     * @param name the pipeline's name: letters, digits, '.', '_' and '-', so that the directory says whose it is.
     * @throws IllegalArgumentException if the name is not usable in a directory name.
     * @throws IllegalStateException    if the directory base is missing or not writable, or the driver or client
     *                                  cannot start; nothing is left behind.
     */
    public static Rings launch(final String name, final RingsConfig config)
    {
        return launch(name, config, context -> { });
    }

    /**
     * {@link #launch(String, RingsConfig)} with driver settings beyond {@link RingsConfig}'s, applied last (for
     * {@link NetworkRings}: its receive hook).
     */
    static Rings launch(final String name, final RingsConfig config, final Consumer<MediaDriver.Context> driverSettings)
    {
        if (null == name || !name.matches("[A-Za-z0-9._-]{1,64}"))
        {
            throw new IllegalArgumentException("rings name must be 1 to 64 letters, digits, '.', '_' or '-', was " +
                (null == name ? "null" : "'" + name + "'"));
        }
        if (null == config)
        {
            throw new IllegalArgumentException("config must not be null");
        }
        final Path base = config.directoryBase();
        if (!Files.isDirectory(base) || !Files.isWritable(base))
        {
            throw new IllegalStateException(
                "xmit rings '" + name + "': the Aeron directory base " + base + " is missing or not a writable " +
                "directory; Aeron IPC needs a memory-backed file system such as /dev/shm (RingsConfig.directoryBase)");
        }

        removeDirectoriesOfDeadProcesses(base);
        final Path directory = base.resolve(
            "xmit-" + ProcessHandle.current().pid() + "-" + INSTANCES.incrementAndGet() + "-" + name);
        final MediaDriver driver;
        try
        {
            final MediaDriver.Context context = driverContext(config, directory);
            driverSettings.accept(context);
            driver = MediaDriver.launch(context);
        }
        catch (final RuntimeException ex)
        {
            deleteDirectory(directory);
            throw new IllegalStateException(
                "xmit rings '" + name + "': the Aeron media driver could not start in " + directory + ": " + ex, ex);
        }

        final Aeron aeron;
        try
        {
            aeron = Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(driver.aeronDirectoryName())
                .clientName("xmit-" + name)
                .driverTimeoutMs(DRIVER_TIMEOUT_MS)
                .awaitingIdleStrategy(new BackoffIdleStrategy())
                .subscriberErrorHandler(RETHROW));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(driver);
            deleteDirectory(directory);
            throw new IllegalStateException(
                "xmit rings '" + name + "': the Aeron client could not connect to the driver in " + directory + ": " +
                ex, ex);
        }
        return new Rings(name, config, directory, driver, aeron);
    }

    /**
     * Adds a producers' handle on ring {@code streamId}: thread-safe, shared by all its producers, ringing
     * {@code doorbell} (the ring consumer's) after every commit.
     */
    public PacketPublication addPublication(final int streamId, final RingDoorbell doorbell)
    {
        return addPublication(streamId, doorbell, config.ipcTermLength());
    }

    /**
     * {@link #addPublication(int, RingDoorbell)} for a ring with its own term length (so small rings, such as a
     * socket's, do not take the default's shared memory). Every publication of one ring must ask for the same length.
     *
     * @throws IllegalArgumentException if {@code termLength} is not a power of two in
     *                                  {@link RingsConfig#MIN_IPC_TERM_LENGTH}..
     *                                  {@link RingsConfig#MAX_IPC_TERM_LENGTH},
     *                                  or too short for the longest frame.
     */
    public PacketPublication addPublication(final int streamId, final RingDoorbell doorbell, final int termLength)
    {
        if (null == doorbell)
        {
            throw new IllegalArgumentException("doorbell must not be null");
        }
        RingsConfig.checkTermLength(termLength, config.maxFrameLength());
        checkOpen();
        return new PacketPublication(aeron.addPublication(CHANNEL + "?term-length=" + termLength, streamId),
            doorbell, streamId, config.maxFrameLength());
    }

    /**
     * Adds the consumer's handle on ring {@code streamId}. The doorbell is rung when a publication's image becomes
     * available, so that frames sent before the consumer could see them are not stranded.
     */
    public PacketSubscription addSubscription(final int streamId, final RingDoorbell doorbell)
    {
        if (null == doorbell)
        {
            throw new IllegalArgumentException("doorbell must not be null");
        }
        checkOpen();
        return new PacketSubscription(
            aeron.addSubscription(CHANNEL, streamId, image -> doorbell.ring(), image -> { }),
            streamId,
            config.ipcMtuLength());
    }

    /** The pipeline name these rings were launched for. */
    public String name()
    {
        return name;
    }

    public RingsConfig config()
    {
        return config;
    }

    /** The Aeron directory of the embedded driver. */
    public Path directory()
    {
        return directory;
    }

    /**
     * The Aeron client, for diagnostics and for benchmarks that compare against plain Aeron IPC. Publications
     * added on it directly are not xmit rings: they carry no xmit header and ring no doorbell.
     */
    public Aeron aeron()
    {
        return aeron;
    }

    public synchronized boolean isClosed()
    {
        return closed;
    }

    /**
     * Closes every publication and subscription, the client and the driver, and removes the directory. Idempotent.
     */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        try
        {
            CloseHelper.closeAll(aeron, driver);
        }
        finally
        {
            deleteDirectory(directory);
        }
    }

    @Override
    public String toString()
    {
        return "Rings{name=" + name + ", directory=" + directory + ", threadingMode=" + config.threadingMode() +
            ", ipcTermLength=" + config.ipcTermLength() + "}";
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("xmit rings '" + name + "' are closed");
        }
    }

    private static MediaDriver.Context driverContext(final RingsConfig config, final Path directory)
    {
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(directory.toString())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .warnIfDirectoryExists(false)
            .driverTimeoutMs(DRIVER_TIMEOUT_MS)
            .threadingMode(config.threadingMode())
            .ipcTermBufferLength(config.ipcTermLength())
            .ipcMtuLength(config.ipcMtuLength());
        final ThreadingMode mode = config.threadingMode();
        if (ThreadingMode.SHARED == mode)
        {
            context.sharedIdleStrategy(config.idleStrategy().get());
        }
        else
        {
            context.conductorIdleStrategy(config.idleStrategy().get());
            if (ThreadingMode.SHARED_NETWORK == mode)
            {
                context.sharedNetworkIdleStrategy(config.idleStrategy().get());
            }
            else
            {
                context.senderIdleStrategy(config.idleStrategy().get());
                context.receiverIdleStrategy(config.idleStrategy().get());
            }
        }
        return context;
    }

    /** Removes {@code xmit-<pid>-<n>-<name>} directories left under {@code base} by processes no longer running. */
    static void removeDirectoriesOfDeadProcesses(final Path base)
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base, "xmit-*"))
        {
            for (final Path entry : entries)
            {
                final Matcher matcher = LEFT_BEHIND.matcher(entry.getFileName().toString());
                if (matcher.matches() && Files.isDirectory(entry) &&
                    ProcessHandle.of(Long.parseLong(matcher.group(1))).isEmpty())
                {
                    LOG.info("removing Aeron directory {}: process {} that left it is gone", entry, matcher.group(1));
                    deleteDirectory(entry);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // Only housekeeping: a directory that cannot be listed or removed does not stop a launch.
            LOG.warn("could not remove Aeron directories left under {} by processes that are gone: {}", base,
                ex.toString());
        }
    }

    private static void deleteDirectory(final Path directory)
    {
        final File file = directory.toFile();
        if (file.exists())
        {
            IoUtil.delete(file, false);
        }
    }
}
