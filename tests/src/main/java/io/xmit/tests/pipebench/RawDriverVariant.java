package io.xmit.tests.pipebench;

import java.util.concurrent.atomic.AtomicLong;

import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.QueueStats;
import io.xmit.transport.nic.TxCompletion;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ceiling below any pipeline: two plain threads, each writing {@link #BURST} frames into a preallocated
 * off-heap block, handing them to its own TX queue in one {@code tx_burst} and reclaiming the completions. No
 * actors, no rings, no qdisc, nothing allocated per packet.
 */
public final class RawDriverVariant implements PipelineVariant
{
    public static final String NAME = "driver-raw";
    public static final int THREADS = 2;
    public static final int BURST = 64;

    private static final String DEVICE_SPEC = "null:tx=" + THREADS + ",rx=1,ring=1024";
    private static final int FRAME_STRIDE = 128;
    private static final int ALIGNMENT = 64;
    private static final long JOIN_MILLIS = 10_000;

    private final long packetsPerQueue;
    private final AtomicLong[] completed = new AtomicLong[THREADS];
    private final Thread[] threads = new Thread[THREADS];
    private final QueueStats[] closingStats = new QueueStats[THREADS];
    private volatile boolean running;
    private NicDevice device;
    private boolean closed;

    /** Sends until closed. */
    public RawDriverVariant()
    {
        this(Long.MAX_VALUE);
    }

    /** @param packetsPerQueue each thread stops after the driver accepted this many packets. */
    public RawDriverVariant(final long packetsPerQueue)
    {
        if (packetsPerQueue < 1)
        {
            throw new IllegalArgumentException("packetsPerQueue " + packetsPerQueue + " is not >= 1");
        }
        this.packetsPerQueue = packetsPerQueue;
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
        device = NicDevice.open(DEVICE_SPEC);
        running = true;
        for (int queue = 0; queue < THREADS; queue++)
        {
            final int q = queue;
            final NicDriver driver = device.port(0);
            threads[queue] = Thread.ofPlatform().name(NAME + "-" + queue).start(() -> transmit(driver, q));
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

    /** Completions reclaimed on {@code queue}. */
    public long delivered(final int queue)
    {
        return completed[queue].get();
    }

    /**
     * The driver's counters for TX queue {@code queue}: live while running, and after {@link #close()} as they
     * were once the threads had stopped, just before the device closed.
     */
    public QueueStats driverStats(final int queue)
    {
        return closed ? closingStats[queue] : device.port(0).stats(queue);
    }

    /** True while a sending thread is alive. */
    public boolean isRunning()
    {
        for (final Thread thread : threads)
        {
            if (null != thread && thread.isAlive())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the threads and waits up to 10 s for each; only then closes the device.
     *
     * @throws IllegalStateException if a thread did not stop in time; the device is left open.
     */
    @Override
    public void close()
    {
        if (closed || null == device)
        {
            return;
        }
        running = false;
        for (final Thread thread : threads)
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
        for (int queue = 0; queue < THREADS; queue++)
        {
            closingStats[queue] = device.port(0).stats(queue);
        }
        closed = true;
        device.close();
    }

    private void transmit(final NicDriver driver, final int queue)
    {
        final BenchFrames frames = new BenchFrames(queue);
        final UnsafeBuffer block = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BURST * FRAME_STRIDE, ALIGNMENT));
        final DescriptorBatch batch = new DescriptorBatch(BURST);
        final TxCompletion completion = new TxCompletion();
        final AtomicLong count = completed[queue];
        long accepted = 0;
        while (running && accepted < packetsPerQueue)
        {
            final int burst = (int)Math.min(BURST, packetsPerQueue - accepted);
            batch.clear();
            for (int i = 0; i < burst; i++)
            {
                final int offset = i * FRAME_STRIDE;
                batch.addExternal(block.addressOffset() + offset, frames.write(block, offset), 0);
            }
            final int result = driver.txBurst(queue, batch);
            if (result > 0)
            {
                accepted += result;
            }
            if (0 == driver.txReclaim(queue, completion))
            {
                count.setRelease(count.get() + completion.packets());
            }
        }
    }
}
