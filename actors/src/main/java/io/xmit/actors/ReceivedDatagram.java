package io.xmit.actors;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.ParsedFrame;

import org.agrona.DirectBuffer;

/**
 * A received UDP datagram, as a flyweight over the socket's ring: the sender's address and port, the payload, and
 * the RX queue it arrived on. Reused for every datagram; valid during the handler call only.
 */
public final class ReceivedDatagram
{
    private DirectBuffer buffer;
    private int payloadOffset;
    private int payloadLength;
    private int rxQueue;
    private int flowHash;
    private long traceId;
    private final FlowKey flow = new FlowKey();

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

    /** The payload's buffer; read {@link #payloadLength()} bytes from {@link #payloadOffset()}. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int payloadOffset()
    {
        return payloadOffset;
    }

    public int payloadLength()
    {
        return payloadLength;
    }

    /** The RX queue the datagram arrived on. */
    public int rxQueue()
    {
        return rxQueue;
    }

    /** Its trace id if it is traced (a reply through {@link UdpSocket#reply} carries it on), else 0. */
    public long traceId()
    {
        return traceId;
    }

    /** The RSS hash the device computed for it. */
    public int rssHash()
    {
        return flowHash;
    }

    /** The datagram's 5-tuple as it arrived: source = the peer, destination = this socket. Read-only. */
    public FlowKey flow()
    {
        return flow;
    }

    public int sourcePort()
    {
        return flow.srcPort();
    }

    /** The sender, as a new {@link Endpoint} (allocates; {@link UdpSocket#reply} does not). */
    public Endpoint source()
    {
        return new Endpoint(flow.family(), flow.srcHi(), flow.srcLo(), flow.srcPort());
    }

    /** The payload copied into a new array (allocates; for the convenience path and tests). */
    public byte[] payload()
    {
        final byte[] bytes = new byte[payloadLength];
        buffer.getBytes(payloadOffset, bytes);
        return bytes;
    }
}
