package io.xmit.actors;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.SocketQueueState;

import org.agrona.DirectBuffer;

/**
 * A UDP socket of a pipeline, over IPv4 or IPv6, bound to a local address and port of one device port, optionally
 * connected to one peer.
 * <p>
 * <b>Sending</b> runs on the caller's thread, the kernel's {@code dev_queue_xmit} in the sender's context: pick the
 * TX queue over the port's current queue map (cached queue, XPS by the recorded RX queue, XPS by the sending CPU,
 * flow hash: kernel-semantics §1–3), claim space in that queue's ring, write the Ethernet/IP/UDP frame in place,
 * commit, and wake the qdisc if it sleeps. Nothing is allocated. A full ring is {@link SendResult#BACK_PRESSURED},
 * never a silent loss. One thread at a time may send on a socket (use one socket per sending thread, as a server
 * uses one socket per worker).
 * <p>
 * <b>Receiving</b> happens on the socket's CPU: its actor drains the socket's ring and calls the
 * {@link DatagramHandler}, or batches datagrams to an application actor.
 */
public interface UdpSocket extends AutoCloseable
{
    /** The socket's id, carried in every ring frame it sends. */
    int id();

    /** The CPU its receive handler runs on. */
    int cpu();

    /** The device port it is bound on. */
    int port();

    /** {@link FlowKey#FAMILY_IPV4} or {@link FlowKey#FAMILY_IPV6}. */
    int family();

    /** The bound address and port (for a wildcard bind, the port's own address of the family). */
    Endpoint local();

    /** True if bound to every address of the port rather than one. */
    boolean isWildcard();

    /** True if it may share its address with other sockets that set SO_REUSEPORT. */
    boolean isReusePort();

    /** The connected peer, or null. */
    Endpoint remote();

    /**
     * Connects to {@code peer}, or to another peer if connected already ({@code connect(2)} on a UDP socket): only
     * its datagrams are received from now on, {@link #send} goes to it, and the socket caches its TX queue and records
     * the RX queue its datagrams arrive on. Like every change of the kernel's cached route, it clears the cached TX
     * queue, so the next send picks again by XPS or the flow hash (kernel-semantics §1.4).
     * <p>
     * A control-plane call: not on an xmit CPU (an {@link IllegalStateException}), and not while another thread sends
     * on this socket; the pipeline's socket table is updated before it returns.
     *
     * @throws IllegalArgumentException if {@code peer} is not of the socket's family; nothing changes.
     * @throws IllegalStateException    if the socket is closed, or another socket has this address connected to the
     *                                  same peer; the socket keeps its peer, but its cached TX queue has been cleared,
     *                                  as a failing connect clears the kernel's before it looks up the route.
     */
    void connect(final Endpoint peer);

    /**
     * Dissolves the association ({@code connect(2)} with {@code AF_UNSPEC}): the socket receives from every peer
     * again, {@link #send} is {@link SendResult#NOT_CONNECTED}, the cached TX queue is cleared (kernel-semantics §1.4)
     * and, with no route cached, none is cached until it connects again. Does nothing to an unconnected socket but
     * clear its (empty) cache. The same threading rules as {@link #connect}.
     *
     * @throws IllegalStateException if the socket is closed, or another unconnected socket holds its address.
     */
    void disconnect();

    /** TX queue selection state: cached TX queue, recorded RX queue, packets in flight (read-only use). */
    SocketQueueState queueState();

    /** Packets sent and not yet completed by the device (or counted as dropped). */
    long inFlight();

    /** True once {@link #close} has been called. */
    boolean isClosed();

    /**
     * Sends a datagram to the connected peer.
     *
     * @return a positive value if accepted, else a negative {@link SendResult}.
     */
    long send(final DirectBuffer payload, final int offset, final int length);

    /**
     * Sends a datagram to the connected peer, as {@link #send}, and says that another send on this socket follows at
     * once from the same thread (the kernel's {@code xmit_more}): the datagram waits in its TX queue's ring, and the
     * qdisc runs (or its actor is woken) once, for the whole run, at the run's last send, which is a {@link #send},
     * {@link #sendTo} or {@link #reply}. So a burst of datagrams reaches the driver in one {@code tx_burst}. A send
     * that is refused ends the run too. A run left open holds its datagrams until the socket's next send or the
     * TX queue's next turn.
     *
     * @return a positive value if accepted, else a negative {@link SendResult}.
     */
    long sendMore(final DirectBuffer payload, final int offset, final int length);

    /**
     * Sends a datagram to {@code to}, which must be of the socket's family.
     *
     * @return a positive value if accepted, else a negative {@link SendResult}.
     */
    long sendTo(final Endpoint to, final DirectBuffer payload, final int offset, final int length);

    /**
     * Sends a datagram back to the sender of {@code request} (received on this socket), from the address it was
     * sent to. Allocation-free: the fast path of a request/response server. A traced request's reply carries its
     * trace id, so a trace shows both sides of the exchange under one packet id.
     *
     * @return a positive value if accepted, else a negative {@link SendResult}.
     */
    long reply(final ReceivedDatagram request, final DirectBuffer payload, final int offset, final int length);

    /**
     * Closes the socket: it stops receiving, its actor stops and its ring is released. Packets already sent still
     * leave. Blocks until done (a control-plane call), so it cannot be called on an xmit CPU (from a handler, say):
     * that is an {@link IllegalStateException} and the socket stays open.
     */
    @Override
    void close();
}
