package io.xmit.transport.ring;

import io.aeron.driver.ThreadingMode;
import io.aeron.protocol.DataHeaderFlyweight;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.BitUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * How {@link Rings} runs its embedded Aeron media driver. Validated when built: a bad value fails at once with a
 * message naming the setting, the value and what is allowed.
 *
 * @param threadingMode  the driver's threading mode: {@code SHARED} (default: one driver thread),
 *                       {@code SHARED_NETWORK} or {@code DEDICATED}. {@code INVOKER} is refused: it needs the
 *                       driver and the client conductor invoked from a pipeline duty cycle (stack.md, pitfalls 2 and
 *                       "Media driver threading"), which this class does not do.
 * @param idleStrategy   makes one idle strategy per driver agent thread (they keep state, so each needs its own).
 *                       Default {@link BackoffIdleStrategy} with Agrona's defaults.
 * @param ipcTermLength  the IPC term buffer length: a power of two from 64 KiB to 1 GiB. A ring's log is three terms
 *                       in the directory, and a publisher may run half a term ahead of its slowest subscriber.
 *                       Default 64 MiB: a driver that sleeps between duty cycles caps IPC throughput at about half a
 *                       term per sleep (stack.md, pitfall 3).
 * @param maxFrameLength the longest Ethernet frame a ring carries, from 60 bytes (the minimum frame without FCS).
 *                       Together with the Aeron and xmit headers it sets the IPC MTU, which must fit in one eighth of
 *                       a term (Aeron's limit for an unfragmented message). Default 9216 (jumbo frames).
 * @param directoryBase  where the per-pipeline Aeron directory is created: a tmpfs, default {@code /dev/shm}.
 */
public record RingsConfig(
    ThreadingMode threadingMode,
    Supplier<IdleStrategy> idleStrategy,
    int ipcTermLength,
    int maxFrameLength,
    Path directoryBase)
{
    public static final int MIN_IPC_TERM_LENGTH = 64 * 1024;
    public static final int MAX_IPC_TERM_LENGTH = 1024 * 1024 * 1024;
    public static final int DEFAULT_IPC_TERM_LENGTH = 64 * 1024 * 1024;
    public static final int MIN_FRAME_LENGTH = 60;
    public static final int DEFAULT_MAX_FRAME_LENGTH = 9216;
    public static final Path DEFAULT_DIRECTORY_BASE = Path.of("/dev/shm");

    /** Aeron's largest MTU (the largest UDP payload it sends), which also bounds IPC. */
    private static final int MAX_MTU_LENGTH = 65504;
    /** What a ring message carries besides the Ethernet frame: Aeron's data header and the xmit header. */
    private static final int HEADERS_LENGTH = DataHeaderFlyweight.HEADER_LENGTH + RingFrameHeader.HEADER_LENGTH;
    /** Aeron frame alignment: every message starts on a 32-byte boundary. */
    private static final int FRAME_ALIGNMENT = 32;

    public RingsConfig
    {
        if (null == threadingMode)
        {
            throw new IllegalArgumentException("threadingMode must not be null");
        }
        if (ThreadingMode.INVOKER == threadingMode)
        {
            throw new IllegalArgumentException(
                "threadingMode INVOKER is not supported by xmit rings: it only works if a duty cycle invokes both " +
                "the driver and the client conductor (stack.md, pitfall 2); use SHARED, SHARED_NETWORK or DEDICATED");
        }
        if (null == idleStrategy)
        {
            throw new IllegalArgumentException("idleStrategy must not be null");
        }
        if (maxFrameLength < MIN_FRAME_LENGTH || maxFrameLength > MAX_MTU_LENGTH - HEADERS_LENGTH)
        {
            throw new IllegalArgumentException(
                "maxFrameLength must be from " + MIN_FRAME_LENGTH + " to " + (MAX_MTU_LENGTH - HEADERS_LENGTH) +
                " bytes, was " + maxFrameLength);
        }
        checkTermLength(ipcTermLength, maxFrameLength);
        if (null == directoryBase)
        {
            throw new IllegalArgumentException("directoryBase must not be null");
        }
    }

    /**
     * A term length must be a power of two in {@link #MIN_IPC_TERM_LENGTH}..{@link #MAX_IPC_TERM_LENGTH} and hold
     * at least eight of the longest messages.
     *
     * @throws IllegalArgumentException naming the length and what is allowed.
     */
    static void checkTermLength(final int ipcTermLength, final int maxFrameLength)
    {
        if (ipcTermLength < MIN_IPC_TERM_LENGTH || ipcTermLength > MAX_IPC_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(ipcTermLength))
        {
            throw new IllegalArgumentException(
                "ipcTermLength must be a power of two from " + MIN_IPC_TERM_LENGTH + " (64 KiB) to " +
                MAX_IPC_TERM_LENGTH + " (1 GiB), was " + ipcTermLength);
        }
        final int mtu = mtuFor(maxFrameLength);
        if (mtu > ipcTermLength / 8)
        {
            throw new IllegalArgumentException(
                "maxFrameLength " + maxFrameLength + " needs an IPC MTU of " + mtu + " bytes, more than one eighth " +
                "of ipcTermLength " + ipcTermLength + "; use a longer term or a shorter maxFrameLength (at most " +
                (ipcTermLength / 8 - HEADERS_LENGTH) + ")");
        }
    }

    /** SHARED, a backoff idle strategy, 64 MiB terms, 9216-byte frames, under /dev/shm. */
    public static RingsConfig defaults()
    {
        return new RingsConfig(
            ThreadingMode.SHARED,
            BackoffIdleStrategy::new,
            DEFAULT_IPC_TERM_LENGTH,
            DEFAULT_MAX_FRAME_LENGTH,
            DEFAULT_DIRECTORY_BASE);
    }

    public RingsConfig withThreadingMode(final ThreadingMode threadingMode)
    {
        return new RingsConfig(threadingMode, idleStrategy, ipcTermLength, maxFrameLength, directoryBase);
    }

    public RingsConfig withIdleStrategy(final Supplier<IdleStrategy> idleStrategy)
    {
        return new RingsConfig(threadingMode, idleStrategy, ipcTermLength, maxFrameLength, directoryBase);
    }

    public RingsConfig withIpcTermLength(final int ipcTermLength)
    {
        return new RingsConfig(threadingMode, idleStrategy, ipcTermLength, maxFrameLength, directoryBase);
    }

    public RingsConfig withMaxFrameLength(final int maxFrameLength)
    {
        return new RingsConfig(threadingMode, idleStrategy, ipcTermLength, maxFrameLength, directoryBase);
    }

    public RingsConfig withDirectoryBase(final Path directoryBase)
    {
        return new RingsConfig(threadingMode, idleStrategy, ipcTermLength, maxFrameLength, directoryBase);
    }

    /** The IPC MTU the driver uses: the longest frame with both headers, rounded up to Aeron's frame alignment. */
    public int ipcMtuLength()
    {
        return mtuFor(maxFrameLength);
    }

    private static int mtuFor(final int maxFrameLength)
    {
        return BitUtil.align(maxFrameLength + HEADERS_LENGTH, FRAME_ALIGNMENT);
    }
}
