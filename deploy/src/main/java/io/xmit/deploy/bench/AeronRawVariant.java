package io.xmit.deploy.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.QueueStats;
import io.xmit.transport.nic.TxCompletion;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

/**
 * The ceiling: the same two producers and consumers as xmit's CPUs, on bare Aeron IPC with no pipeline logic. Per
 * thread (one per TX queue, as xmit's sender and qdisc share a CPU): claim up to {@link #BURST} 64-byte frames in
 * its own IPC stream and write them in place, poll up to {@link #BURST} back, hand them to {@code tx_burst} as
 * descriptors pointing into the term buffer, and reclaim the completions. No xmit header, no queue selection, no
 * qdisc, no BQL, no actors; nothing allocated per packet.
 */
public final class AeronRawVariant implements TxVariant
{
    public static final String NAME = "aeron-raw";
    public static final int THREADS = 2;
    public static final int BURST = 64;

    private static final String DEVICE_SPEC = "null:tx=" + THREADS + ",rx=1,ring=1024";
    private static final int TERM_LENGTH = 1 << 23;
    private static final int FIRST_STREAM = 1001;
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long JOIN_MILLIS = 10_000;
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final long packetsPerThread;
    private final AtomicLong[] completed = new AtomicLong[THREADS];
    private final Thread[] threads = new Thread[THREADS];
    private volatile boolean running;
    private Rings rings;
    private NicDevice device;
    private boolean closed;

    /** Sends until closed. */
    public AeronRawVariant()
    {
        this(Long.MAX_VALUE);
    }

    /** @param packetsPerThread each thread stops once this many of its packets completed. */
    public AeronRawVariant(final long packetsPerThread)
    {
        if (packetsPerThread < 1)
        {
            throw new IllegalArgumentException("packetsPerThread " + packetsPerThread + " is not >= 1");
        }
        this.packetsPerThread = packetsPerThread;
        for (int queue = 0; queue < THREADS; queue++)
        {
            completed[queue] = new AtomicLong();
        }
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public void start()
    {
        if (null != device)
        {
            throw new IllegalStateException(NAME + " was already started");
        }
        rings = Rings.launch("bench-" + NAME + "-" + INSTANCES.incrementAndGet(),
            RingsConfig.defaults().withIpcTermLength(TERM_LENGTH));
        try
        {
            device = NicDevice.open(DEVICE_SPEC);
            final NicDriver driver = device.port(0);
            final ExclusivePublication[] publications = new ExclusivePublication[THREADS];
            final Subscription[] subscriptions = new Subscription[THREADS];
            for (int queue = 0; queue < THREADS; queue++)
            {
                subscriptions[queue] = rings.aeron().addSubscription(Rings.CHANNEL, FIRST_STREAM + queue);
                publications[queue] = rings.aeron().addExclusivePublication(Rings.CHANNEL, FIRST_STREAM + queue);
            }
            awaitConnected(publications, subscriptions);
            running = true;
            for (int queue = 0; queue < THREADS; queue++)
            {
                final int q = queue;
                threads[queue] = Thread.ofPlatform().name(NAME + "-" + queue)
                    .start(() -> transmit(driver, q, publications[q], subscriptions[q]));
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private static void awaitConnected(final ExclusivePublication[] publications, final Subscription[] subscriptions)
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        for (int queue = 0; queue < THREADS; queue++)
        {
            while (!publications[queue].isConnected() || !subscriptions[queue].isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException(NAME + ": stream " + queue + " did not connect within 10 s");
                }
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public Result runFor(final long nanos)
    {
        final long[] ids = new long[THREADS];
        for (int queue = 0; queue < THREADS; queue++)
        {
            ids[queue] = threads[queue].threadId();
        }
        return WindowMeter.measure(this::delivered, ids, nanos);
    }

    /** The driver's counters for TX queue {@code queue}; only while running. */
    public QueueStats driverStats(final int queue)
    {
        return device.port(0).stats(queue);
    }

    @Override
    public long delivered()
    {
        long total = 0;
        for (final AtomicLong count : completed)
        {
            total += count.get();
        }
        return total;
    }

    /**
     * Stops the threads and waits up to 10 s for each; only then closes the device and the rings.
     *
     * @throws IllegalStateException if a thread did not stop in time; the device and rings are left open.
     */
    @Override
    public void close()
    {
        if (closed || null == rings)
        {
            return;
        }
        running = false;
        for (final Thread thread : threads)
        {
            if (null != thread)
            {
                join(thread);
            }
        }
        closed = true;
        if (null != device)
        {
            device.close();
        }
        rings.close();
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(JOIN_MILLIS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(NAME + ": interrupted while stopping " + thread.getName(), ex);
        }
        if (thread.isAlive())
        {
            throw new IllegalStateException(thread.getName() + " did not stop within " + JOIN_MILLIS +
                " ms; its NIC device stays open");
        }
    }

    /**
     * The null device completes a burst at once and the thread reclaims after each, so its 1024-descriptor ring
     * always has room for a burst of 64: every polled frame is accepted.
     */
    private void transmit(
        final NicDriver driver,
        final int queue,
        final ExclusivePublication publication,
        final Subscription subscription)
    {
        final BenchFrames frames = new BenchFrames(queue);
        final BufferClaim claim = new BufferClaim();
        final DescriptorBatch batch = new DescriptorBatch(BURST);
        final TxCompletion completion = new TxCompletion();
        final FragmentHandler toBatch = (buffer, offset, length, header) ->
            batch.addExternal(buffer.addressOffset() + offset, length, 0);
        final AtomicLong count = completed[queue];
        long produced = 0;
        while (running && count.get() < packetsPerThread)
        {
            final long burstEnd = Math.min(packetsPerThread, produced + BURST);
            while (produced < burstEnd && publication.tryClaim(BenchFrames.FRAME_LENGTH, claim) > 0)
            {
                frames.write(claim.buffer(), claim.offset());
                claim.commit();
                produced++;
            }
            batch.clear();
            subscription.poll(toBatch, BURST);
            if (!batch.isEmpty())
            {
                driver.txBurst(queue, batch);
            }
            if (0 == driver.txReclaim(queue, completion))
            {
                count.setRelease(count.get() + completion.packets());
            }
        }
    }
}
