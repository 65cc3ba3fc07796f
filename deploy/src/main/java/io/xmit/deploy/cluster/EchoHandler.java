package io.xmit.deploy.cluster;

import io.xmit.actors.DatagramHandler;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.UdpSocket;

/**
 * The built-in handler {@code echo} ({@code services[].handler = echo}): replies to each datagram with its payload,
 * from the datagram's own buffer, so it allocates nothing. A reply the socket refuses (back-pressure, a closed
 * socket) is counted by the socket, not retried.
 */
public final class EchoHandler implements DatagramHandler
{
    @Override
    public void onDatagram(final UdpSocket socket, final ReceivedDatagram datagram)
    {
        socket.reply(datagram, datagram.buffer(), datagram.payloadOffset(), datagram.payloadLength());
    }
}
