package io.xmit.tests.bench;

import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.ring.PacketBlockHandler;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Frames through one ring, producers and a consumer on their own threads, beside plain Aeron IPC on the same kind
 * of embedded driver (default {@code RingsConfig}: SHARED, backoff idle, 64 MiB terms) with the same 64-byte
 * Ethernet frame. The ring adds the 32-byte xmit header, the doorbell check (a full fence and a read) after each
 * commit and, for {@code send}, a thread-local claim; the raw side is {@code tryClaim}, a copy and {@code commit}.
 * <p>
 * Read the {@code frames} counter of each group: frames the consumer received per second. The groups' primary
 * scores count calls, failed sends and empty polls included. Groups:
 * <ul>
 *   <li>{@code ring1}, {@code ring2}: 1 or 2 producers calling {@code send}, the consumer calling {@code poll};</li>
 *   <li>{@code ringClaim2}: 2 producers writing in place through their own {@link PacketClaim};</li>
 *   <li>{@code ringBlock2}: 2 producers, the consumer calling {@code blockPoll} and walking each block;</li>
 *   <li>{@code raw1}, {@code raw2}: plain Aeron, 64-byte payload (a 96-byte message);</li>
 *   <li>{@code rawWide1}, {@code rawWide2}: plain Aeron, 96-byte payload: the same 128-byte message as a ring
 *       frame, to tell the cost of the header's bytes from that of the ring's logic.</li>
 * </ul>
 * Every call is one attempt, so no thread ever waits for another: a producer facing a full ring returns and counts
 * it, and the group's threads stop together without a deadlock. On a small machine the numbers swing between runs
 * (stack.md, pitfall 5): compare groups over several forks, by their medians.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RingBenchmark
{
    private static final int FRAME_LENGTH = 64;
    /** The raw payload that makes the same 128-byte message as a ring frame: 64 bytes of frame, 32 of header. */
    private static final int WIDE_LENGTH = FRAME_LENGTH + RingFrameHeader.HEADER_LENGTH;
    private static final int FRAGMENT_LIMIT = 256;
    private static final int BLOCK_LIMIT = 64 * 1024;
    private static final int STREAM = 1;

    /** Frames moved per second, the figure to compare; failed sends show what back-pressure cost. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters
    {
        public long frames;
        public long backPressured;

        @Setup(Level.Iteration)
        public void reset()
        {
            frames = 0;
            backPressured = 0;
        }
    }

    /** A producer thread's frame and its own claims. */
    @State(Scope.Thread)
    public static class Producer
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[WIDE_LENGTH]);
        final BufferClaim rawClaim = new BufferClaim();
        PacketClaim claim;

        @Setup
        public void setUp()
        {
            for (int i = 0; i < WIDE_LENGTH; i++)
            {
                frame.putByte(i, (byte)i);
            }
        }
    }

    /**
     * The consumer thread's handlers and what they read, kept out of the group's shared state: a field the consumer
     * writes per frame next to one the producers read per send would be false sharing.
     */
    @State(Scope.Thread)
    public static class Consumer
    {
        long sink;
        long blockFrames;
        final PacketHandler handler = (header, buffer, offset, length) -> sink += header.socketId() + length;
        final PacketBlockHandler blockHandler = block ->
        {
            while (block.next())
            {
                sink += block.header().socketId() + block.frameLength();
                blockFrames++;
            }
        };
        final FragmentHandler rawHandler = (buffer, offset, length, header) -> sink += buffer.getInt(offset) + length;
    }

    /** One xmit ring on its own rings, shared by the group's threads; read-only once set up. */
    @State(Scope.Group)
    public static class Ring
    {
        Rings rings;
        PacketPublication publication;
        PacketSubscription subscription;

        @Setup(Level.Trial)
        public void setUp()
        {
            rings = Rings.launch("bench-ring");
            // A consumer that polls flat out never idles: the doorbell stays scheduled, each commit pays the check.
            final RingDoorbell doorbell = new RingDoorbell(() -> { });
            subscription = rings.addSubscription(STREAM, doorbell);
            publication = rings.addPublication(STREAM, doorbell);
            awaitConnected(() -> publication.isConnected() && subscription.isConnected() &&
                publication.availableWindow() > 0);
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            rings.close();
        }
    }

    /** Plain Aeron IPC on the same kind of driver: a publication and a subscription; read-only once set up. */
    @State(Scope.Group)
    public static class Raw
    {
        Rings rings;
        Publication publication;
        Subscription subscription;

        @Setup(Level.Trial)
        public void setUp()
        {
            rings = Rings.launch("bench-raw");
            subscription = rings.aeron().addSubscription(Rings.CHANNEL, STREAM);
            publication = rings.aeron().addPublication(Rings.CHANNEL, STREAM);
            awaitConnected(() -> publication.isConnected() && subscription.isConnected() &&
                publication.availableWindow() > 0);
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            rings.close();
        }
    }

    @Benchmark
    @Group("ring1")
    @GroupThreads(1)
    public long ring1Send(final Ring ring, final Producer producer, final Counters counters)
    {
        return send(ring, producer, counters);
    }

    @Benchmark
    @Group("ring1")
    @GroupThreads(1)
    public int ring1Poll(final Ring ring, final Consumer consumer, final Counters counters)
    {
        return poll(ring, consumer, counters);
    }

    @Benchmark
    @Group("ring2")
    @GroupThreads(2)
    public long ring2Send(final Ring ring, final Producer producer, final Counters counters)
    {
        return send(ring, producer, counters);
    }

    @Benchmark
    @Group("ring2")
    @GroupThreads(1)
    public int ring2Poll(final Ring ring, final Consumer consumer, final Counters counters)
    {
        return poll(ring, consumer, counters);
    }

    @Benchmark
    @Group("ringClaim2")
    @GroupThreads(2)
    public long ringClaim2Claim(final Ring ring, final Producer producer, final Counters counters)
    {
        if (null == producer.claim)
        {
            producer.claim = ring.publication.newClaim();
        }
        final PacketClaim claim = producer.claim;
        final long result = ring.publication.tryClaim(FRAME_LENGTH, claim);
        if (result > 0)
        {
            claim.putHeader(0x1234_5678, 7, 0, RingFrameHeader.NO_RX_QUEUE, 0, RingFrameHeader.NO_TRACE_ID, 0);
            claim.buffer().putBytes(claim.frameOffset(), producer.frame, 0, FRAME_LENGTH);
            claim.commit();
        }
        else
        {
            counters.backPressured++;
        }
        return result;
    }

    @Benchmark
    @Group("ringClaim2")
    @GroupThreads(1)
    public int ringClaim2Poll(final Ring ring, final Consumer consumer, final Counters counters)
    {
        return poll(ring, consumer, counters);
    }

    @Benchmark
    @Group("ringBlock2")
    @GroupThreads(2)
    public long ringBlock2Send(final Ring ring, final Producer producer, final Counters counters)
    {
        return send(ring, producer, counters);
    }

    @Benchmark
    @Group("ringBlock2")
    @GroupThreads(1)
    public long ringBlock2BlockPoll(final Ring ring, final Consumer consumer, final Counters counters)
    {
        final long before = consumer.blockFrames;
        final long bytes = ring.subscription.blockPoll(consumer.blockHandler, BLOCK_LIMIT);
        counters.frames += consumer.blockFrames - before;
        return bytes;
    }

    @Benchmark
    @Group("raw1")
    @GroupThreads(1)
    public long raw1Claim(final Raw raw, final Producer producer, final Counters counters)
    {
        return rawClaim(raw, producer, counters, FRAME_LENGTH);
    }

    @Benchmark
    @Group("raw1")
    @GroupThreads(1)
    public int raw1Poll(final Raw raw, final Consumer consumer, final Counters counters)
    {
        return rawPoll(raw, consumer, counters);
    }

    @Benchmark
    @Group("raw2")
    @GroupThreads(2)
    public long raw2Claim(final Raw raw, final Producer producer, final Counters counters)
    {
        return rawClaim(raw, producer, counters, FRAME_LENGTH);
    }

    @Benchmark
    @Group("raw2")
    @GroupThreads(1)
    public int raw2Poll(final Raw raw, final Consumer consumer, final Counters counters)
    {
        return rawPoll(raw, consumer, counters);
    }

    @Benchmark
    @Group("rawWide1")
    @GroupThreads(1)
    public long rawWide1Claim(final Raw raw, final Producer producer, final Counters counters)
    {
        return rawClaim(raw, producer, counters, WIDE_LENGTH);
    }

    @Benchmark
    @Group("rawWide1")
    @GroupThreads(1)
    public int rawWide1Poll(final Raw raw, final Consumer consumer, final Counters counters)
    {
        return rawPoll(raw, consumer, counters);
    }

    @Benchmark
    @Group("rawWide2")
    @GroupThreads(2)
    public long rawWide2Claim(final Raw raw, final Producer producer, final Counters counters)
    {
        return rawClaim(raw, producer, counters, WIDE_LENGTH);
    }

    @Benchmark
    @Group("rawWide2")
    @GroupThreads(1)
    public int rawWide2Poll(final Raw raw, final Consumer consumer, final Counters counters)
    {
        return rawPoll(raw, consumer, counters);
    }

    private static long send(final Ring ring, final Producer producer, final Counters counters)
    {
        final long result = ring.publication.send(0x1234_5678, 7, 0, RingFrameHeader.NO_RX_QUEUE, 0,
            RingFrameHeader.NO_TRACE_ID, 0, producer.frame, 0, FRAME_LENGTH);
        if (result < 0)
        {
            counters.backPressured++;
        }
        return result;
    }

    private static int poll(final Ring ring, final Consumer consumer, final Counters counters)
    {
        final int frames = ring.subscription.poll(consumer.handler, FRAGMENT_LIMIT);
        counters.frames += frames;
        return frames;
    }

    private static long rawClaim(final Raw raw, final Producer producer, final Counters counters, final int length)
    {
        final BufferClaim claim = producer.rawClaim;
        final long result = raw.publication.tryClaim(length, claim);
        if (result > 0)
        {
            claim.putBytes(producer.frame, 0, length);
            claim.commit();
        }
        else
        {
            counters.backPressured++;
        }
        return result;
    }

    private static int rawPoll(final Raw raw, final Consumer consumer, final Counters counters)
    {
        final int frames = raw.subscription.poll(consumer.rawHandler, FRAGMENT_LIMIT);
        counters.frames += frames;
        return frames;
    }

    private static void awaitConnected(final BooleanSupplier connected)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!connected.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("the benchmark ring did not connect within 10 s");
            }
            Thread.onSpinWait();
        }
    }
}
