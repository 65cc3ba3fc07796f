package io.xmit.actors.trace;

import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A pipeline's tracer: the current {@link TraceSelector}, trace ids, and the many-producer trace ring every stage
 * writes its events into (Agrona's {@link ManyToOneRingBuffer}: claim, write the fixed fields and a snap length of the
 * frame, commit; nothing allocated). A full ring drops the event and counts it ({@code trace_dropped}); a stage never
 * waits for the ring. One {@link TraceWriter} thread drains it.
 */
public final class Tracer implements AutoCloseable
{
    /** The logger every event is written to at INFO, one line each, as the trace ring is drained. */
    public static final String LOG = "xmit.trace";

    /** Never selects a packet, so no event ever reaches it: the tracer of stages built outside a pipeline. */
    static final Tracer NONE = new Tracer();

    private final ManyToOneRingBuffer ring;
    private final AtomicLong ids = new AtomicLong();
    private final int snapLength;
    private final AtomicCounter events;
    private final AtomicCounter dropped;
    private final AtomicCounter[][] rxTraced;
    private final AtomicCounter[][] txTraced;
    private final TraceWriter writer;
    /** Null when tracing is off: the one load and branch an untraced packet costs. */
    private volatile TraceSelector selector;

    /**
     * @param name     the pipeline's name (the interfaces are named from the device: {@code loopA-tx3}).
     * @param backend  the device's backend label ({@code loop}, {@code null}, …).
     * @param rxQueues RX queues per device port.
     * @param txQueues TX queues per device port.
     */
    public Tracer(final TraceConfig config, final String name, final String backend, final int[] rxQueues,
        final int[] txQueues, final CountersFile counters)
    {
        this.snapLength = config.snapLength();
        this.ring = new ManyToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            config.ringSize() + RingBufferDescriptor.TRAILER_LENGTH, 64)));
        this.events = counters.allocate(CounterType.TRACE_EVENTS, CounterScope.tracer());
        this.dropped = counters.allocate(CounterType.TRACE_DROPPED, CounterScope.tracer());
        rxTraced = new AtomicCounter[rxQueues.length][];
        txTraced = new AtomicCounter[txQueues.length][];
        for (int p = 0; p < rxQueues.length; p++)
        {
            rxTraced[p] = new AtomicCounter[rxQueues[p]];
            for (int q = 0; q < rxQueues[p]; q++)
            {
                rxTraced[p][q] = counters.allocate(CounterType.TRACE_PACKETS, CounterScope.rxq(p, q));
            }
            txTraced[p] = new AtomicCounter[txQueues[p]];
            for (int q = 0; q < txQueues[p]; q++)
            {
                txTraced[p][q] = counters.allocate(CounterType.TRACE_PACKETS, CounterScope.txq(p, q));
            }
        }
        select(config.selector());
        writer = new TraceWriter(ring, config.file(), name, backend, rxQueues, txQueues, snapLength, dropped);
    }

    private Tracer()
    {
        ring = null;
        snapLength = 0;
        events = null;
        dropped = null;
        rxTraced = null;
        txTraced = null;
        writer = null;
    }

    /** Changes which packets are traced from the next packet on; any thread. */
    public void select(final TraceSelector newSelector)
    {
        if (this == NONE)
        {
            throw new IllegalStateException("the tracer of stages built outside a pipeline cannot trace");
        }
        selector = null == newSelector || !newSelector.active() ? null : newSelector;
    }

    /** Which packets are traced now. */
    public TraceSelector selector()
    {
        final TraceSelector s = selector;
        return null == s ? TraceSelector.OFF : s;
    }

    /** The selection and event hooks of one stage instance (one RX queue, socket, qdisc or TX queue). */
    public TracePoint point(final int port, final int queue)
    {
        return new TracePoint(this, port, queue);
    }

    /** Events dropped because the trace ring was full. */
    public long dropped()
    {
        return dropped.get();
    }

    /** Events written into the trace ring. */
    public long events()
    {
        return events.get();
    }

    /** Waits until the writer has handled every event written so far (and flushed the file); for tests. */
    public void flush()
    {
        writer.awaitDrained();
    }

    /** Stops the writer after it has drained the ring, and completes the file (statistics blocks). */
    @Override
    public void close()
    {
        writer.close();
    }

    TraceSelector current()
    {
        return selector;
    }

    long nextId()
    {
        return ids.incrementAndGet();
    }

    void countRx(final int port, final int rxq)
    {
        rxTraced[port][rxq].incrementRelease();
    }

    void countTx(final int port, final int txq)
    {
        txTraced[port][txq].incrementRelease();
    }

    /** Writes one event; never blocks, never allocates. */
    void write(final int type, final long traceId, final int port, final int queue, final int code, final int socket,
        final int b, final int c, final int d, final DirectBuffer frame, final int frameOffset, final int frameLength)
    {
        final int captured = null == frame ? 0 : Math.min(frameLength, snapLength);
        final int index = ring.tryClaim(type, TraceEvent.HEADER_LENGTH + captured);
        if (index <= 0)
        {
            if (RingBuffer.INSUFFICIENT_CAPACITY == index)
            {
                dropped.incrementRelease();
            }
            return;
        }
        final AtomicBuffer buffer = ring.buffer();
        buffer.putLong(index + TraceEvent.TRACE_ID_OFFSET, traceId);
        buffer.putLong(index + TraceEvent.TIME_OFFSET, System.nanoTime());
        buffer.putShort(index + TraceEvent.PORT_OFFSET, (short)port);
        buffer.putShort(index + TraceEvent.QUEUE_OFFSET, (short)queue);
        buffer.putShort(index + TraceEvent.CPU_OFFSET, (short)CpuThread.currentCpu());
        buffer.putShort(index + TraceEvent.CODE_OFFSET, (short)code);
        buffer.putInt(index + TraceEvent.SOCKET_OFFSET, socket);
        buffer.putInt(index + TraceEvent.B_OFFSET, b);
        buffer.putInt(index + TraceEvent.C_OFFSET, c);
        buffer.putInt(index + TraceEvent.D_OFFSET, d);
        buffer.putInt(index + TraceEvent.CAPTURED_OFFSET, captured);
        if (captured > 0)
        {
            buffer.putBytes(index + TraceEvent.HEADER_LENGTH, frame, frameOffset, captured);
        }
        ring.commit(index);
        events.incrementRelease();
    }

    static boolean traced(final long traceId)
    {
        return RingFrameHeader.NO_TRACE_ID != traceId;
    }
}
