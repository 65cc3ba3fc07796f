package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.pipeline.xps.XpsMask;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;

import org.agrona.DirectBuffer;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A socket of an app node that is a member of an edge's reuseport group ({@link DataPlaneMessage.SocketBound}): it
 * receives what the edge's RX queues steer to it (read by its {@link RemoteSocketReceiver}), and sends as a socket of
 * the edge's pipeline would, over the edge's queue map: the TX queue is picked by {@link TxQueueSelector#pickTx}
 * (the RX queue recorded from the frames it receives, then the flow hash; XPS by sending CPU has no meaning on
 * another node), the Ethernet/IP/UDP frame is written in place into that TX queue's UDP stream to the edge, with the
 * edge's socket id in the header. Results are {@link SendResult}'s: a full stream (the edge's qdisc or relay behind)
 * is {@link SendResult#BACK_PRESSURED}; the edge not receiving is Aeron's {@code NOT_CONNECTED} (-1).
 * <p>
 * Unconnected (as a reuseport member starts), {@link #send} is {@link SendResult#NOT_CONNECTED} and every send is a
 * fresh pick (§1.2, §1.4: no cached queue, no recorded RX queue). {@link #connect} to one peer gives it the route a
 * local connected socket has: {@link #send} goes to the peer, the TX queue picked is cached (§1.2), and the RX queue
 * of each datagram it receives is recorded (§2.4), so XPS by RX queue picks its replies' queue. The edge learns each
 * connect and disconnect ({@link DataPlaneMessage.SocketPeer}, one message each): connected, its member there is
 * filed under the exact 4-tuple and out of the group's steering, so it receives its peer's datagrams and no other
 * peer's, as a connected kernel socket in a reuseport group does.
 * <p>
 * Its packets in flight are its sends the edge has not completed yet: each send counts one, and the edge's
 * {@link DataPlaneMessage.Completions} (its relay's, at most every {@link TxRelay#COMPLETIONS_AFTER} while packets
 * are in flight) count them down, so the cached queue stays while packets are in flight and a send may move once
 * none is (ooo_okay, §1.5). The cache never ages by time: a remote socket has no pipeline clock ({@code
 * txq-reselection} is the edge's setting, §1.6). One thread at a time sends; sending allocates nothing.
 */
public final class RemoteUdpSocket implements UdpSocket
{
    private final DataPlaneMessage.SocketBound bound;
    private final PacketPublication[] txStreams;
    private volatile QueueMap queueMap;
    private final FlowHasher hasher;
    private final FlowKey local = new FlowKey();
    private final FlowKey scratch = new FlowKey();
    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final PacketClaim claim = new PacketClaim();
    private final SocketQueueState queueState = new SocketQueueState();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean closed;
    private volatile Endpoint peer;
    /** Takes each connect and disconnect to the edge. */
    private final Consumer<DataPlaneMessage.SocketPeer> toEdge;
    /** The edge's completion count last applied: the edge reports totals, the socket counts the difference. */
    private long completedUpTo;

    /** @param toEdge takes each connect and disconnect to the edge, in order with the node's other messages. */
    RemoteUdpSocket(final DataPlaneMessage.SocketBound bound, final PacketPublication[] txStreams,
        final FlowHasher hasher, final Consumer<DataPlaneMessage.SocketPeer> toEdge)
    {
        this.bound = bound;
        this.txStreams = txStreams;
        this.hasher = hasher;
        this.toEdge = toEdge;
        this.queueMap = queueMap(bound.realNumTx(), bound.rxQueues(), bound.xpsRxqs(), txStreams.length);
        local.setIpv4(FlowKey.PROTO_UDP, bound.ipv4(), 0, bound.localPort(), 0);
    }

    /**
     * The edge's queue map as far as a remote sender uses it: the real TX queue count (at most {@code txQueues},
     * the TX streams), the RX queue count and {@code xps_rxqs}.
     */
    static QueueMap queueMap(final int realNumTx, final int rxQueues, final long[] xps, final int txQueues)
    {
        QueueMap map = QueueMap.create(txQueues, 1, Math.max(1, rxQueues))
            .withRealNumTx(Math.clamp(realNumTx, 1, txQueues));
        for (int q = 0; q < xps.length && q < map.realNumTx(); q++)
        {
            if (0 != xps[q])
            {
                map = map.withXpsRxqs(q, XpsMask.of(rxQueues, bits(xps[q])));
            }
        }
        return map;
    }

    /**
     * The edge's port changed its queue map: sends pick their TX queue by the new one from the next on. A
     * control-plane call (it builds the map); a send running meanwhile uses the old or the new map whole.
     */
    void changeQueueMap(final DataPlaneMessage.QueueMapChanged change)
    {
        queueMap = queueMap(change.realNumTx(), change.rxQueues(), change.xpsRxqs(), txStreams.length);
    }

    /** The queue map its sends pick by now. */
    QueueMap queueMap()
    {
        return queueMap;
    }

    private static int[] bits(final long word)
    {
        final int[] bits = new int[Long.bitCount(word)];
        long w = word;
        for (int i = 0; i < bits.length; i++)
        {
            bits[i] = Long.numberOfTrailingZeros(w);
            w &= w - 1;
        }
        return bits;
    }

    /** The id of this socket's member in the edge's pipeline (carried in every frame it sends). */
    @Override
    public int id()
    {
        return bound.socketId();
    }

    @Override
    public int cpu()
    {
        return CpuThread.NO_CPU;
    }

    /** The edge's device port its group is bound on. */
    @Override
    public int port()
    {
        return bound.port();
    }

    @Override
    public int family()
    {
        return FlowKey.FAMILY_IPV4;
    }

    @Override
    public Endpoint local()
    {
        return new Endpoint(FlowKey.FAMILY_IPV4, 0, local.srcLo(), local.srcPort());
    }

    @Override
    public boolean isWildcard()
    {
        return false;
    }

    @Override
    public boolean isReusePort()
    {
        return true;
    }

    @Override
    public Endpoint remote()
    {
        return peer;
    }

    /**
     * Connects to {@code peer}: a new route, so the cached TX queue is cleared (§1.4) and the next send caches its
     * pick. Another peer later is another route, cleared again. The edge is told: from when it has handled that, the
     * peer's datagrams come to this socket and no other peer's.
     *
     * @throws IllegalArgumentException if the peer is not IPv4 or has no port.
     */
    @Override
    public void connect(final Endpoint peer)
    {
        Objects.requireNonNull(peer, "peer");
        if (FlowKey.FAMILY_IPV4 != peer.family() || 0 == peer.port())
        {
            throw new IllegalArgumentException("socket " + id() + " of service '" + bound.service() + "' cannot " +
                "connect to " + peer + ": a remote socket connects to an IPv4 address and a port other than 0");
        }
        this.peer = peer;
        queueState.connect();
        toEdge.accept(DataPlaneMessage.SocketPeer.of(id(), peer));
    }

    /**
     * No route any more: nothing cached (§1.4) and {@link #send} is {@link SendResult#NOT_CONNECTED} again; the edge
     * steers the group's flows to it again.
     */
    @Override
    public void disconnect()
    {
        peer = null;
        queueState.disconnect();
        toEdge.accept(DataPlaneMessage.SocketPeer.of(id(), null));
    }

    @Override
    public SocketQueueState queueState()
    {
        return queueState;
    }

    /** Sent and not yet completed by the edge, as far as its last {@link DataPlaneMessage.Completions} says. */
    @Override
    public long inFlight()
    {
        return queueState.inFlight();
    }

    /**
     * The edge has completed {@code completed} of this socket's sends in all (its relay's report): the difference
     * from the last report is counted down. On the node's data-plane actor; a smaller total (a report overtaken) is
     * ignored.
     */
    void completedUpTo(final long completed)
    {
        if (completed > completedUpTo)
        {
            queueState.packetsCompleted(completed - completedUpTo);
            completedUpTo = completed;
        }
    }

    @Override
    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public long send(final DirectBuffer payload, final int offset, final int length)
    {
        final Endpoint to = peer;
        if (null == to)
        {
            return refuse(SendResult.NOT_CONNECTED);
        }
        return sendTo(to.family(), to.lo(), to.port(), payload, offset, length, RingFrameHeader.NO_TRACE_ID);
    }

    /** As {@link #send}: its frames cross the data plane one by one. */
    @Override
    public long sendMore(final DirectBuffer payload, final int offset, final int length)
    {
        return send(payload, offset, length);
    }

    @Override
    public long sendTo(final Endpoint to, final DirectBuffer payload, final int offset, final int length)
    {
        return sendTo(to.family(), to.lo(), to.port(), payload, offset, length, RingFrameHeader.NO_TRACE_ID);
    }

    @Override
    public long reply(final ReceivedDatagram request, final DirectBuffer payload, final int offset, final int length)
    {
        final FlowKey flow = request.flow();
        return sendTo(flow.family(), flow.srcLo(), flow.srcPort(), payload, offset, length, request.traceId());
    }

    /** Sends refused from now on ({@link SendResult#CLOSED}); the node's data plane unbinds the socket. */
    @Override
    public void close()
    {
        closed = true;
    }

    /** Datagrams accepted into the TX streams. */
    public long sent()
    {
        return sent.get();
    }

    /** Sends refused for a full TX stream. */
    public long backPressured()
    {
        return backPressured.get();
    }

    /** Sends refused for any other reason. */
    public long refused()
    {
        return refused.get();
    }

    /** The receive path's sk_mark_napi_id (§2.4): the RX queue the edge received the datagram on. */
    void recordRxQueue(final int rxQueue)
    {
        queueState.recordRxQueue(rxQueue);
    }

    private long sendTo(final int family, final long lo, final int port, final DirectBuffer payload, final int offset,
        final int length, final long traceId)
    {
        if (closed)
        {
            return refuse(SendResult.CLOSED);
        }
        if (FlowKey.FAMILY_IPV4 != family)
        {
            return refuse(SendResult.WRONG_FAMILY);
        }
        if (0 == port)
        {
            return refuse(SendResult.NO_DESTINATION_PORT);
        }
        final int frameLength = writer.headerLength(family) + length;
        if (length < 0 || frameLength > bound.maxFrameLength())
        {
            return refuse(SendResult.TOO_LONG);
        }
        Objects.requireNonNull(payload, "payload");
        if (offset < 0 || offset > payload.capacity() - length)
        {
            throw new IndexOutOfBoundsException("payload [" + offset + ", " + ((long)offset + length) +
                ") is not inside the " + payload.capacity() + "-byte buffer");
        }
        scratch.setIpv4(FlowKey.PROTO_UDP, (int)local.srcLo(), (int)lo, local.srcPort(), port);
        final int flowHash = hasher.hash(scratch);
        final int txq = TxQueueSelector.queue(TxQueueSelector.pickTx(queueMap, queueState, CpuThread.NO_CPU,
            flowHash));
        final long result = txStreams[txq].tryClaimRetrying(frameLength, claim);
        if (result < 0)
        {
            if (PacketPublication.BACK_PRESSURED == result || PacketPublication.ADMIN_ACTION == result)
            {
                backPressured.incrementAndGet();
                return SendResult.BACK_PRESSURED;
            }
            return refuse(PacketPublication.FRAME_TOO_LONG == result ? SendResult.TOO_LONG : result);
        }
        try
        {
            final int written = writer.write(claim.buffer(), claim.frameOffset(), bound.destinationMac(),
                bound.sourceMac(), scratch, payload, offset, length);
            if (written != frameLength)
            {
                throw new IllegalStateException("the frame writer wrote " + written + " of " + frameLength + " bytes");
            }
            claim.putHeader(flowHash, bound.socketId(), 0, RingFrameHeader.NO_RX_QUEUE, 0, traceId, 0);
        }
        catch (final RuntimeException ex)
        {
            claim.abort();
            throw ex;
        }
        // ooo_okay was read by the pick above, before this packet's own charge (§1.5).
        queueState.packetSent();
        sent.incrementAndGet();
        claim.commit();
        return result;
    }

    private long refuse(final long result)
    {
        refused.incrementAndGet();
        return result;
    }

    @Override
    public String toString()
    {
        return "RemoteUdpSocket{id=" + id() + ", service=" + bound.service() + ", index=" + bound.index() +
            ", local=" + local() + "}";
    }
}
