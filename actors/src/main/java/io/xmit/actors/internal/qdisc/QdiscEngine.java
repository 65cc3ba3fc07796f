package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.internal.txq.InFlightFifo;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.actors.stats.BulkHistogram;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.trace.TracePoint;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.qdisc.Qdisc;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPeekHandler;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The lockless qdisc of one TX queue (kernel-semantics §4–§6), as a single-writer duty cycle: it alone reads the
 * TX queue's many-producer ring and owns the pfifo_fast backlog, so there is no lock; the ring's doorbell carries the
 * MISSED rule (§5.5) instead of a seqlock.
 * <p>
 * One {@link #poll()} is one turn, at most {@code quota} packets:
 * <ul>
 * <li><b>bypass</b> (§4.4): backlog empty and the TX queue awake → descriptors point straight into the ring and go
 * to the driver in one {@code tx_burst}, bulk bounded by {@code min(bulk-limit, BQL avail)} (§6.1); only what the
 * driver refuses is copied, into the requeue list (§4.6);</li>
 * <li><b>enqueue/dequeue</b>: a backlog exists → ring frames are copied into the pfifo_fast bands (so priorities
 * apply across old and new packets) and dequeued in bulk by band (§4.7, §6.1);</li>
 * <li><b>stopped</b> TX queue (driver ring full, BQL over its limit, frozen) → ring frames move into the backlog
 * until it is full; then the overflow policy decides: stop reading the ring (back-pressure) or drop and count.</li>
 * </ul>
 * Every packet accepted by the driver is appended, with its socket id, to the TX queue's {@link InFlightFifo}, and
 * BQL is told its bytes; a short {@code tx_burst} stops the queue and asks the TX queue actor to look for room.
 * <p>
 * Over 500 lines on purpose: one turn and its three paths, read top to bottom; split, the single-writer ownership
 * of the backlog and the books would be spread over several files.
 */
public final class QdiscEngine implements StageEngine
{
    private final int port;
    private final int txq;
    private final NicDriver driver;
    private final PacketSubscription ring;
    private final PfifoFast qdisc;
    private final TxQueueState state;
    private final ByteQueueLimits bql;
    private final InFlightFifo inFlight;
    private final SocketTable sockets;
    private final int quota;
    private final int bulkLimit;
    private final int bandLimit;
    private final boolean bypassEnabled;
    private final OverflowPolicy overflow;
    private final Runnable wakeTxQueue;
    private final DescriptorBatch batch;
    private final int ringSize;

    private final AtomicCounter packets;
    private final AtomicCounter bytes;
    private final AtomicCounter bypassed;
    private final AtomicCounter enqueued;
    private final AtomicCounter requeues;
    private final AtomicCounter dropOverflow;
    private final AtomicCounter dropOversize;
    private final AtomicCounter backlogGauge;
    private final AtomicCounter bulks;
    private final AtomicCounter stops;
    private final AtomicCounter driverErrors;
    private final AtomicCounter ringTaken;
    private final AtomicCounter dropShutdown;
    private final BulkHistogram bulkSizes;
    private final CrashSwitch crash;

    private final PacketPeekHandler bypassHandler = this::onBypassFrame;
    private final PacketPeekHandler enqueueHandler = this::onEnqueueFrame;
    private final PacketHandler dropFromRing = this::onDroppedFromRing;
    private int peekLimit;
    private int peekTaken;
    private int byteBudget;
    /** What the open peek is for: NO_PEEK between turns. */
    private int peekMode = NO_PEEK;
    /** The last {@code tx_burst}'s result until it is booked, else NO_BURST. */
    private int burstResult = NO_BURST;
    private TracePoint trace = TracePoint.NONE;

    private static final int NO_PEEK = 0;
    private static final int BYPASS_PEEK = 1;
    private static final int ENQUEUE_PEEK = 2;
    private static final int NO_BURST = Integer.MIN_VALUE;

    public QdiscEngine(
        final int port,
        final int txq,
        final NicDriver driver,
        final PacketSubscription ring,
        final TxQueueState state,
        final ByteQueueLimits bql,
        final InFlightFifo inFlight,
        final SocketTable sockets,
        final PipelineConfig config,
        final CountersFile counters,
        final Runnable wakeTxQueue)
    {
        this.port = port;
        this.txq = txq;
        this.driver = driver;
        this.ring = ring;
        this.state = state;
        this.bql = bql;
        this.inFlight = inFlight;
        this.sockets = sockets;
        this.quota = config.quota();
        this.bulkLimit = config.bulkLimit();
        this.bandLimit = config.bandLimit();
        this.bypassEnabled = config.qdiscBypass();
        this.overflow = config.overflow();
        this.wakeTxQueue = wakeTxQueue;
        this.qdisc = new PfifoFast(config.bandLimit(), driver.maxFrame(), 2 * config.bulkLimit());
        this.batch = new DescriptorBatch(config.bulkLimit());
        this.ringSize = driver.ringSize();

        final CounterScope scope = CounterScope.txq(port, txq);
        packets = counters.allocate(CounterType.QDISC_PACKETS, scope);
        bytes = counters.allocate(CounterType.QDISC_BYTES, scope);
        bypassed = counters.allocate(CounterType.QDISC_BYPASSED, scope);
        enqueued = counters.allocate(CounterType.QDISC_ENQUEUED, scope);
        requeues = counters.allocate(CounterType.QDISC_REQUEUES, scope);
        dropOverflow = counters.allocate(CounterType.QDISC_DROP_OVERFLOW, scope);
        dropOversize = counters.allocate(CounterType.QDISC_DROP_OVERSIZE, scope);
        backlogGauge = counters.allocate(CounterType.QDISC_BACKLOG_PACKETS, scope);
        bulks = counters.allocate(CounterType.QDISC_BULKS, scope);
        stops = counters.allocate(CounterType.TXQ_STOPS, scope);
        driverErrors = counters.allocate(CounterType.TXQ_DRIVER_ERRORS, scope);
        ringTaken = counters.allocate(CounterType.QDISC_RING_TAKEN, scope);
        dropShutdown = counters.allocate(CounterType.QDISC_DROP_SHUTDOWN, scope);
        bulkSizes = new BulkHistogram(counters, scope);
        crash = new CrashSwitch("qdisc " + port + "/" + txq);
    }

    /**
     * One turn: at most {@code quota} packets moved or sent.
     *
     * @return the work done; 0 when there was nothing this qdisc could do (ring empty, or the queue stopped and the
     * backlog full), so the duty cycle may go idle.
     */
    @Override
    public int poll()
    {
        crash.load();
        int budget = quota;
        int work = 0;
        while (budget > 0)
        {
            if (state.frozenOrStopped())
            {
                // §4.7b: nothing leaves a stopped queue; new packets wait in the backlog, in band order.
                work += enqueueFromRing(budget);
                break;
            }
            final int done;
            if (bypassEnabled && qdisc.isEmpty())
            {
                done = bypass(Math.min(budget, bulkLimit));
                budget -= done;
            }
            else
            {
                // §4.8: the quota counts packets dequeued; moving ring frames into the bands is bounded by it too.
                final int moved = enqueueFromRing(budget);
                final int sent = sendBacklog(Math.min(budget, bulkLimit));
                done = moved + sent;
                budget -= sent > 0 ? sent : moved;
            }
            if (0 == done)
            {
                break;
            }
            work += done;
        }
        backlogGauge.setRelease(qdisc.qlen());
        return work;
    }

    /** The tracing hooks of this qdisc, set once before it runs. */
    public void trace(final TracePoint point)
    {
        trace = point;
    }

    /** Packets in the backlog (bands and requeue list); for tests and statistics, on the qdisc's thread. */
    int backlog()
    {
        return qdisc.qlen();
    }

    /** bypassEligible (§4.4): straight from the ring to the driver, nothing copied unless refused. */
    private int bypass(final int limit)
    {
        final int room = driverRoom();
        if (0 == room)
        {
            return stopForRoom();
        }
        peekLimit = Math.min(limit, room);
        peekTaken = 0;
        byteBudget = bql.avail();
        peekMode = BYPASS_PEEK;
        if (0 == ring.peek(bypassHandler))
        {
            consumePeek();
            return 0;
        }
        final int size = batch.size();
        transmit();
        return size;
    }

    /**
     * Releases the ring space of the open peek: its frames went to the driver, were copied into the backlog or were
     * dropped (counted).
     */
    private void consumePeek()
    {
        ring.consumePeeked();
        ringTaken.getAndAddRelease(peekTaken);
        peekMode = NO_PEEK;
    }

    private int onBypassFrame(
        final RingFrameHeader header, final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        batch.addExternal(buffer.addressOffset() + frameOffset, frameLength, header.priority(), header.socketId(),
            header.traceId());
        peekTaken++;
        // try_bulk_dequeue_skb (§6.1): the first packet always, more while the BQL budget stays positive.
        byteBudget -= frameLength;
        return peekTaken >= peekLimit || byteBudget <= 0 ? PacketPeekHandler.BREAK : PacketPeekHandler.CONTINUE;
    }

    /** Copies ring frames into the bands, up to {@code limit}, while they fit; then applies the overflow policy. */
    private int enqueueFromRing(final int limit)
    {
        peekLimit = limit;
        peekTaken = 0;
        peekMode = ENQUEUE_PEEK;
        ring.peek(enqueueHandler);
        final int taken = peekTaken;
        consumePeek();
        return taken;
    }

    private int onEnqueueFrame(
        final RingFrameHeader header, final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        crash.point("before taking a ring frame into the backlog");
        final int priority = header.priority();
        final int socketId = header.socketId();
        if (qdisc.bandLength(PfifoFast.prio2band(priority)) >= bandLimit || 0 == qdisc.freeSlots())
        {
            if (OverflowPolicy.BACKPRESSURE == overflow)
            {
                return PacketPeekHandler.ABORT;
            }
            dropOverflow.incrementRelease();
            sockets.packetCompleted(socketId);
        }
        else if (Qdisc.NET_XMIT_SUCCESS ==
            qdisc.enqueue(buffer, frameOffset, frameLength, priority, socketId, header.traceId()))
        {
            enqueued.incrementRelease();
            if (RingFrameHeader.NO_TRACE_ID != header.traceId())
            {
                trace.enqueued(header.traceId(), socketId, PfifoFast.prio2band(priority), qdisc.qlen());
            }
        }
        else
        {
            dropOversize.incrementRelease();
            sockets.packetCompleted(socketId);
        }
        peekTaken++;
        return peekTaken >= peekLimit ? PacketPeekHandler.BREAK : PacketPeekHandler.CONTINUE;
    }

    /** qdisc_restart (§4.8): one bulk from the backlog, band order, bounded by BQL. */
    private int sendBacklog(final int maxPackets)
    {
        if (state.frozenOrStopped() || qdisc.isEmpty())
        {
            return 0;
        }
        final int room = driverRoom();
        if (0 == room)
        {
            return stopForRoom();
        }
        final int size = qdisc.dequeueBulk(batch, Math.min(maxPackets, room), bql.avail());
        if (0 == size)
        {
            return 0;
        }
        transmit();
        return size;
    }

    /**
     * dev_hard_start_xmit + sch_direct_xmit for the batch (§4.5, §6.3): one {@code tx_burst}; the accepted packets
     * are in flight (BQL, the in-flight FIFO); the rest is requeued at the head (§4.6) and, if the driver's ring was
     * full, the queue stops.
     *
     * @return how many packets the driver accepted.
     */
    private int transmit()
    {
        final int result = driver.txBurst(txq, batch);
        final int accepted = Math.max(result, 0);
        if (accepted > 0)
        {
            // At once, with nothing in between that can fail: the TX queue (on this CPU, but its own actor, which may
            // run while this one restarts) reclaims these packets, and must find them in flight.
            int acceptedBytes = 0;
            for (int i = 0; i < accepted; i++)
            {
                acceptedBytes += batch.length(i);
            }
            if (!inFlight.append(batch, accepted))
            {
                throw new IllegalStateException("txq " + txq + ": the driver accepted " + accepted + " packets with " +
                    inFlight.size() + " of its " + ringSize + " ring slots in flight");
            }
            bql.sent(acceptedBytes);
            state.txStarted(state.clock().nanoTime());
        }
        burstResult = result;
        crash.point("after tx_burst, before booking its result");
        return book();
    }

    /**
     * Books the last {@code tx_burst}'s result on the qdisc's side: counts it, requeues what the driver refused (and
     * stops the queue if its ring was full), and ends a bypass peek.
     */
    private int book()
    {
        final int size = batch.size();
        final int result = burstResult;
        burstResult = NO_BURST;
        final int accepted = Math.max(result, 0);
        if (accepted > 0)
        {
            long acceptedBytes = 0;
            for (int i = 0; i < accepted; i++)
            {
                acceptedBytes += batch.length(i);
            }
            packets.getAndAddRelease(accepted);
            bytes.getAndAddRelease(acceptedBytes);
            bulks.incrementRelease();
            bulkSizes.record(accepted);
        }
        // complete() may only drop a refused bypass packet that finds no free slot (or does not fit one); neither
        // can happen (a bypass runs with an empty backlog, and slots are as large as the driver's largest frame),
        // and a drop here would go uncounted by the pipeline and leave its socket's in-flight count short.
        if (batch.tracedCount() > 0)
        {
            trace.bursts(batch, accepted);
        }
        final long dropsBefore = qdisc.stats().drops();
        qdisc.complete(batch, accepted);
        if (qdisc.stats().drops() != dropsBefore)
        {
            throw new IllegalStateException("txq " + txq + ": requeueing " + (size - accepted) + " refused packets " +
                "dropped " + (qdisc.stats().drops() - dropsBefore) + " of them");
        }
        if (accepted < size)
        {
            requeues.getAndAddRelease(size - accepted);
            if (result < 0)
            {
                // A failed call (an injected -EIO, say): everything is requeued and retried on the next turn.
                driverErrors.incrementRelease();
            }
            else
            {
                // The driver's ring is full: netif_tx_stop_queue, then make sure the TX queue looks for room, or a
                // ring that emptied before the stop bit was set would leave the queue stopped for good.
                state.stopQueue();
                stops.incrementRelease();
            }
        }
        if (BYPASS_PEEK == peekMode)
        {
            // The driver copied what it took and the qdisc copied the rest: the ring space can be released.
            bypassed.getAndAddRelease(accepted);
            consumePeek();
        }
        wakeTxQueue.run();
        return accepted;
    }

    /**
     * How many more packets the driver's TX ring can hold: its size less what is in flight (accepted, not yet
     * reclaimed). A driver such as {@code null} takes more than its ring, so this is the bound, not the driver's
     * answer: the in-flight FIFO must never hold more than the ring.
     */
    private int driverRoom()
    {
        return Math.max(0, ringSize - inFlight.size());
    }

    /** No room in the driver's ring: stop the queue (the TX queue wakes it when completions free room). */
    private int stopForRoom()
    {
        state.stopQueue();
        stops.incrementRelease();
        wakeTxQueue.run();
        return 0;
    }

    /**
     * After a failure in the middle of a turn (a supervisor restart), on the qdisc's thread: finishes what the failed
     * turn had made irreversible and undoes the rest, so nothing is lost or sent twice.
     * <ul>
     * <li>a {@code tx_burst} that returned and was not booked is booked now (its packets are in the driver; the
     * refused ones go back to the backlog; a bypass peek's ring space is released);</li>
     * <li>an enqueue interrupted at a ring frame releases the frames before it, which are in the backlog;</li>
     * <li>a batch that never reached the driver goes back: backlog slots to the head of the backlog; bypass
     * descriptors, which point into the ring, by leaving the ring where it was (the frames are peeked again).</li>
     * </ul>
     */
    @Override
    public void recover()
    {
        if (NO_BURST != burstResult)
        {
            book();
        }
        if (ENQUEUE_PEEK == peekMode)
        {
            consumePeek();
        }
        else if (BYPASS_PEEK == peekMode)
        {
            // Not consumed: the next peek starts at the ring position this one started at.
            batch.clear();
            peekMode = NO_PEEK;
        }
        if (!batch.isEmpty())
        {
            qdisc.complete(batch, 0);
        }
        backlogGauge.setRelease(qdisc.qlen());
    }

    @Override
    public void armCrash(final int points)
    {
        crash.arm(points);
    }

    /** The TX queue's books, on the qdisc's thread (which {@code txq}'s engine shares) between turns. */
    public QueueBooks books(final TxQueueEngine txq)
    {
        return new QueueBooks(port, this.txq, ringTaken.get(), packets.get(), txq.completedPackets(), txq.inDriver(),
            qdisc.qlen(), dropOverflow.get(), dropOversize.get(), dropShutdown.get(), txq.droppedAtStop(),
            txq.watchdogResets());
    }

    /**
     * A graceful stop's last step for this queue, once its actors have stopped: what is still in the ring or the
     * backlog will not be sent; each is counted ({@code qdisc_drop_shutdown}) and its socket released.
     *
     * @return the packets dropped.
     */
    public int dropLeftovers()
    {
        int dropped = 0;
        while (!qdisc.isEmpty())
        {
            final int n = qdisc.dequeueBulk(batch, batch.capacity(), Integer.MAX_VALUE);
            for (int i = 0; i < n; i++)
            {
                sockets.packetCompleted(batch.tag(i));
            }
            qdisc.complete(batch, n);
            dropped += n;
        }
        int taken;
        do
        {
            taken = ring.poll(dropFromRing, Integer.MAX_VALUE);
            dropped += taken;
            ringTaken.getAndAddRelease(taken);
        }
        while (taken > 0);
        dropShutdown.getAndAddRelease(dropped);
        backlogGauge.setRelease(qdisc.qlen());
        return dropped;
    }

    private void onDroppedFromRing(
        final RingFrameHeader header, final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        sockets.packetCompleted(header.socketId());
    }
}
