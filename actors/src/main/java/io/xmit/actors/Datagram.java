package io.xmit.actors;

/**
 * A received datagram, copied, for the convenience path: an application actor receives them in {@link Datagrams}
 * batches instead of through a {@link DatagramHandler}.
 *
 * @param socketId the receiving socket.
 * @param source   the sender.
 * @param payload  the payload bytes.
 * @param rxQueue  the RX queue it arrived on.
 */
public record Datagram(int socketId, Endpoint source, byte[] payload, int rxQueue)
{
}
