package io.xmit.actors.internal.socket;

import io.xmit.actors.Endpoint;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.ParsedFrame;

import org.agrona.DirectBuffer;

/**
 * The {@link ReceivedDatagram} a socket's receiver hands its handler: a flyweight {@link #wrap}ped over each
 * datagram of the socket's ring in turn.
 */
public final class ReceivedFrame implements ReceivedDatagram
{
    private DirectBuffer buffer;
    private int payloadOffset;
    private int payloadLength;
    private int rxQueue;
    private int flowHash;
    private long traceId;
    private final FlowKey flow = new FlowKey();

    /** Points this flyweight at the next datagram, as parsed from the socket's ring. */
    public void wrap(final DirectBuffer buffer, final ParsedFrame parsed, final int rxQueue, final int flowHash,
        final long traceId)
    {
        this.traceId = traceId;
        this.buffer = buffer;
        this.payloadOffset = parsed.payloadOffset();
        this.payloadLength = parsed.payloadLength();
        this.rxQueue = rxQueue;
        this.flowHash = flowHash;
        flow.copyFrom(parsed.flowKey());
    }

    @Override
    public DirectBuffer buffer()
    {
        return buffer;
    }

    @Override
    public int payloadOffset()
    {
        return payloadOffset;
    }

    @Override
    public int payloadLength()
    {
        return payloadLength;
    }

    @Override
    public int rxQueue()
    {
        return rxQueue;
    }

    @Override
    public long traceId()
    {
        return traceId;
    }

    @Override
    public int rssHash()
    {
        return flowHash;
    }

    @Override
    public FlowKey flow()
    {
        return flow;
    }

    @Override
    public int sourcePort()
    {
        return flow.srcPort();
    }

    @Override
    public Endpoint source()
    {
        return new Endpoint(flow.family(), flow.srcHi(), flow.srcLo(), flow.srcPort());
    }

    @Override
    public byte[] payload()
    {
        final byte[] bytes = new byte[payloadLength];
        buffer.getBytes(payloadOffset, bytes);
        return bytes;
    }
}
