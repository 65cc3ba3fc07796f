package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.qdisc.Qdisc;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The design before the lockless qdisc (kernel-semantics §5): one pfifo_fast behind one root lock that every sender
 * takes. Per packet a sender takes the lock, enqueues, and if no one is running the qdisc (qdisc_run_begin) it
 * becomes the runner: it dequeues bulks of up to {@link #BULK} under the lock and calls {@code tx_burst} on its own
 * TX queue with the lock released (sch_direct_xmit), for at most {@link #QUOTA} packets (dev_tx_weight), then gives
 * up running. While one thread runs, the other only enqueues. The lock is a spin lock, as the kernel's root lock is.
 * No actors and no rings; nothing is allocated per packet. Two plain threads, one per CPU.
 */
public final class LockedQdiscVariant extends ThreadPerQueueVariant
{
    public static final String NAME = "locked-qdisc";
    public static final int BULK = 64;
    public static final int QUOTA = 64;

    private static final int BAND_LIMIT = 1000;
    private static final int SLOT_SIZE = 128;
    private static final int ALIGNMENT = 64;
    private static final int UNLOCKED = 0;
    private static final int LOCKED = 1;

    private final AtomicInteger rootLock = new AtomicInteger(UNLOCKED);
    private final PfifoFast qdisc = new PfifoFast(BAND_LIMIT, SLOT_SIZE, THREADS * BULK);
    /** __QDISC_STATE_RUNNING: read and written under {@link #rootLock} only. */
    private boolean qdiscRunning;

    /** Sends until closed. */
    public LockedQdiscVariant()
    {
        this(Long.MAX_VALUE);
    }

    /** @param packetsPerThread each thread stops enqueuing after this many packets, and helps drain the rest. */
    public LockedQdiscVariant(final long packetsPerThread)
    {
        super(NAME, packetsPerThread);
    }

    /** __dev_xmit_skb for every packet: enqueue under the root lock, and run the qdisc if no one else does. */
    @Override
    protected void transmit(final NicDriver driver, final int queue, final AtomicLong count)
    {
        final BenchFrames frames = new BenchFrames(queue);
        final UnsafeBuffer frame = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SLOT_SIZE, ALIGNMENT));
        final DescriptorBatch batch = new DescriptorBatch(BULK);
        final TxCompletion completion = new TxCompletion();
        long sent = 0;
        while (isRunning() && sent < packetsPerThread)
        {
            final int length = frames.write(frame, 0);
            lock();
            // A full band is a drop in the kernel; here the sender keeps the frame and tries again, as a sender
            // facing a full xmit ring does, so both designs are measured at the same offered work.
            final boolean queued = Qdisc.NET_XMIT_SUCCESS == qdisc.enqueue(frame, 0, length, 0);
            final boolean runner = !qdiscRunning;
            qdiscRunning = true;
            unlock();
            if (queued)
            {
                sent++;
            }
            if (runner)
            {
                runQdisc(driver, queue, batch, completion, count);
            }
            else if (!queued)
            {
                Thread.onSpinWait();
            }
        }
        drain(driver, queue, batch, completion, count);
    }

    /** With its packets sent, a thread runs the qdisc whenever it can until the backlog is empty. */
    private void drain(
        final NicDriver driver, final int queue, final DescriptorBatch batch, final TxCompletion completion,
        final AtomicLong count)
    {
        while (isRunning())
        {
            lock();
            final boolean idle = !qdiscRunning;
            final boolean empty = idle && qdisc.isEmpty();
            qdiscRunning = !empty;
            unlock();
            if (empty)
            {
                return;
            }
            if (idle)
            {
                runQdisc(driver, queue, batch, completion, count);
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    /** __qdisc_run: bulks under the lock, the driver without it, until the backlog is empty or the quota spent. */
    private void runQdisc(
        final NicDriver driver, final int queue, final DescriptorBatch batch, final TxCompletion completion,
        final AtomicLong count)
    {
        int budget = QUOTA;
        while (true)
        {
            lock();
            final int packets = budget > 0 ? qdisc.dequeueBulk(batch, Math.min(BULK, budget), Integer.MAX_VALUE) : 0;
            if (0 == packets)
            {
                qdiscRunning = false;
                unlock();
                return;
            }
            unlock();
            final int accepted = Math.max(0, driver.txBurst(queue, batch));
            lock();
            qdisc.complete(batch, accepted);
            unlock();
            budget -= packets;
            if (0 == driver.txReclaim(queue, completion))
            {
                count.setRelease(count.get() + completion.packets());
            }
        }
    }

    private void lock()
    {
        while (!rootLock.compareAndSet(UNLOCKED, LOCKED))
        {
            Thread.onSpinWait();
        }
    }

    private void unlock()
    {
        rootLock.setRelease(UNLOCKED);
    }
}
