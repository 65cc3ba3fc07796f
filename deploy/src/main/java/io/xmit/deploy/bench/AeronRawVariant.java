package io.xmit.deploy.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDriver;
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
public final class AeronRawVariant extends ThreadPerQueueVariant
{
    public static final String NAME = "aeron-raw";
    public static final int BURST = 64;

    private static final int TERM_LENGTH = 1 << 23;
    private static final int FIRST_STREAM = 1001;
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final ExclusivePublication[] publications = new ExclusivePublication[THREADS];
    private final Subscription[] subscriptions = new Subscription[THREADS];
    private Rings rings;

    /** Sends until closed. */
    public AeronRawVariant()
    {
        this(Long.MAX_VALUE);
    }

    /** @param packetsPerThread each thread stops once this many of its packets completed. */
    public AeronRawVariant(final long packetsPerThread)
    {
        super(NAME, packetsPerThread);
    }

    /** One IPC stream per thread, connected before the threads start. */
    @Override
    protected void open()
    {
        rings = Rings.launch("bench-" + NAME + "-" + INSTANCES.incrementAndGet(),
            RingsConfig.defaults().withIpcTermLength(TERM_LENGTH));
        for (int queue = 0; queue < THREADS; queue++)
        {
            subscriptions[queue] = rings.aeron().addSubscription(Rings.CHANNEL, FIRST_STREAM + queue);
            publications[queue] = rings.aeron().addExclusivePublication(Rings.CHANNEL, FIRST_STREAM + queue);
        }
        awaitConnected();
    }

    @Override
    protected void release()
    {
        if (null != rings)
        {
            rings.close();
        }
    }

    private void awaitConnected()
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

    /**
     * The null device completes a burst at once and the thread reclaims after each, so its 1024-descriptor ring
     * always has room for a burst of 64: every polled frame is accepted.
     */
    @Override
    protected void transmit(final NicDriver driver, final int queue, final AtomicLong count)
    {
        final ExclusivePublication publication = publications[queue];
        final Subscription subscription = subscriptions[queue];
        final BenchFrames frames = new BenchFrames(queue);
        final BufferClaim claim = new BufferClaim();
        final DescriptorBatch batch = new DescriptorBatch(BURST);
        final TxCompletion completion = new TxCompletion();
        final FragmentHandler toBatch = (buffer, offset, length, header) ->
            batch.addExternal(buffer.addressOffset() + offset, length, 0);
        long produced = 0;
        while (isRunning() && count.get() < packetsPerThread)
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
