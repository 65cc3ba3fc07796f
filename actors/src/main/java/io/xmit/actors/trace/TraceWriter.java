package io.xmit.actors.trace;

import io.xmit.pipeline.xps.SelectionRule;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Drains the trace ring on a thread of its own: every event becomes a log line on {@code xmit.trace} (INFO), and the
 * events of one packet on one side are joined into one pcapng enhanced packet block, written when the side is
 * complete — the RX side when the socket takes the datagram, the TX side when the device completes it — and flushed
 * whole, so the file is readable while the pipeline runs. Closing drains the ring, writes the sides still open (their
 * comments say what did not happen) and one statistics block per interface.
 * <p>
 * The comment of a block holds the packet's decisions as {@code key=value} words in a fixed order:
 * <pre>
 *  RX: dir=rx port= rxq= cpu= sock= [sock_cpu= deliver_ns= | deliver=none]
 *  TX: dir=tx port= cpu= sock= txq= via= [qdisc=bypass|enqueued band=] [bulk=POS/SIZE] queued_ns= ring_ns=
 *      driver=accept|error|none requeues= [complete_ns= | complete=none] [reply=1]
 * </pre>
 */
final class TraceWriter implements MessageHandler, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(Tracer.LOG);
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int MAX_IDLE_SHIFT = 4;
    /**
     * A side still open this long is written as it is: its last event was dropped (a full ring), or the packet was
     * (a qdisc drop, a socket gone), and it would otherwise be held until the pipeline stops.
     */
    private static final long OPEN_SIDE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final SelectionRule[] RULES = SelectionRule.values();

    /** One side of a traced packet, built up from its events. */
    private static final class Side
    {
        long id;
        boolean received;
        int port;
        int queue;
        int cpu = -1;
        int socket;
        long startNs;
        byte[] frame = new byte[0];
        int frameLength;
        boolean delivered;
        int deliverCpu;
        long deliverNs;
        int rule = -1;
        boolean reply;
        long qdiscNs = -1;
        boolean enqueued;
        int band = -1;
        long firstBurstNs = -1;
        long acceptNs = -1;
        int position;
        int size;
        int requeues;
        boolean failed;
        long completeNs = -1;
    }

    private final ManyToOneRingBuffer ring;
    private final PcapngWriter file;
    private final int[] rxBase;
    private final int[] txBase;
    private final long[] recorded;
    private final AtomicCounter dropped;
    private final long epochOffsetNs;
    private final long startNs;
    private final Map<Long, Side> rx = new HashMap<>();
    private final Map<Long, Side> tx = new HashMap<>();
    private final TraceEvent event = new TraceEvent();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long handledPosition;
    private long nextExpiryNs;
    private IOException failure;

    TraceWriter(final ManyToOneRingBuffer ring, final String path, final String name, final String backend,
        final int[] rxQueues, final int[] txQueues, final int snapLength, final AtomicCounter dropped)
    {
        this.ring = ring;
        this.dropped = dropped;
        this.epochOffsetNs = epochNanos() - System.nanoTime();
        this.startNs = System.nanoTime();
        rxBase = new int[rxQueues.length];
        txBase = new int[txQueues.length];
        int interfaces = 0;
        for (int p = 0; p < rxQueues.length; p++)
        {
            rxBase[p] = interfaces;
            interfaces += rxQueues[p];
            txBase[p] = interfaces;
            interfaces += txQueues[p];
        }
        recorded = new long[interfaces];
        try
        {
            file = path.isEmpty() ? null : new PcapngWriter(Path.of(path));
            if (null != file)
            {
                file.sectionHeader("xmit pipeline " + name);
                for (int p = 0; p < rxQueues.length; p++)
                {
                    for (int q = 0; q < rxQueues[p]; q++)
                    {
                        file.interfaceDescription(interfaceName(backend, p, "rx", q), snapLength);
                    }
                    for (int q = 0; q < txQueues[p]; q++)
                    {
                        file.interfaceDescription(interfaceName(backend, p, "tx", q), snapLength);
                    }
                }
                file.flush();
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("xmit: cannot write the trace file " + path + ": " + ex, ex);
        }
        thread = new Thread(this::run, "xmit-trace-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** {@code loopA-tx3}: the backend, the port as a letter, the direction and the queue. */
    static String interfaceName(final String backend, final int port, final String direction, final int queue)
    {
        return backend + (char)('A' + port) + "-" + direction + queue;
    }

    private void run()
    {
        int idle = 0;
        while (running)
        {
            if (0 == drainOnce())
            {
                // Up to 16 ms asleep while nothing is traced; events wait in the ring meanwhile, nothing is lost.
                LockSupport.parkNanos(IDLE_NANOS << idle);
                idle = Math.min(idle + 1, MAX_IDLE_SHIFT);
            }
            else
            {
                idle = 0;
            }
            final long now = System.nanoTime();
            if (now - nextExpiryNs >= 0)
            {
                nextExpiryNs = now + TimeUnit.SECONDS.toNanos(1);
                expire(rx, now);
                expire(tx, now);
                flushFile();
            }
        }
    }

    private void expire(final Map<Long, Side> sides, final long now)
    {
        final Iterator<Side> open = sides.values().iterator();
        while (open.hasNext())
        {
            final Side side = open.next();
            if (now - side.startNs > OPEN_SIDE_NANOS)
            {
                open.remove();
                write(side, side.received);
            }
        }
    }

    /** Reads what the ring holds, then flushes the blocks it completed; returns the events read. */
    private int drainOnce()
    {
        final long target = ring.producerPosition();
        int total = 0;
        int read;
        while ((read = ring.read(this, 1024)) > 0)
        {
            total += read;
        }
        if (total > 0)
        {
            flushFile();
        }
        if (ring.consumerPosition() >= target)
        {
            handledPosition = target;
        }
        return total;
    }

    /** Waits (at most 5 s) until every event written before the call is handled and its blocks flushed. */
    void awaitDrained()
    {
        final long target = ring.producerPosition();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handledPosition < target && thread.isAlive() && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(IDLE_NANOS);
        }
    }

    @Override
    public void close()
    {
        running = false;
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        drainOnce();
        final List<Side> open = new ArrayList<>(rx.values());
        open.addAll(tx.values());
        open.sort((a, b) -> Long.compare(a.startNs, b.startNs));
        for (final Side side : open)
        {
            write(side, side.received);
        }
        rx.clear();
        tx.clear();
        if (null == file)
        {
            return;
        }
        try
        {
            final long now = epochNanos();
            final String comment = "trace_dropped=" + dropped.get();
            for (int i = 0; i < recorded.length; i++)
            {
                file.interfaceStatistics(i, now, startNs + epochOffsetNs, recorded[i], 0, comment);
            }
            file.close();
        }
        catch (final IOException ex)
        {
            LOG.error("xmit: completing the trace file failed", ex);
        }
        if (null != failure)
        {
            LOG.error("xmit: writing the trace file failed; it ends at the last block written", failure);
        }
    }

    @Override
    public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        event.wrap(type, buffer, index);
        if (LOG.isInfoEnabled())
        {
            LOG.info(logLine(event));
        }
        final long id = event.traceId();
        switch (type)
        {
            case TraceEvent.RX ->
            {
                final Side side = begin(rx, event);
                side.received = true;
                side.frame = event.frame();
                side.frameLength = event.d();
            }
            case TraceEvent.DELIVER ->
            {
                final Side side = rx.remove(id);
                if (null != side)
                {
                    side.delivered = true;
                    side.deliverCpu = event.cpu();
                    side.deliverNs = event.timeNs();
                    write(side, true);
                }
            }
            case TraceEvent.SEND ->
            {
                final Side side = begin(tx, event);
                side.frame = event.frame();
                side.frameLength = event.d();
                side.rule = event.code();
                side.reply = 1 == event.b();
            }
            case TraceEvent.ENQUEUE ->
            {
                final Side side = tx.get(id);
                if (null != side && !side.enqueued && side.firstBurstNs < 0)
                {
                    side.enqueued = true;
                    side.band = event.b();
                    side.qdiscNs = event.timeNs();
                }
            }
            case TraceEvent.BURST ->
            {
                final Side side = tx.get(id);
                if (null != side)
                {
                    if (side.firstBurstNs < 0)
                    {
                        side.firstBurstNs = event.timeNs();
                        if (side.qdiscNs < 0)
                        {
                            side.qdiscNs = event.timeNs();
                        }
                    }
                    if (TraceEvent.BURST_ACCEPTED == event.d())
                    {
                        side.acceptNs = event.timeNs();
                        side.position = event.b();
                        side.size = event.c();
                    }
                    else if (TraceEvent.BURST_FAILED == event.d())
                    {
                        // Dropped with its failed burst (§4.5): nothing more will happen to it.
                        side.failed = true;
                        tx.remove(id);
                        write(side, false);
                    }
                    else
                    {
                        side.requeues++;
                    }
                }
            }
            case TraceEvent.COMPLETE ->
            {
                final Side side = tx.remove(id);
                if (null != side)
                {
                    side.completeNs = event.timeNs();
                    write(side, false);
                }
            }
            default ->
            {
            }
        }
    }

    private static Side begin(final Map<Long, Side> sides, final TraceEvent event)
    {
        final Side side = new Side();
        side.id = event.traceId();
        side.port = event.port();
        side.queue = event.queue();
        side.cpu = event.cpu();
        side.socket = event.socket();
        side.startNs = event.timeNs();
        sides.put(side.id, side);
        return side;
    }

    private void write(final Side side, final boolean received)
    {
        final int interfaceId = (received ? rxBase[side.port] : txBase[side.port]) + side.queue;
        recorded[interfaceId]++;
        if (null == file || null != failure)
        {
            return;
        }
        final long timeNs = received || side.acceptNs < 0 ? side.startNs : side.acceptNs;
        try
        {
            file.enhancedPacket(interfaceId, timeNs + epochOffsetNs, side.frame, side.frameLength,
                received ? PcapngWriter.INBOUND : PcapngWriter.OUTBOUND, side.id, side.queue,
                received ? rxComment(side) : txComment(side));
        }
        catch (final IOException ex)
        {
            failure = ex;
        }
    }

    private void flushFile()
    {
        if (null == file || null != failure)
        {
            return;
        }
        try
        {
            file.flush();
        }
        catch (final IOException ex)
        {
            failure = ex;
        }
    }

    static String rxComment(final Side side)
    {
        final StringBuilder text = new StringBuilder(96);
        text.append("dir=rx port=").append(side.port).append(" rxq=").append(side.queue).append(" cpu=")
            .append(side.cpu).append(" sock=").append(side.socket);
        if (side.delivered)
        {
            text.append(" sock_cpu=").append(side.deliverCpu).append(" deliver_ns=")
                .append(side.deliverNs - side.startNs);
        }
        else
        {
            text.append(" deliver=none");
        }
        return text.toString();
    }

    static String txComment(final Side side)
    {
        final StringBuilder text = new StringBuilder(160);
        text.append("dir=tx port=").append(side.port).append(" cpu=").append(side.cpu).append(" sock=")
            .append(side.socket).append(" txq=").append(side.queue).append(" via=")
            .append(side.rule >= 0 && side.rule < RULES.length ? RULES[side.rule].label() : "?");
        if (side.qdiscNs >= 0)
        {
            text.append(" qdisc=").append(side.enqueued ? "enqueued" : "bypass");
            if (side.enqueued)
            {
                text.append(" band=").append(side.band);
            }
        }
        if (side.acceptNs >= 0)
        {
            text.append(" bulk=").append(side.position).append('/').append(side.size);
            // Time spent queued: in the backlog from its enqueue (or a refused bypass) until the driver took it.
            final long queuedFrom = side.enqueued ? side.qdiscNs : side.firstBurstNs;
            text.append(" queued_ns=").append(side.enqueued || side.requeues > 0 ? side.acceptNs - queuedFrom : 0);
        }
        if (side.qdiscNs >= 0)
        {
            text.append(" ring_ns=").append(side.qdiscNs - side.startNs);
        }
        text.append(" driver=").append(side.acceptNs >= 0 ? "accept" : side.failed ? "error" : "none")
            .append(" requeues=")
            .append(side.requeues);
        if (side.completeNs >= 0)
        {
            text.append(" complete_ns=").append(side.completeNs - (side.acceptNs >= 0 ? side.acceptNs :
                side.startNs));
        }
        else
        {
            text.append(" complete=none");
        }
        if (side.reply)
        {
            text.append(" reply=1");
        }
        return text.toString();
    }

    /** One line per event, in the same key=value words as the file's comments. */
    static String logLine(final TraceEvent event)
    {
        final StringBuilder text = new StringBuilder(128);
        text.append("trace=").append(event.traceId()).append(" stage=").append(TraceEvent.stage(event.type()))
            .append(" port=").append(event.port());
        final boolean rxSide = TraceEvent.RX == event.type() || TraceEvent.DELIVER == event.type();
        text.append(rxSide ? " rxq=" : " txq=").append(event.queue()).append(" cpu=").append(event.cpu());
        switch (event.type())
        {
            case TraceEvent.RX, TraceEvent.DELIVER -> text.append(" sock=").append(event.socket());
            case TraceEvent.SEND ->
            {
                text.append(" sock=").append(event.socket()).append(" via=")
                    .append(event.code() >= 0 && event.code() < RULES.length ? RULES[event.code()].label() : "?");
                if (1 == event.b())
                {
                    text.append(" reply=1");
                }
            }
            case TraceEvent.ENQUEUE -> text.append(" qdisc=enqueued band=").append(event.b()).append(" qlen=")
                .append(event.c());
            case TraceEvent.BURST -> text.append(" qdisc=")
                .append(TraceEvent.PATH_BYPASS == event.code() ? "bypass" : "backlog").append(" bulk=")
                .append(event.b()).append('/').append(event.c()).append(" driver=")
                .append(TraceEvent.BURST_ACCEPTED == event.d() ? "accept" :
                    TraceEvent.BURST_FAILED == event.d() ? "error" : "requeue");
            default ->
            {
            }
        }
        return text.append(" t_ns=").append(event.timeNs()).toString();
    }

    private static long epochNanos()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
