package io.xmit.deploy.bench;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.DirectBuffer;

/**
 * The open-loop load of a {@code cluster} bench variant: one thread offers requests at a fixed rate, round-robin over
 * the flows, each carrying its send time in its first 8 bytes; whoever receives a reply hands it to
 * {@link #replied}, which records its RTT. {@link RequestPacer} paces it, as it does {@code xmit run}'s; a send refused
 * with back-pressure is retried and counted.
 * Nothing here allocates per request.
 */
final class PacedLoad
{
    private final int payloadLength;
    private final DataPathThreads threads;
    /**
     * RTTs above this are recorded as this. A range fixed up front: an auto-resizing recorder grows its counts on
     * the thread that records a value larger than any before, which after each window's swap is the replies' thread.
     */
    static final long HIGHEST_RTT = TimeUnit.MINUTES.toNanos(1);

    private final Recorder rtt = new Recorder(1, HIGHEST_RTT, 3);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private volatile boolean running;
    private volatile boolean stopped;
    /** Nanoseconds between two requests; {@link #rate} changes it while the load runs. */
    private volatile long interval;
    private Thread pacer;
    private long windowReplies;
    private long windowStart;

    /** @param payloadLength bytes per request, at least 8 (the send time). */
    PacedLoad(final int payloadLength, final DataPathThreads threads)
    {
        if (payloadLength < Long.BYTES)
        {
            throw new IllegalArgumentException("payload length " + payloadLength + " is not >= 8");
        }
        this.payloadLength = payloadLength;
        this.threads = threads;
    }

    /** Starts offering {@code rate} requests per second over {@code flows} flows. */
    void start(final long rate, final int flows, final RequestPacer.Attempt sender)
    {
        if (rate < 1 || flows < 1)
        {
            throw new IllegalArgumentException("rate " + rate + " and flows " + flows + " must be >= 1");
        }
        if (null != pacer)
        {
            throw new IllegalStateException("the load has started already");
        }
        interval = TimeUnit.SECONDS.toNanos(1) / rate;
        running = true;
        pacer = new Thread(() -> offer(flows, sender), "xmit-bench-pacer");
        pacer.setDaemon(true);
        pacer.start();
    }

    /** From the next request on, offers {@code rate} requests per second. */
    void rate(final long rate)
    {
        if (rate < 1)
        {
            throw new IllegalArgumentException("rate " + rate + " must be >= 1");
        }
        interval = TimeUnit.SECONDS.toNanos(1) / rate;
    }

    private void offer(final int flows, final RequestPacer.Attempt sender)
    {
        threads.enter();
        RequestPacer.pace(payloadLength, flows, () -> interval, () -> running, (flow, payload, length) ->
        {
            final int outcome = sender.send(flow, payload, length);
            if (RequestPacer.NEXT == outcome)
            {
                sent.incrementAndGet();
            }
            else if (RequestPacer.RETRY == outcome)
            {
                backPressured.incrementAndGet();
            }
            else
            {
                stopped = true;
            }
            return outcome;
        });
    }

    /** A reply whose payload starts at {@code offset} of {@code buffer}: its RTT recorded, counted. */
    void replied(final DirectBuffer buffer, final int offset)
    {
        rtt.recordValue(Math.min(HIGHEST_RTT, Math.max(1, System.nanoTime() - buffer.getLong(offset))));
        replies.incrementAndGet();
    }

    /** Opens the measured window: the RTTs so far dropped. */
    void window()
    {
        rtt.reset();
        windowReplies = replies.get();
        windowStart = System.nanoTime();
    }

    /**
     * Closes the window: {@code replies nanos histogram}, the histogram HdrHistogram's compressed encoding in Base64
     * (see {@link #histogram(String)}).
     */
    String windowEnd()
    {
        final Histogram window = rtt.getIntervalHistogram();
        final long nanos = System.nanoTime() - windowStart;
        final ByteBuffer encoded = ByteBuffer.allocate(window.getNeededByteBufferCapacity());
        final int length = window.encodeIntoCompressedByteBuffer(encoded);
        final byte[] bytes = new byte[length];
        encoded.flip().get(bytes);
        return (replies.get() - windowReplies) + " " + nanos + " " + Base64.getEncoder().encodeToString(bytes);
    }

    /** The histogram of a {@link #windowEnd()} line's third field. */
    static Histogram histogram(final String base64)
    {
        try
        {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        }
        catch (final java.util.zip.DataFormatException | IllegalArgumentException ex)
        {
            throw new IllegalStateException("not an encoded histogram: " + base64, ex);
        }
    }

    /**
     * Stops offering and waits up to {@code timeoutNanos} for the replies to the requests sent: {@code sent replies
     * backPressured}, replies below sent if some never came.
     */
    String stop(final long timeoutNanos) throws InterruptedException
    {
        running = false;
        if (null != pacer)
        {
            pacer.join(TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        while (replies.get() < sent.get() && System.nanoTime() < deadline)
        {
            TimeUnit.MILLISECONDS.sleep(1);
        }
        return sent.get() + " " + replies.get() + " " + backPressured.get() + (stopped ? " refused" : "");
    }

    /** Replies received so far. */
    long replies()
    {
        return replies.get();
    }
}
