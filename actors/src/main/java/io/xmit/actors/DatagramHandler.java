package io.xmit.actors;

/**
 * The fast receive path: called on the socket's CPU for each datagram, in arrival order. Everything in
 * {@code datagram} is valid during the call only; copy what must outlive it. Replying from here
 * ({@link UdpSocket#reply}) keeps a request and its reply on one CPU. A handler that throws is a bug in the
 * application: the datagram counts as delivered and the exception is logged by the socket's actor.
 */
@FunctionalInterface
public interface DatagramHandler
{
    void onDatagram(UdpSocket socket, ReceivedDatagram datagram);
}
