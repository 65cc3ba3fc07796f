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
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;

/**
 * The lockless qdisc of one TX queue (kernel-semantics §4–§6), as a single-writer duty cycle: it alone reads the
 * TX queue's many-producer rings and owns the pfifo_fast backlog, so there is no lock. Its one writer is whoever holds
 * the qdisc's run token ({@link QdiscRunner}, §5.2): its actor, or a sender taking the bypass in its own context; the
 * token and the rings' doorbell carry the MISSED rule (§5.5).
 * <p>
 * A TX queue has one ring per band, as the kernel's lockless pfifo_fast has one ring per band (§4.2, §5.1): a sender
 * writes into the ring of its packet's band. So a band that is full holds up only its own senders, and this engine
 * can keep strict priority over everything queued, in the rings or in the backlog: a packet leaves only when no
 * packet of a higher-priority band is waiting anywhere.
 * <p>
 * One {@link #poll()} is one turn, at most {@code quota} packets:
 * <ul>
 * <li><b>bypass</b> (§4.4): backlog empty and the TX queue awake → the first band ring (band 0 first) that holds
 * frames sends them straight to the driver, descriptors pointing into the ring, in one {@code tx_burst}, bulk bounded
 * by {@code min(bulk-limit, BQL avail)} (§6.1); only what the driver refuses is copied, into the requeue list
 * (§4.6). Every higher band's ring was empty when this one was chosen, so the burst is what pfifo_fast would have
 * dequeued;</li>
 * <li><b>enqueue/dequeue</b>: a backlog exists → the band rings are copied into their bands, band 0 first, and the
 * backlog is dequeued in bulk by band (§4.7, §6.1), never past a band whose ring still holds frames;</li>
 * <li><b>stopped</b> TX queue (driver ring full, BQL over its limit, frozen) → ring frames move into the backlog
 * until their band is full; then the overflow policy decides for that band alone: stop reading its ring
 * (back-pressure: its senders see {@code BACK_PRESSURED}) or drop and count.</li>
 * </ul>
 * Every packet accepted by the driver is appended, with its socket id, to the TX queue's {@link InFlightFifo}, and
 * BQL is told its bytes packet by packet, with xmit_more for all but the burst's last (§6.4, §7.2); a short
 * {@code tx_burst} (the driver is busy) stops the queue and asks the TX queue actor to look for room; a failed one
 * (a negative errno) consumed the packets, which are dropped and counted (§4.5).
 * <p>
 * <b>The direct path</b> (§4.4a): a sender holding the run token that finds the qdisc empty (no backlog, and every
 * band ring read to its end, or none of its socket's frames in them: a streak) and the queue awake writes its frame
 * into this engine's <i>staging</i> area, which belongs to the token's holder, and never into a ring
 * ({@link #directOffset}, {@link #directCommit}). Staged frames leave in one
 * {@code tx_burst} when the sender's run of {@code sendMore} ends, or earlier at the bulk limit, the driver's room or
 * the BQL budget; until then they are the head of the qdisc, and every turn sends them before it reads a ring.
 * <p>
 * Over 500 lines on purpose: one turn and its three paths, read top to bottom; split, the single-writer ownership
 * of the backlog and the books would be spread over several files.
 */
public final class QdiscEngine implements StageEngine
{
    private final int port;
    private final int txq;
    private final NicDriver driver;
    private final PacketSubscription[] rings;
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
    private final Runnable reapInSender;
    private final DescriptorBatch batch;
    private final int ringSize;
    /** The direct path's frames (§4.4a): one slot per descriptor of {@link #batch}, off-heap, preallocated. */
    private final UnsafeBuffer staging;
    private final int stagingSlot;

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
    private final AtomicCounter dropDriverError;
    private final AtomicCounter direct;
    private final BulkHistogram bulkSizes;
    private final CrashSwitch crash;

    private final PacketPeekHandler bypassHandler = this::onBypassFrame;
    private final PacketPeekHandler enqueueHandler = this::onEnqueueFrame;
    private final PacketHandler dropFromRing = this::onDroppedFromRing;
    /** The band ring of the open peek (or of the last one). */
    private PacketSubscription peekRing;
    /** Whether the open enqueue peek was ended by its handler (limit reached, or a full band under back-pressure). */
    private boolean peekStopped;
    private int peekLimit;
    private int peekTaken;
    /** What the last {@link #enqueueBand} took from its ring. */
    private int enqueuedFromBand;
    /** The last band the backlog may be dequeued from in this turn: see {@link #enqueueFromRings}. */
    private int lastBand = PfifoFast.BANDS - 1;
    private int byteBudget;
    /** The BQL budget left to the staged frames: the first is always taken, more while it stays positive (§6.1). */
    private int stagedBudget;
    /** What the open peek is for: NO_PEEK between turns. */
    private int peekMode = NO_PEEK;
    /** The last {@code tx_burst}'s result until it is booked, else NO_BURST. */
    private int burstResult = NO_BURST;
    private TracePoint trace = TracePoint.NONE;
    /** A sender holds the run token: the completions its bursts make due are its to reap (§7.7). */
    private boolean senderContext;

    private static final int NO_PEEK = 0;
    private static final int BYPASS_PEEK = 1;
    private static final int ENQUEUE_PEEK = 2;
    private static final int NO_BURST = Integer.MIN_VALUE;

    public QdiscEngine(
        final int port,
        final int txq,
        final NicDriver driver,
        final PacketSubscription[] rings,
        final TxQueueState state,
        final ByteQueueLimits bql,
        final InFlightFifo inFlight,
        final SocketTable sockets,
        final PipelineConfig config,
        final CountersFile counters,
        final Runnable wakeTxQueue,
        final Runnable reapInSender)
    {
        this.port = port;
        this.txq = txq;
        this.driver = driver;
        if (PfifoFast.BANDS != rings.length)
        {
            throw new IllegalArgumentException("txq " + txq + ": " + rings.length + " rings for " + PfifoFast.BANDS +
                " bands");
        }
        this.rings = rings.clone();
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
        this.reapInSender = reapInSender;
        this.qdisc = new PfifoFast(config.bandLimit(), driver.maxFrame(), 2 * config.bulkLimit());
        this.batch = new DescriptorBatch(config.bulkLimit());
        this.ringSize = driver.ringSize();
        this.stagingSlot = BitUtil.align(driver.maxFrame(), BitUtil.CACHE_LINE_LENGTH);
        this.staging = new UnsafeBuffer(ByteBuffer.allocateDirect(stagingSlot * config.bulkLimit() +
            BitUtil.CACHE_LINE_LENGTH).alignedSlice(BitUtil.CACHE_LINE_LENGTH));

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
        dropDriverError = counters.allocate(CounterType.QDISC_DROP_DRIVER_ERROR, scope);
        direct = counters.allocate(CounterType.QDISC_DIRECT, scope);
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
        // Staged frames are the head of the qdisc: they leave before anything in a ring (§4.4a).
        int work = flushStaged();
        while (budget > 0)
        {
            if (state.frozenOrStopped())
            {
                // §4.7b: nothing leaves a stopped queue; new packets wait in the backlog, in band order.
                work += enqueueFromRings(budget);
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
                final int moved = enqueueFromRings(budget);
                final int sent = sendBacklog(Math.min(budget, bulkLimit), lastBand);
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

    /** The device port of this qdisc's TX queue. */
    public int port()
    {
        return port;
    }

    /** This qdisc's TX queue. */
    public int txq()
    {
        return txq;
    }

    /** The tracing hooks of this qdisc, set once before it runs. */
    public void trace(final TracePoint point)
    {
        trace = point;
    }

    /**
     * Packets in the backlog (bands and requeue list) and staged by the direct path; for tests and statistics, on the
     * qdisc's thread.
     */
    int backlog()
    {
        return qdisc.qlen() + batch.size();
    }

    /**
     * The direct path's admission (§4.4a), under the run token: the qdisc is empty (no backlog; every band ring, whose
     * producers' positions {@code bands} are, read to its end: a frame a socket committed before is never overtaken),
     * the queue awake and the driver's ring has room. Staged frames that would leave no room are sent first.
     *
     * @param bands the band rings' producer side, or null for a sender with none of its socket's frames in them
     *              (its latest packet was staged here, none went into a ring since): the rings are not read.
     * @return the offset in {@link #staging()} to write the frame at, or {@link QdiscRunner#NO_DIRECT}: the frame
     * goes into its ring.
     */
    int directOffset(final PacketPublication[] bands)
    {
        if (!bypassEnabled || state.frozenOrStopped() || !qdisc.isEmpty() || null != bands && !ringsDrained(bands))
        {
            return QdiscRunner.NO_DIRECT;
        }
        final int room = driverRoom();
        if (0 == room)
        {
            // Nothing staged can be waiting here: a staging that reached the driver's room was sent at once.
            stopForRoom();
            return QdiscRunner.NO_DIRECT;
        }
        return batch.size() * stagingSlot;
    }

    /** nolock_qdisc_is_empty for the rings: each band ring's consumer has reached its producers' position. */
    private boolean ringsDrained(final PacketPublication[] bands)
    {
        for (int band = 0; band < PfifoFast.BANDS; band++)
        {
            if (bands[band].position() != rings[band].position())
            {
                return false;
            }
        }
        return true;
    }

    /** The direct path's staging area: a frame is written at the offset {@link #directOffset} gave. */
    MutableDirectBuffer staging()
    {
        return staging;
    }

    /**
     * Stages the frame written at {@code offset} (§4.4a), counted in {@code qdisc_direct}, and sends the staged frames
     * in one {@code tx_burst} when no more follow ({@code more} false: the run's end) or the staging is full: the bulk
     * limit, the driver's room, or the BQL budget (§6.1) reached.
     *
     * @return true if a backlog is left for the actor: the driver refused part of the burst, or the queue stopped.
     */
    boolean directCommit(final int offset, final int length, final int priority, final int socketId,
        final long traceId, final boolean more)
    {
        if (batch.isEmpty())
        {
            stagedBudget = bql.avail();
        }
        batch.addExternal(staging.addressOffset() + offset, length, priority, socketId, traceId);
        direct.incrementRelease();
        stagedBudget -= length;
        if (!more || batch.remaining() == 0 || batch.size() >= driverRoom() || stagedBudget <= 0)
        {
            // A burst on the sender's thread is a turn of this stage: an armed crash may strike it as any other.
            crash.load();
            flushStaged();
            return !qdisc.isEmpty();
        }
        return false;
    }

    /**
     * Sends the staged frames (sch_direct_xmit, §4.4a): one {@code tx_burst}, refusals requeued as for any burst; on a
     * stopped or frozen queue none is sent and all are requeued (the kernel's sch_direct_xmit finds the queue stopped
     * and calls dev_requeue_skb).
     *
     * @return the packets that left the qdisc, or were requeued from a stopped queue.
     */
    private int flushStaged()
    {
        final int size = batch.size();
        if (0 == size)
        {
            return 0;
        }
        if (state.frozenOrStopped())
        {
            qdisc.complete(batch, 0);
            requeues.getAndAddRelease(size);
            return size;
        }
        return transmit();
    }

    /**
     * bypassEligible (§4.4): from the first band ring that holds frames straight to the driver, nothing copied unless
     * refused; the rings of higher-priority bands were found empty first (§4.2).
     *
     * @return the packets that left the qdisc (sent, or dropped by a failed {@code tx_burst}).
     */
    private int bypass(final int limit)
    {
        final int room = driverRoom();
        if (0 == room)
        {
            return stopForRoom();
        }
        for (int band = 0; band < PfifoFast.BANDS; band++)
        {
            peekLimit = Math.min(limit, room);
            peekTaken = 0;
            byteBudget = bql.avail();
            if (peek(band, BYPASS_PEEK, bypassHandler) > 0)
            {
                return transmit();
            }
        }
        return 0;
    }

    /**
     * Opens a peek on band {@code band}'s ring. An empty peek is closed at once, and tried again if it moved the ring
     * on (padding at the end of a term): so 0 means the ring holds no committed frame.
     *
     * @return the frames taken into the peek, which stays open if there are any.
     */
    private int peek(final int band, final int mode, final PacketPeekHandler handler)
    {
        final PacketSubscription ring = rings[band];
        peekRing = ring;
        while (true)
        {
            final long before = ring.position();
            peekMode = mode;
            peekStopped = false;
            final int taken = ring.peek(handler);
            if (taken > 0)
            {
                return taken;
            }
            consumePeek();
            if (ring.position() == before)
            {
                return 0;
            }
        }
    }

    /**
     * Releases the ring space of the open peek: its frames went to the driver, were copied into the backlog or were
     * dropped (counted).
     */
    private void consumePeek()
    {
        peekRing.consumePeeked();
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

    /**
     * Copies ring frames into their bands, band 0's ring first, up to {@code limit} in all, each band while it has
     * room; then the overflow policy applies to that band alone. Sets {@link #lastBand} to the highest-priority band
     * whose ring may still hold frames (one not read to its end), which the following dequeue must not pass.
     *
     * @return the frames taken from the rings.
     */
    private int enqueueFromRings(final int limit)
    {
        int taken = 0;
        lastBand = PfifoFast.BANDS - 1;
        for (int band = 0; band < PfifoFast.BANDS; band++)
        {
            if (taken == limit || !enqueueBand(band, limit - taken))
            {
                lastBand = band;
                taken += enqueuedFromBand;
                break;
            }
            taken += enqueuedFromBand;
        }
        return taken;
    }

    /**
     * Copies band {@code band}'s ring into the band, up to {@code limit} frames, into {@link #enqueuedFromBand}.
     *
     * @return true if the ring was read to its end (it held no further committed frame).
     */
    private boolean enqueueBand(final int band, final int limit)
    {
        enqueuedFromBand = 0;
        while (enqueuedFromBand < limit)
        {
            peekLimit = limit - enqueuedFromBand;
            peekTaken = 0;
            final long before = rings[band].position();
            final int taken = peek(band, ENQUEUE_PEEK, enqueueHandler);
            enqueuedFromBand += peekTaken;
            if (0 == taken)
            {
                return !peekStopped;
            }
            consumePeek();
            if (peekStopped || rings[band].position() == before)
            {
                return !peekStopped;
            }
        }
        return false;
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
                // This band's senders wait (their ring fills, then BACK_PRESSURED); the other bands' rings go on.
                peekStopped = true;
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
        if (peekTaken >= peekLimit)
        {
            peekStopped = true;
            return PacketPeekHandler.BREAK;
        }
        return PacketPeekHandler.CONTINUE;
    }

    /**
     * qdisc_restart (§4.8): one bulk from the backlog, band order, bounded by BQL, from bands {@code 0..lastBand}: a
     * lower-priority band waits while the ring of {@code lastBand} may still hold frames (§4.2).
     *
     * @return the packets that left the qdisc (sent, or dropped by a failed {@code tx_burst}).
     */
    private int sendBacklog(final int maxPackets, final int lastBand)
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
        if (0 == qdisc.dequeueBulk(batch, Math.min(maxPackets, room), bql.avail(), lastBand))
        {
            return 0;
        }
        return transmit();
    }

    /**
     * dev_hard_start_xmit + sch_direct_xmit for the batch (§4.5, §6.3): one {@code tx_burst}; the accepted packets
     * are in flight (BQL, the in-flight FIFO); the rest is requeued at the head (§4.6) and, if the driver's ring was
     * full, the queue stops; if the call failed, the driver consumed the batch and it is dropped.
     *
     * @return the packets that left the qdisc: those the driver accepted, or the whole batch if the call failed.
     */
    private int transmit()
    {
        final int size = batch.size();
        final int result = driver.txBurst(txq, batch);
        final int accepted = Math.max(result, 0);
        if (accepted > 0)
        {
            // netdev_tx_sent_queue per packet, as a driver calls it per skb, xmit_more on all but the last (§6.4):
            // told at once, the burst's bytes with its last packet as DQL's last object. Before the in-flight FIFO
            // shows the packets: the TX queue, on its own thread (and this turn may run on a sender's), completes
            // only what the FIFO holds, so BQL must hold their bytes by then.
            int acceptedBytes = 0;
            for (int i = 0; i < accepted; i++)
            {
                acceptedBytes += batch.length(i);
            }
            bql.sentBurst(acceptedBytes, batch.length(accepted - 1));
            // At once, with nothing in between that can fail: the TX queue (its own actor, which may run while this
            // one restarts) reclaims these packets, and must find them in flight.
            if (!inFlight.append(batch, accepted))
            {
                throw new IllegalStateException("txq " + txq + ": the driver accepted " + accepted + " packets with " +
                    inFlight.size() + " of its " + ringSize + " ring slots in flight");
            }
            state.txStarted(state.clock().nanoTime());
        }
        burstResult = result;
        crash.point("after tx_burst, before booking its result");
        book();
        return result < 0 ? size : accepted;
    }

    /**
     * Books the last {@code tx_burst}'s result on the qdisc's side: counts it, requeues what the busy driver refused
     * (and stops the queue), or drops the batch of a failed call, and ends a bypass peek.
     */
    private void book()
    {
        final int size = batch.size();
        final int result = burstResult;
        burstResult = NO_BURST;
        // External descriptors outside a ring's peek point into the staging: the direct path's burst (§4.4a).
        final boolean staged = NO_PEEK == peekMode && size > 0 && batch.isExternal(0);
        if (result < 0)
        {
            dropFailedBurst(size);
            return;
        }
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
            // NETDEV_TX_BUSY: the driver's ring is full: requeue, netif_tx_stop_queue, then make sure the TX queue
            // looks for room, or a ring that emptied before the stop bit was set would leave the queue stopped for good.
            requeues.getAndAddRelease(size - accepted);
            state.stopQueue();
            stops.incrementRelease();
        }
        if (BYPASS_PEEK == peekMode)
        {
            // The driver copied what it took and the qdisc copied the rest: the ring space can be released.
            bypassed.getAndAddRelease(accepted);
            consumePeek();
        }
        else if (staged)
        {
            bypassed.getAndAddRelease(accepted);
        }
        completionsDue();
    }

    /**
     * A {@code tx_burst} that failed (a negative errno, none accepted) is complete, as for the kernel a driver's
     * error return is (§4.5: only busy requeues): its packets are dropped, counted ({@code qdisc_drop_driver_error}),
     * and released from their sockets; a bypass peek's ring space is released. The queue is not stopped.
     */
    private void dropFailedBurst(final int size)
    {
        driverErrors.incrementRelease();
        if (batch.tracedCount() > 0)
        {
            trace.bursts(batch, -1);
        }
        for (int i = 0; i < size; i++)
        {
            sockets.packetCompleted(batch.tag(i));
        }
        dropDriverError.getAndAddRelease(size);
        qdisc.discard(batch);
        if (BYPASS_PEEK == peekMode)
        {
            consumePeek();
        }
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
        completionsDue();
        return 0;
    }

    /**
     * Whether the token's holder is a sender, on its own thread ({@link QdiscRunner} sets it when a sender wins the
     * token and clears it before the sender lets go).
     */
    void senderContext(final boolean sender)
    {
        senderContext = sender;
    }

    /**
     * After a {@code tx_burst}, or when the queue stops for room, the TX queue must look at its completions: a sender
     * reaps them itself (§7.7), and the qdisc's actor, on the completion actor's CPU, rings that actor.
     */
    private void completionsDue()
    {
        if (senderContext)
        {
            reapInSender.run();
        }
        else
        {
            wakeTxQueue.run();
        }
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
        return new QueueBooks(port, this.txq, ringTaken.get() + direct.get(), packets.get(), txq.completedPackets(),
            txq.inDriver(), backlog(), dropOverflow.get(), dropOversize.get(), dropDriverError.get(),
            dropShutdown.get(), txq.droppedAtStop(), txq.watchdogResets());
    }

    /**
     * A graceful stop's last step for this queue, once its actors have stopped: what is still in the rings or the
     * backlog will not be sent; each is counted ({@code qdisc_drop_shutdown}) and its socket released.
     *
     * @return the packets dropped.
     */
    public int dropLeftovers()
    {
        // Staged frames first, into the backlog that is dropped next.
        qdisc.complete(batch, 0);
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
        for (final PacketSubscription ring : rings)
        {
            int taken;
            do
            {
                taken = ring.poll(dropFromRing, Integer.MAX_VALUE);
                dropped += taken;
                ringTaken.getAndAddRelease(taken);
            }
            while (taken > 0);
        }
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
