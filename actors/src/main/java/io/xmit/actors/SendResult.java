package io.xmit.actors;

import io.xmit.transport.ring.PacketPublication;

/**
 * What {@link UdpSocket#send} returns: a positive ring position when the datagram was accepted, else one of these
 * negative values. Errors are values on the send path; exceptions are for misuse (bad arguments).
 */
public final class SendResult
{
    /** The TX queue's ring is full: the qdisc is behind (back-pressure). Try again later; nothing was sent. */
    public static final long BACK_PRESSURED = PacketPublication.BACK_PRESSURED;
    /** The socket is closed. */
    public static final long CLOSED = PacketPublication.CLOSED;
    /** The datagram does not fit the device's largest frame. */
    public static final long TOO_LONG = PacketPublication.FRAME_TOO_LONG;
    /** The socket's send-buffer limit (packets in flight) is reached. */
    public static final long SEND_BUFFER_FULL = -20;
    /** {@link UdpSocket#send} without a destination on a socket that is not connected. */
    public static final long NOT_CONNECTED = -21;
    /** The destination's address family is not the socket's. */
    public static final long WRONG_FAMILY = -22;
    /** The pipeline is stopping (draining what it accepted) or has stopped: it accepts nothing new. */
    public static final long STOPPED = -23;
    /** {@link UdpSocket#sendTo} or {@link UdpSocket#reply} to port 0, which no datagram may go to (Linux: EINVAL). */
    public static final long NO_DESTINATION_PORT = -24;

    private SendResult()
    {
    }

    /** A name for a result, for logs and messages. */
    public static String name(final long result)
    {
        if (result > 0)
        {
            return "SENT";
        }
        if (SEND_BUFFER_FULL == result)
        {
            return "SEND_BUFFER_FULL";
        }
        if (NOT_CONNECTED == result)
        {
            return "NOT_CONNECTED";
        }
        if (WRONG_FAMILY == result)
        {
            return "WRONG_FAMILY";
        }
        if (STOPPED == result)
        {
            return "STOPPED";
        }
        if (NO_DESTINATION_PORT == result)
        {
            return "NO_DESTINATION_PORT";
        }
        if (TOO_LONG == result)
        {
            return "TOO_LONG";
        }
        return PacketPublication.resultName(result);
    }
}
