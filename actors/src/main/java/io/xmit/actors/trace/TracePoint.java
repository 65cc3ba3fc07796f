package io.xmit.actors.trace;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.xps.TxQueueSelector;

import org.agrona.DirectBuffer;

/**
 * The tracing hooks of one stage instance: an RX queue or a sending socket selects packets (its own 1-in-N count, so
 * no two threads share it), and every stage reports what it did with a packet that carries a trace id. A stage calls
 * an event method only behind {@code if (traceId != RingFrameHeader.NO_TRACE_ID)}, so an untraced packet costs that
 * branch and, where packets are selected, one volatile load.
 */
public final class TracePoint
{
    /** The hooks of a stage built outside a pipeline (a unit test's): nothing is ever selected. */
    public static final TracePoint NONE = new TracePoint(Tracer.NONE, 0, 0);

    private final Tracer tracer;
    private final int port;
    private final int queue;
    private int countdown;
    private TraceSelector stableSelector;
    private boolean stableMatch;

    TracePoint(final Tracer tracer, final int port, final int queue)
    {
        this.tracer = tracer;
        this.port = port;
        this.queue = queue;
    }

    /**
     * Decides whether a new packet is traced: on arrival at an RX queue, or sent fresh by a socket.
     *
     * @return a new trace id, or {@link RingFrameHeader#NO_TRACE_ID}.
     */
    public long select(final FlowKey flow, final int socketId)
    {
        final TraceSelector selector = tracer.current();
        if (null == selector || !selector.matches(flow, socketId))
        {
            return RingFrameHeader.NO_TRACE_ID;
        }
        return count(selector);
    }

    /**
     * {@link #select} for a flow that never changes at this point (a connected socket's): whether the selector matches
     * it is decided once per selector, so a filter that matches nothing costs a load and a compare per packet.
     */
    public long selectStable(final FlowKey flow, final int socketId)
    {
        final TraceSelector selector = tracer.current();
        if (null == selector)
        {
            return RingFrameHeader.NO_TRACE_ID;
        }
        if (selector != stableSelector)
        {
            stableMatch = selector.matches(flow, socketId);
            stableSelector = selector;
        }
        return stableMatch ? count(selector) : RingFrameHeader.NO_TRACE_ID;
    }

    /** 1 in {@code every} of the packets the selector matches. */
    private long count(final TraceSelector selector)
    {
        if (--countdown > 0)
        {
            return RingFrameHeader.NO_TRACE_ID;
        }
        countdown = selector.every();
        return tracer.nextId();
    }

    /** A traced frame arrived on this RX queue and goes to {@code socketId}'s ring. */
    public void received(final long traceId, final int socketId, final DirectBuffer frame, final int offset,
        final int length)
    {
        tracer.countRx(port, queue);
        tracer.write(TraceEvent.RX, traceId, port, queue, 0, socketId, 0, 0, length, frame, offset, length);
    }

    /** A socket's receive side is handing a traced datagram, which arrived on {@code rxq}, to the application. */
    public void delivered(final long traceId, final int socketId, final int rxq)
    {
        tracer.write(TraceEvent.DELIVER, traceId, port, rxq, 0, socketId, 0, 0, 0, null, 0, 0);
    }

    /**
     * A socket wrote a traced frame into the ring of the TX queue {@code picked} names ({@link TxQueueSelector}).
     *
     * @param inherited true for a reply that carries its request's trace id.
     */
    public void sent(final long traceId, final int picked, final int socketId, final boolean inherited,
        final DirectBuffer frame, final int offset, final int length)
    {
        final int txq = TxQueueSelector.queue(picked);
        tracer.countTx(port, txq);
        tracer.write(TraceEvent.SEND, traceId, port, txq, TxQueueSelector.rule(picked).ordinal(), socketId,
            inherited ? 1 : 0, 0, length, frame, offset, length);
    }

    /** This TX queue's qdisc copied a traced frame into pfifo_fast {@code band}, leaving {@code qlen} queued. */
    public void enqueued(final long traceId, final int socketId, final int band, final int qlen)
    {
        tracer.write(TraceEvent.ENQUEUE, traceId, port, queue, 0, socketId, band, qlen, 0, null, 0, 0);
    }

    /**
     * This TX queue's qdisc handed {@code batch} to the driver in one {@code tx_burst}, which took the first
     * {@code accepted} (or failed, if {@code accepted} is negative): one event per traced packet, with its position
     * in the bulk and whether it was accepted, requeued or dropped.
     */
    public void bursts(final DescriptorBatch batch, final int accepted)
    {
        final int size = batch.size();
        for (int i = 0; i < size; i++)
        {
            final long traceId = batch.trace(i);
            if (RingFrameHeader.NO_TRACE_ID != traceId)
            {
                tracer.write(TraceEvent.BURST, traceId, port, queue,
                    batch.isExternal(i) ? TraceEvent.PATH_BYPASS : TraceEvent.PATH_BACKLOG, batch.tag(i), i + 1, size,
                    accepted < 0 ? TraceEvent.BURST_FAILED : i < accepted ? TraceEvent.BURST_ACCEPTED :
                    TraceEvent.BURST_REQUEUED, null, 0, 0);
            }
        }
    }

    /** The device completed a traced packet of this TX queue. */
    public void completed(final long traceId)
    {
        tracer.write(TraceEvent.COMPLETE, traceId, port, queue, 0, 0, 0, 0, 0, null, 0, 0);
    }
}
