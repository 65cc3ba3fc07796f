package io.xmit.actors;

import io.xmit.pipeline.flow.FlowKey;

import org.agrona.DirectBuffer;

/**
 * A received UDP datagram, as a flyweight over the socket's ring: the sender's address and port, the payload, and
 * the RX queue it arrived on. Reused for every datagram; valid during the handler call only.
 */
public interface ReceivedDatagram
{
    /** The payload's buffer; read {@link #payloadLength()} bytes from {@link #payloadOffset()}. */
    DirectBuffer buffer();

    int payloadOffset();

    int payloadLength();

    /** The RX queue the datagram arrived on. */
    int rxQueue();

    /** Its trace id if it is traced (a reply through {@link UdpSocket#reply} carries it on), else 0. */
    long traceId();

    /** The RSS hash the device computed for it. */
    int rssHash();

    /** The datagram's 5-tuple as it arrived: source = the peer, destination = this socket. Read-only. */
    FlowKey flow();

    int sourcePort();

    /** The sender, as a new {@link Endpoint} (allocates; {@link UdpSocket#reply} does not). */
    Endpoint source();

    /** The payload copied into a new array (allocates; for the convenience path and tests). */
    byte[] payload();
}
