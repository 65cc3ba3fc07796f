package io.xmit.transport.ring;

import io.aeron.protocol.DataHeaderFlyweight;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.BitUtil;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The settings of the rings between nodes ({@link NetworkRings}): Aeron UDP streams that carry xmit frames. Checked
 * when built, and against the frames and the host when the rings launch; a bad value fails at once with one message
 * naming the setting, the value and what is allowed.
 *
 * @param mtuLength            the largest datagram a publication sends: a multiple of 32 up to 65504. A frame is never
 *                             fragmented, so the longest frame with Aeron's and xmit's headers must fit in one (9280
 *                             for 9216-byte frames, 1600 for 1514); shorter frames are batched up to it.
 * @param termLength           each publication's term: a power of two from 64 KiB to 1 GiB, at least 8 MTUs. A
 *                             stream takes three terms at the sender and three at the receiver.
 * @param receiverWindowLength how far a publication may run ahead of its subscriber (the flow-control window the
 *                             receiver advertises): from one MTU to half a term, and within the socket receive
 *                             buffer.
 * @param socketRcvbufLength   {@code SO_RCVBUF} of the receiving sockets: at least the receiver window (Aeron refuses
 *                             a window larger than the buffer) and at most the host's {@code net.core.rmem_max}
 *                             (Linux cuts a larger request silently).
 * @param socketSndbufLength   {@code SO_SNDBUF} of the sending sockets: 0 for the system's default, else at least one
 *                             MTU and at most {@code net.core.wmem_max}.
 */
public record DataPlaneConfig(
    int mtuLength,
    int termLength,
    int receiverWindowLength,
    int socketRcvbufLength,
    int socketSndbufLength)
{
    public static final int MAX_MTU_LENGTH = 65504;
    public static final int MIN_TERM_LENGTH = 64 * 1024;
    public static final int MAX_TERM_LENGTH = 1024 * 1024 * 1024;
    /** Where Linux publishes the largest {@code SO_RCVBUF} and {@code SO_SNDBUF} a process may ask for. */
    static final Path RMEM_MAX = Path.of("/proc/sys/net/core/rmem_max");
    static final Path WMEM_MAX = Path.of("/proc/sys/net/core/wmem_max");

    private static final int FRAME_ALIGNMENT = 32;
    /** What a datagram carries besides one frame: Aeron's data header and the xmit header. */
    private static final int HEADERS_LENGTH = DataHeaderFlyweight.HEADER_LENGTH + RingFrameHeader.HEADER_LENGTH;

    public DataPlaneConfig
    {
        if (mtuLength <= 0 || mtuLength > MAX_MTU_LENGTH || mtuLength % FRAME_ALIGNMENT != 0)
        {
            throw new IllegalArgumentException(
                "mtuLength must be a multiple of " + FRAME_ALIGNMENT + " up to " + MAX_MTU_LENGTH + ", was " +
                mtuLength);
        }
        if (termLength < MIN_TERM_LENGTH || termLength > MAX_TERM_LENGTH || !BitUtil.isPowerOfTwo(termLength))
        {
            throw new IllegalArgumentException(
                "termLength must be a power of two from " + MIN_TERM_LENGTH + " (64 KiB) to " + MAX_TERM_LENGTH +
                " (1 GiB), was " + termLength);
        }
        if (mtuLength > termLength / 8)
        {
            throw new IllegalArgumentException(
                "mtuLength " + mtuLength + " is more than one eighth of termLength " + termLength + " (Aeron's " +
                "largest unfragmented message); use a termLength of at least " +
                BitUtil.findNextPositivePowerOfTwo(mtuLength * 8));
        }
        if (receiverWindowLength < mtuLength || receiverWindowLength > termLength / 2)
        {
            throw new IllegalArgumentException(
                "receiverWindowLength must be from mtuLength " + mtuLength + " to half of termLength " + termLength +
                " (" + termLength / 2 + "), was " + receiverWindowLength);
        }
        if (socketRcvbufLength < receiverWindowLength)
        {
            throw new IllegalArgumentException(
                "receiverWindowLength " + receiverWindowLength + " is above socketRcvbufLength " + socketRcvbufLength +
                ": Aeron refuses a receiver window larger than the socket's receive buffer; raise " +
                "socketRcvbufLength or lower receiverWindowLength");
        }
        if (socketSndbufLength != 0 && socketSndbufLength < mtuLength)
        {
            throw new IllegalArgumentException(
                "socketSndbufLength must be 0 (the system's default) or at least mtuLength " + mtuLength + ", was " +
                socketSndbufLength);
        }
    }

    /**
     * Datagrams that fit {@code rings}' longest frame, 1 MiB terms, Aeron's default window and receive buffer
     * (128 KiB, within a stock Linux {@code net.core.rmem_max}) and the system's send buffer.
     */
    public static DataPlaneConfig forFrames(final RingsConfig rings)
    {
        return new DataPlaneConfig(rings.ipcMtuLength(), 1024 * 1024, 128 * 1024, 128 * 1024, 0);
    }

    public DataPlaneConfig withMtuLength(final int mtuLength)
    {
        return new DataPlaneConfig(mtuLength, termLength, receiverWindowLength, socketRcvbufLength, socketSndbufLength);
    }

    public DataPlaneConfig withTermLength(final int termLength)
    {
        return new DataPlaneConfig(mtuLength, termLength, receiverWindowLength, socketRcvbufLength, socketSndbufLength);
    }

    public DataPlaneConfig withReceiverWindowLength(final int receiverWindowLength)
    {
        return new DataPlaneConfig(mtuLength, termLength, receiverWindowLength, socketRcvbufLength, socketSndbufLength);
    }

    public DataPlaneConfig withSocketRcvbufLength(final int socketRcvbufLength)
    {
        return new DataPlaneConfig(mtuLength, termLength, receiverWindowLength, socketRcvbufLength, socketSndbufLength);
    }

    public DataPlaneConfig withSocketSndbufLength(final int socketSndbufLength)
    {
        return new DataPlaneConfig(mtuLength, termLength, receiverWindowLength, socketRcvbufLength, socketSndbufLength);
    }

    /**
     * The longest frame of {@code rings}, with Aeron's and xmit's headers, must fit in one datagram.
     *
     * @throws IllegalArgumentException naming the MTU, the frame length and what would fit.
     */
    public void checkFrames(final RingsConfig rings)
    {
        final int needed = rings.ipcMtuLength();
        if (mtuLength < needed)
        {
            throw new IllegalArgumentException(
                "mtuLength " + mtuLength + " is too small for maxFrameLength " + rings.maxFrameLength() + ": the " +
                "frame with its headers needs " + needed + " bytes in one datagram (xmit never fragments a frame); " +
                "use an mtuLength of at least " + needed + " or frames of at most " + (mtuLength - HEADERS_LENGTH) +
                " bytes");
        }
    }

    /**
     * The socket buffers must be within what this host allows a process, or Linux would cut them silently and the
     * receiver window would no longer fit.
     *
     * @param rmemMax the host's {@code net.core.rmem_max}, or a negative value if unknown (then unchecked).
     * @param wmemMax the host's {@code net.core.wmem_max}, or a negative value if unknown (then unchecked).
     * @throws IllegalArgumentException naming the setting, the sysctl and both values.
     */
    public void checkHost(final long rmemMax, final long wmemMax)
    {
        checkBuffer("socketRcvbufLength", socketRcvbufLength, "net.core.rmem_max", rmemMax);
        checkBuffer("socketSndbufLength", socketSndbufLength, "net.core.wmem_max", wmemMax);
    }

    /** {@link #checkHost(long, long)} with this host's limits, read from {@code /proc} (unchecked where unreadable). */
    public void checkHost()
    {
        checkHost(readSysctl(RMEM_MAX), readSysctl(WMEM_MAX));
    }

    private static void checkBuffer(final String setting, final int value, final String sysctl, final long max)
    {
        if (max >= 0 && value > max)
        {
            throw new IllegalArgumentException(
                setting + " " + value + " is above this host's " + sysctl + " " + max + ", and Linux would cut it " +
                "silently; lower " + setting + " or raise the limit (sysctl -w " + sysctl + "=" + value + ")");
        }
    }

    private static long readSysctl(final Path path)
    {
        // Line by line: Files.readString takes the file's size (0 for /proc files) as a hint, and was seen here
        // returning only the first digit.
        try (BufferedReader reader = Files.newBufferedReader(path))
        {
            final String line = reader.readLine();
            return null == line ? -1 : Long.parseLong(line.trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }
}
