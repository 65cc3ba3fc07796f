package io.xmit.actors;

import akka.actor.typed.ActorRef;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.pipeline.flow.FlowKey;

/**
 * How to open a UDP socket: start from {@link #udp4(int)} or {@link #udp6(int)} and change what differs.
 *
 * @param port              the device port (0 for the first).
 * @param family            {@link FlowKey#FAMILY_IPV4} or {@link FlowKey#FAMILY_IPV6}.
 * @param address           the local address literal, {@code "*"} for every address of the port, or null for the
 *                          port's own address of the family.
 * @param localPort         the UDP port, 1..65535.
 * @param cpu               the CPU the socket's receive side runs on, or -1 to spread sockets over the CPUs.
 * @param handler           the fast receive path (called on the socket's CPU), or null.
 * @param target            the convenience receive path (an application actor), or null; not both.
 * @param connectTo         the peer to connect to, or null.
 * @param sendBufferPackets the most packets in flight before {@link SendResult#SEND_BUFFER_FULL}; 0 for no limit.
 * @param priority          the packets' priority (SO_PRIORITY, 0..15 count for pfifo_fast's band).
 * @param reusePort         SO_REUSEPORT: unconnected sockets that all set it may bind the same address and port; each
 *                          datagram goes to the one on the CPU that received it (see {@link SocketTable}).
 * @param receiveBuffer     SO_RCVBUF: the term length of the socket's receive ring in bytes (a power of two, 64 KiB
 *                          or more; the ring holds about two terms), or 0 for {@code xmit.rings.socket-term-length}.
 * @param busyPoll          SO_BUSY_POLL, SO_BUSY_POLL_BUDGET and SO_PREFER_BUSY_POLL ({@link BusyPoll}), or null for the
 *                          pipeline's ({@code xmit.busy-poll}, …).
 */
public record SocketOptions(
    int port,
    int family,
    String address,
    int localPort,
    int cpu,
    DatagramHandler handler,
    ActorRef<Datagrams> target,
    Endpoint connectTo,
    long sendBufferPackets,
    int priority,
    boolean reusePort,
    int receiveBuffer,
    BusyPoll busyPoll)
{
    /** Options without a busy-poll setting of their own (the pipeline's applies). */
    public SocketOptions(final int port, final int family, final String address, final int localPort, final int cpu,
        final DatagramHandler handler, final ActorRef<Datagrams> target, final Endpoint connectTo,
        final long sendBufferPackets, final int priority, final boolean reusePort, final int receiveBuffer)
    {
        this(port, family, address, localPort, cpu, handler, target, connectTo, sendBufferPackets, priority, reusePort,
            receiveBuffer, null);
    }

    public SocketOptions
    {
        if (FlowKey.FAMILY_IPV4 != family && FlowKey.FAMILY_IPV6 != family)
        {
            throw new IllegalArgumentException("socket family must be 4 or 6, was " + family);
        }
        if (localPort < 1 || localPort > 0xFFFF)
        {
            throw new IllegalArgumentException("local UDP port " + localPort + " is not in 1..65535");
        }
        if (null != handler && null != target)
        {
            throw new IllegalArgumentException("give a socket a handler or a target actor, not both");
        }
        if (sendBufferPackets < 0)
        {
            throw new IllegalArgumentException("sendBufferPackets must be 0 (no limit) or more, was " +
                sendBufferPackets);
        }
        if (receiveBuffer < 0)
        {
            throw new IllegalArgumentException("receiveBuffer must be 0 (the pipeline's default) or more, was " +
                receiveBuffer);
        }
        if (priority < 0)
        {
            throw new IllegalArgumentException("priority must be 0 or more, was " + priority);
        }
        if (null != connectTo && connectTo.family() != family)
        {
            throw new IllegalArgumentException("an IPv" + family + " socket cannot connect to " + connectTo);
        }
    }

    /** An IPv4 socket on port 0's own address, receiving nothing until a handler or target is set. */
    public static SocketOptions udp4(final int localPort)
    {
        return new SocketOptions(0, FlowKey.FAMILY_IPV4, null, localPort, -1, null, null, null, 0, 0, false, 0);
    }

    /** An IPv6 socket on port 0's own address. */
    public static SocketOptions udp6(final int localPort)
    {
        return new SocketOptions(0, FlowKey.FAMILY_IPV6, null, localPort, -1, null, null, null, 0, 0, false, 0);
    }

    public SocketOptions onPort(final int devicePort)
    {
        return new SocketOptions(devicePort, family, address, localPort, cpu, handler, target, connectTo,
            sendBufferPackets, priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions bindTo(final String localAddress)
    {
        return new SocketOptions(port, family, localAddress, localPort, cpu, handler, target, connectTo,
            sendBufferPackets, priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions onCpu(final int socketCpu)
    {
        return new SocketOptions(port, family, address, localPort, socketCpu, handler, target, connectTo,
            sendBufferPackets, priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions handler(final DatagramHandler datagramHandler)
    {
        return new SocketOptions(port, family, address, localPort, cpu, datagramHandler, null, connectTo,
            sendBufferPackets, priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions deliverTo(final ActorRef<Datagrams> actor)
    {
        return new SocketOptions(port, family, address, localPort, cpu, null, actor, connectTo, sendBufferPackets,
            priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions connect(final Endpoint peer)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, peer, sendBufferPackets,
            priority, reusePort, receiveBuffer, busyPoll);
    }

    public SocketOptions sendBuffer(final long packets)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, connectTo, packets,
            priority, reusePort, receiveBuffer, busyPoll);
    }

    /** SO_REUSEPORT: one of a group of sockets on one address and port, as a server's per-CPU workers bind. */
    public SocketOptions reusePort(final boolean share)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, connectTo, sendBufferPackets,
            priority, share, receiveBuffer, busyPoll);
    }

    /** SO_RCVBUF: the term length of the socket's receive ring, for a socket that takes a whole CPU's share. */
    public SocketOptions receiveBuffer(final int bytes)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, connectTo, sendBufferPackets,
            priority, reusePort, bytes, busyPoll);
    }

    /**
     * SO_BUSY_POLL, SO_BUSY_POLL_BUDGET and SO_PREFER_BUSY_POLL (kernel-semantics §9): when this socket's receive ring
     * is empty, it polls the channel its last datagram arrived on for up to {@code settings.time()}, on its own CPU;
     * {@link BusyPoll#OFF} turns it off for this socket, null takes the pipeline's.
     */
    public SocketOptions busyPoll(final BusyPoll settings)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, connectTo, sendBufferPackets,
            priority, reusePort, receiveBuffer, settings);
    }

    public SocketOptions priority(final int packetPriority)
    {
        return new SocketOptions(port, family, address, localPort, cpu, handler, target, connectTo,
            sendBufferPackets, packetPriority, reusePort, receiveBuffer, busyPoll);
    }
}
