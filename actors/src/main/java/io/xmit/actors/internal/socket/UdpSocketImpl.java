package io.xmit.actors.internal.socket;

import io.xmit.actors.Endpoint;
import io.xmit.actors.PortAddress;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.internal.host.HostPath;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.trace.TracePoint;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.EthernetFlyweight;
import io.xmit.pipeline.frame.Ipv4Flyweight;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The pipeline's side of a {@link UdpSocket}: the send path (TX queue selection, ring claim or the qdisc's direct path,
 * frame write, hold bookkeeping for next hops being resolved) and what the RX queue, socket receiver and completions
 * need of a socket.
 */
public final class UdpSocketImpl implements UdpSocket
{
    /** {@link #relay}: the frame is not IPv4, or its port has no ARP. */
    private static final int NO_IPV4_HEADER = -1;
    /** {@link #relay}: the frame's destination MAC stays as its node wrote it. */
    private static final long NO_REWRITE = -2;

    private final int id;
    private final int cpu;
    private final PortContext portContext;
    private final FlowKey local;
    private final boolean wildcard;
    private final boolean reusePort;
    private final int priority;
    private final long sendBufferPackets;
    private final SocketQueueState queueState;
    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final PacketClaim claim = new PacketClaim();
    private final FlowKey scratch = new FlowKey();
    private final PacketPublication receiveRing;
    private final PacketSubscription receiveSubscription;
    private final AtomicCounter sent;
    private final AtomicCounter backPressured;
    private final AtomicCounter refused;
    private final Runnable onClose;
    private final Consumer<Endpoint> onAssociate;
    private final SendGate.Sender sender = new SendGate.Sender();
    /** The qdisc of an open run of {@link #sendMore}, whose frames it has neither run nor been woken for; or null. */
    private QdiscRunner runQdisc;
    /**
     * The qdisc this socket's latest packet was staged on by the direct path, none of its packets having gone into a
     * ring since (every ring claim clears it): no packet of this socket is in that qdisc's band rings, so its next
     * direct send need not read their positions (§4.4a); or null.
     */
    private QdiscRunner streakQdisc;

    private final FlowKey connectedFlow = new FlowKey();
    private volatile Endpoint remote;
    private int connectedHash;
    private int lastFamily;
    private long lastHi;
    private long lastLo;
    private int lastPort = -1;
    private int lastHash;
    private volatile boolean closed;
    private TracePoint trace = TracePoint.NONE;
    /** What the RX queues put into the receive ring, for a member on another node; null for a local socket. */
    private AtomicCounter deliveries;
    /** Datagrams this socket handed to its port's host to hold; written by the sending thread only. */
    private long holdsSent;
    /** Of those, the ones the host has put into a TX queue's ring or dropped; written by the host's thread only. */
    private volatile long holdsDone;
    /** The next hop of the datagrams still with the host, and whether they have more than one (sender's thread). */
    private int holdHop;
    private boolean holdHopsMixed;

    public UdpSocketImpl(
        final int id,
        final int cpu,
        final PortContext portContext,
        final FlowKey local,
        final boolean wildcard,
        final boolean reusePort,
        final int priority,
        final long sendBufferPackets,
        final PacketPublication receiveRing,
        final PacketSubscription receiveSubscription,
        final SocketQueueState queueState,
        final AtomicCounter[] counters,
        final Runnable onClose,
        final Consumer<Endpoint> onAssociate)
    {
        this.id = id;
        this.cpu = cpu;
        this.portContext = portContext;
        this.local = local;
        this.wildcard = wildcard;
        this.reusePort = reusePort;
        this.priority = priority;
        this.sendBufferPackets = sendBufferPackets;
        this.receiveRing = receiveRing;
        this.receiveSubscription = receiveSubscription;
        this.sent = counters[0];
        this.backPressured = counters[1];
        this.refused = counters[2];
        this.queueState = queueState;
        this.onClose = onClose;
        this.onAssociate = onAssociate;
    }

    @Override
    public int id()
    {
        return id;
    }

    @Override
    public int cpu()
    {
        return cpu;
    }

    @Override
    public int port()
    {
        return portContext.port();
    }

    @Override
    public int family()
    {
        return local.family();
    }

    @Override
    public Endpoint local()
    {
        return new Endpoint(local.family(), local.srcHi(), local.srcLo(), local.srcPort());
    }

    @Override
    public boolean isWildcard()
    {
        return wildcard;
    }

    @Override
    public boolean isReusePort()
    {
        return reusePort;
    }

    @Override
    public Endpoint remote()
    {
        return remote;
    }

    @Override
    public SocketQueueState queueState()
    {
        return queueState;
    }

    @Override
    public long inFlight()
    {
        return queueState.inFlight();
    }

    @Override
    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public long send(final DirectBuffer payload, final int offset, final int length)
    {
        if (null == remote)
        {
            return refuse(SendResult.NOT_CONNECTED);
        }
        return transmit(connectedFlow, connectedHash, payload, offset, length, RingFrameHeader.NO_TRACE_ID, false);
    }

    @Override
    public long sendMore(final DirectBuffer payload, final int offset, final int length)
    {
        if (null == remote)
        {
            return refuse(SendResult.NOT_CONNECTED);
        }
        return transmit(connectedFlow, connectedHash, payload, offset, length, RingFrameHeader.NO_TRACE_ID, true);
    }

    @Override
    public long sendTo(final Endpoint to, final DirectBuffer payload, final int offset, final int length)
    {
        return sendTo(to.family(), to.hi(), to.lo(), to.port(), payload, offset, length,
            RingFrameHeader.NO_TRACE_ID);
    }

    @Override
    public long reply(final ReceivedDatagram request, final DirectBuffer payload, final int offset, final int length)
    {
        final FlowKey flow = request.flow();
        return sendTo(flow.family(), flow.srcHi(), flow.srcLo(), flow.srcPort(), payload, offset, length,
            request.traceId());
    }

    private long sendTo(final int family, final long hi, final long lo, final int port, final DirectBuffer payload,
        final int offset, final int length, final long inheritedTrace)
    {
        if (family != local.family())
        {
            return refuse(SendResult.WRONG_FAMILY);
        }
        if (0 == port)
        {
            return refuse(SendResult.NO_DESTINATION_PORT);
        }
        if (FlowKey.FAMILY_IPV4 == family)
        {
            scratch.setIpv4(FlowKey.PROTO_UDP, (int)local.srcLo(), (int)lo, local.srcPort(), port);
        }
        else
        {
            scratch.setIpv6(FlowKey.PROTO_UDP, local.srcHi(), local.srcLo(), hi, lo, local.srcPort(), port);
        }
        return transmit(scratch, flowHash(family, hi, lo, port), payload, offset, length, inheritedTrace, false);
    }

    /** skb_get_hash for an unconnected send (§3.4): computed per destination, cached for repeats of the last one. */
    private int flowHash(final int family, final long hi, final long lo, final int port)
    {
        if (port != lastPort || lo != lastLo || hi != lastHi || family != lastFamily)
        {
            lastFamily = family;
            lastHi = hi;
            lastLo = lo;
            lastPort = port;
            lastHash = portContext.hasher().hash(scratch);
        }
        return lastHash;
    }

    /** @param more another send follows at once ({@link #sendMore}): the qdisc is neither run nor woken yet. */
    private long transmit(final FlowKey flow, final int flowHash, final DirectBuffer payload, final int offset,
        final int length, final long inheritedTrace, final boolean more)
    {
        // Inside the send before looking at the gate and the closed flag, so a stop or a close that sets them and
        // then finds no sender inside knows no send of this socket is in a ring (SendGate).
        if (!sender.enter(portContext.gate()))
        {
            return refuse(SendResult.STOPPED);
        }
        try
        {
            if (closed)
            {
                endRun();
                return refuse(SendResult.CLOSED);
            }
            final long result = claimAndWrite(flow, flowHash, payload, offset, length, inheritedTrace, more);
            if (result < 0)
            {
                // A refused send ends a run: its datagrams must not wait (a full ring would wait for them forever).
                endRun();
            }
            return result;
        }
        finally
        {
            sender.leave();
        }
    }

    private long claimAndWrite(final FlowKey flow, final int flowHash, final DirectBuffer payload, final int offset,
        final int length, final long inheritedTrace, final boolean more)
    {
        if (sendBufferPackets > 0 && queueState.inFlight() >= sendBufferPackets)
        {
            return refuse(SendResult.SEND_BUFFER_FULL);
        }
        final int frameLength = writer.headerLength(flow.family()) + length;
        if (length < 0 || frameLength > portContext.maxFrame())
        {
            return refuse(SendResult.TOO_LONG);
        }
        // Before the claim: a claim left open would block its ring, and every sender on that TX queue behind it.
        Objects.requireNonNull(payload, "payload");
        if (offset < 0 || offset > payload.capacity() - length)
        {
            throw new IndexOutOfBoundsException("payload [" + offset + ", " + ((long)offset + length) +
                ") is not inside the " + payload.capacity() + "-byte buffer");
        }

        // ooo_okay is decided before this packet's own charge (§1.5), and the pick may re-cache the queue (§1.2).
        final boolean oooOkay = queueState.oooOkay();
        final int picked = TxQueueSelector.pickTx(
            portContext.queueMap(), queueState, CpuThread.currentCpu(), flowHash);
        final int txq = TxQueueSelector.queue(picked);
        final PortAddress address = portContext.address();
        final HostPath host = portContext.host();
        // With ARP, the next hop's MAC comes from the host actor's snapshot; until it is known the frame
        // goes to the host actor, which holds it while the next hop resolves, and sends it on TX queue txq.
        final boolean viaHost = null != host && FlowKey.FAMILY_IPV4 == flow.family();
        final long destinationMac = viaHost ? host.resolve((int)flow.dstLo()) : address.peerMac();
        final boolean hold = HostPath.UNRESOLVED == destinationMac;
        if (viaHost && holdsPending() && !hold && mayOvertakeHeld(host.nextHop((int)flow.dstLo())))
        {
            // The next hop has resolved, but the host has not yet sent what this socket handed it: going around it
            // now could overtake those, so the sender waits for it (a retry, as for a full ring).
            backPressured.incrementRelease();
            return SendResult.BACK_PRESSURED;
        }
        final QdiscRunner qdisc = hold ? null : portContext.qdisc(txq);
        // The direct path (§4.4a): an open run on another qdisc ends first, as a commit would end it.
        final int direct = null != qdisc && qdisc.senderBypass() ? tryDirect(qdisc) : QdiscRunner.NO_DIRECT;
        final MutableDirectBuffer buffer;
        final int at;
        final long result;
        if (QdiscRunner.NO_DIRECT != direct)
        {
            buffer = qdisc.staging();
            at = direct;
            result = frameLength;
        }
        else
        {
            result = claimOrRefuse(hold ? host.holdRing() : portContext.qdiscRing(txq, priority), frameLength);
            if (result < 0)
            {
                return result;
            }
            buffer = claim.buffer();
            at = claim.frameOffset();
        }

        final int written;
        try
        {
            written = writer.write(buffer, at, hold ? 0 : destinationMac, address.mac(), flow, payload, offset, length);
        }
        catch (final RuntimeException | Error ex)
        {
            // The payload's own buffer failed to read (a DirectBuffer of the caller's, or a fault on a mapped file):
            // the space goes back, or the ring (the qdisc, on the direct path) would stay blocked behind it.
            abandon(qdisc, direct);
            throw ex;
        }
        if (written != frameLength)
        {
            abandon(qdisc, direct);
            throw new IllegalStateException("the frame writer wrote " + written + " of " + frameLength + " bytes");
        }
        if (hold)
        {
            // Outside the books until the host actor puts it into a TX queue's ring (it counts it then).
            claim.putHeader(flowHash, id, priority, txq, HostPath.KIND_HOLD, RingFrameHeader.NO_TRACE_ID, 0);
            queueState.packetSent();
            noteHold(host.nextHop((int)flow.dstLo()));
            holdsSent++;
            claim.commit();
            return result;
        }
        final long traceId = RingFrameHeader.NO_TRACE_ID != inheritedTrace ? inheritedTrace :
            flow == connectedFlow ? trace.selectStable(flow, id) : trace.select(flow, id);
        if (QdiscRunner.NO_DIRECT == direct)
        {
            claim.putHeader(flowHash, id, priority, RingFrameHeader.NO_RX_QUEUE,
                oooOkay ? RingFrameHeader.FLAG_OOO_OKAY : 0, traceId, 0);
        }
        if (RingFrameHeader.NO_TRACE_ID != traceId)
        {
            trace.sent(traceId, picked, id, traceId == inheritedTrace, buffer, at, frameLength);
        }
        queueState.packetSent();
        // Counted before the commit makes it visible: whoever reads the books sees no frame taken that was not sent.
        sent.incrementRelease();
        // The packet is queued, whatever happens next: the send's result stands even if a turn run here fails.
        if (QdiscRunner.NO_DIRECT != direct)
        {
            runQdisc = more ? qdisc : null;
            streakQdisc = qdisc;
            qdisc.directCommit(at, frameLength, priority, id, traceId, more);
        }
        else
        {
            commitToQdisc(qdisc, more);
        }
        return result;
    }

    /**
     * The direct path's admission for this send (§4.4a): an open run of {@link #sendMore} on another qdisc is ended
     * first (its qdisc runs or is woken), as a commit to this one would end it.
     *
     * @return the offset in the qdisc's staging to write the frame at, the run token held; or
     * {@link QdiscRunner#NO_DIRECT}.
     */
    private int tryDirect(final QdiscRunner qdisc)
    {
        if (qdisc != runQdisc)
        {
            endRun();
        }
        return qdisc.tryDirect(qdisc == streakQdisc);
    }

    /** Gives back what a send whose frame could not be written took: its ring claim, or the qdisc's run token. */
    private void abandon(final QdiscRunner qdisc, final int direct)
    {
        if (QdiscRunner.NO_DIRECT != direct)
        {
            qdisc.directAbort();
        }
        else
        {
            claim.abort();
        }
    }

    /**
     * Sends a frame another node wrote for this socket (a member on that node, whose sends arrive over the data
     * plane): copied as it is into TX queue {@code txq}'s qdisc ring of the frame's band, counted as this socket's
     * send, with this socket's id in the header so that its completion comes back here. The same gate, results and
     * books as {@link #send}.
     * <p>
     * On a port with ARP the node cannot know the next hop's MAC, so an IPv4 frame gets it here, as a local send
     * does: resolved, it is written over the frame's destination MAC in the ring; not yet, the frame goes to the
     * port's host to hold for that neighbour, and leaves on TX queue {@code txq} once it resolves (or is dropped and
     * counted under a {@code neigh_drop_*} reason). A held frame is outside the books until the host sends it, as a
     * local socket's is. A frame that could overtake one of this socket's still held is refused as
     * {@link SendResult#BACK_PRESSURED}, to be retried.
     *
     * @return the ring position (positive) if accepted, else {@link SendResult#STOPPED}, {@link SendResult#CLOSED},
     * {@link SendResult#TOO_LONG}, {@link SendResult#BACK_PRESSURED} (nothing was copied: retry it) or another
     * refusal of the ring.
     * @throws IllegalArgumentException if {@code txq} is not one of the port's TX queues.
     */
    public long relay(final int txq, final RingFrameHeader header, final DirectBuffer frame, final int frameOffset,
        final int frameLength)
    {
        if (txq < 0 || txq >= portContext.queueMap().numTxQueues())
        {
            throw new IllegalArgumentException("TX queue " + txq + " is not in 0.." +
                (portContext.queueMap().numTxQueues() - 1));
        }
        if (!sender.enter(portContext.gate()))
        {
            return refuse(SendResult.STOPPED);
        }
        try
        {
            if (closed)
            {
                return refuse(SendResult.CLOSED);
            }
            if (frameLength > portContext.maxFrame())
            {
                return refuse(SendResult.TOO_LONG);
            }
            final HostPath host = portContext.host();
            final int ipv4At = null != host && portContext.address().arp() ?
                ipv4HeaderAt(frame, frameOffset, frameLength) : NO_IPV4_HEADER;
            final int destination = NO_IPV4_HEADER == ipv4At ? 0 :
                frame.getInt(ipv4At + Ipv4Flyweight.DESTINATION_OFFSET, ByteOrder.BIG_ENDIAN);
            final long destinationMac = NO_IPV4_HEADER == ipv4At ? NO_REWRITE : host.resolve(destination);
            final boolean hold = HostPath.UNRESOLVED == destinationMac;
            if (NO_IPV4_HEADER != ipv4At && holdsPending() && !hold && mayOvertakeHeld(host.nextHop(destination)))
            {
                backPressured.incrementRelease();
                return SendResult.BACK_PRESSURED;
            }
            final PacketPublication ring = hold ? host.holdRing() : portContext.qdiscRing(txq, header.priority());
            final long result = claimOrRefuse(ring, frameLength);
            if (result < 0)
            {
                return result;
            }
            try
            {
                if (hold)
                {
                    claim.putHeader(header.flowHash(), id, header.priority(), txq, HostPath.KIND_HOLD,
                        RingFrameHeader.NO_TRACE_ID, 0);
                }
                else
                {
                    claim.putHeader(header.flowHash(), id, header.priority(), RingFrameHeader.NO_RX_QUEUE,
                        header.flags(), header.traceId(), 0);
                }
                claim.buffer().putBytes(claim.frameOffset(), frame, frameOffset, frameLength);
            }
            catch (final RuntimeException ex)
            {
                claim.abort();
                throw ex;
            }
            if (hold)
            {
                // Outside the books until the host actor puts it into TX queue txq's ring (it counts it then).
                queueState.packetSent();
                noteHold(host.nextHop(destination));
                holdsSent++;
                claim.commit();
                return result;
            }
            if (NO_REWRITE != destinationMac)
            {
                EthernetFlyweight.putMac(claim.buffer(), claim.frameOffset() + EthernetFlyweight.DESTINATION_OFFSET,
                    destinationMac);
            }
            queueState.packetSent();
            sent.incrementRelease();
            claim.commit();
            return result;
        }
        finally
        {
            sender.leave();
        }
    }

    /**
     * Where the IPv4 header of a relayed frame starts (after an untagged or an 802.1Q-tagged Ethernet header), or
     * {@link #NO_IPV4_HEADER} if the frame is not IPv4 or too short to hold the header's destination.
     */
    private static int ipv4HeaderAt(final DirectBuffer frame, final int frameOffset, final int frameLength)
    {
        if (frameLength < EthernetFlyweight.HEADER_LENGTH)
        {
            return NO_IPV4_HEADER;
        }
        int ethertype = frame.getShort(frameOffset + EthernetFlyweight.ETHERTYPE_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int headerLength = EthernetFlyweight.HEADER_LENGTH;
        if (EthernetFlyweight.ETHERTYPE_VLAN == ethertype && frameLength >= EthernetFlyweight.VLAN_HEADER_LENGTH)
        {
            ethertype = frame.getShort(frameOffset + EthernetFlyweight.VLAN_ETHERTYPE_OFFSET, ByteOrder.BIG_ENDIAN) &
                0xFFFF;
            headerLength = EthernetFlyweight.VLAN_HEADER_LENGTH;
        }
        return EthernetFlyweight.ETHERTYPE_IPV4 == ethertype &&
            frameLength >= headerLength + Ipv4Flyweight.MIN_HEADER_LENGTH ? frameOffset + headerLength : NO_IPV4_HEADER;
    }

    /**
     * Commits the claimed frame into its qdisc's ring (§4.4): within a run of {@link #sendMore}, without running or
     * waking the qdisc (xmit_more, §6.4); at a run's end, through the qdisc's runner, which runs a turn in this
     * sender's context for all of the run's frames, or rings its actor. A run that moved to another TX queue ends
     * on the one it left.
     */
    private void commitToQdisc(final QdiscRunner qdisc, final boolean more)
    {
        if (qdisc != runQdisc)
        {
            endRun();
        }
        if (more)
        {
            claim.commitWithoutRing();
            runQdisc = qdisc;
            return;
        }
        runQdisc = null;
        qdisc.commit(claim);
    }

    /** Ends an open run of {@link #sendMore}: its qdisc runs or is woken for the frames the run left in its rings. */
    private void endRun()
    {
        final QdiscRunner qdisc = runQdisc;
        if (null != qdisc)
        {
            runQdisc = null;
            qdisc.afterCommit();
        }
    }

    /**
     * Whether a datagram to the resolved {@code nextHop} sent directly could overtake one of this socket's still with
     * the host: yes if the host holds some for that next hop, or for more than one (which ones is not tracked).
     */
    private boolean mayOvertakeHeld(final int nextHop)
    {
        return holdHopsMixed || nextHop == holdHop;
    }

    /**
     * Whether the host still has datagrams of this socket. A difference, not an equality: were a failure in the host
     * ever to report one twice, the socket must not wait for it forever.
     */
    private boolean holdsPending()
    {
        return holdsSent - holdsDone > 0;
    }

    /** A datagram for {@code nextHop} goes to the host to hold: which next hops the host now has of this socket. */
    private void noteHold(final int nextHop)
    {
        if (!holdsPending())
        {
            holdHop = nextHop;
            holdHopsMixed = false;
        }
        else if (nextHop != holdHop)
        {
            holdHopsMixed = true;
        }
    }

    /**
     * Claims {@code frameLength} bytes of {@code ring} for a send. A refusal comes back negative, as the send's
     * result, and counted: a full ring (or Aeron's admin action) as back-pressure, anything else as refused.
     */
    private long claimOrRefuse(final PacketPublication ring, final int frameLength)
    {
        // A packet of this socket may be in a ring from here on: its next direct send reads the rings' positions.
        streakQdisc = null;
        final long result = ring.tryClaimRetrying(frameLength, claim);
        if (result >= 0)
        {
            return result;
        }
        if (PacketPublication.BACK_PRESSURED == result || PacketPublication.ADMIN_ACTION == result)
        {
            backPressured.incrementRelease();
            return SendResult.BACK_PRESSURED;
        }
        return refuse(result);
    }

    private long refuse(final long result)
    {
        refused.incrementRelease();
        return result;
    }

    @Override
    public void connect(final Endpoint peer)
    {
        Objects.requireNonNull(peer, "peer");
        onAssociate.accept(peer);
    }

    @Override
    public void disconnect()
    {
        onAssociate.accept(null);
    }

    /**
     * Sets the peer without touching the socket table, which the caller updates ({@code SocketLifecycle}): with
     * {@code peer} the socket is connected, {@link #send} goes to it, the socket caches its TX queue (§1.2) and
     * records the RX queue its datagrams arrive on (§2.4); with null it is disconnected. Either way the dst changes, so
     * the cached TX queue is cleared (§1.4).
     *
     * @throws IllegalArgumentException if {@code peer} is not of the socket's family; nothing has changed then.
     */
    public void setPeer(final Endpoint peer)
    {
        if (null == peer)
        {
            remote = null;
            queueState.disconnect();
            return;
        }
        if (peer.family() != local.family())
        {
            throw new IllegalArgumentException("cannot connect an IPv" + local.family() + " socket to " + peer);
        }
        if (FlowKey.FAMILY_IPV4 == peer.family())
        {
            connectedFlow.setIpv4(FlowKey.PROTO_UDP, (int)local.srcLo(), (int)peer.lo(), local.srcPort(), peer.port());
        }
        else
        {
            connectedFlow.setIpv6(FlowKey.PROTO_UDP, local.srcHi(), local.srcLo(), peer.hi(), peer.lo(),
                local.srcPort(), peer.port());
        }
        // §3.4: the 5-tuple's hash, not a random sk_txhash per connect (a departure kernel-semantics.md states).
        connectedHash = portContext.hasher().hash(connectedFlow);
        queueState.connect();
        remote = peer;
    }

    public FlowKey localKey()
    {
        return local;
    }

    public PacketPublication receiveRing()
    {
        return receiveRing;
    }

    public PacketSubscription receiveSubscription()
    {
        return receiveSubscription;
    }

    /** TX completions (or counted drops) of {@code packets} of this socket's packets; any thread. */
    public void packetsCompleted(final int packets)
    {
        queueState.packetsCompleted(packets);
    }

    /** The datagrams this socket handed to its port's host to hold; on the sending thread. */
    public long holdsSent()
    {
        return holdsSent;
    }

    /**
     * The host has put a datagram this socket handed over to hold into a TX queue's ring, or dropped it; on the
     * host's thread, after that ring's commit.
     */
    public void holdDone()
    {
        holdsDone = holdsDone + 1;
    }

    /**
     * Counts what the RX queues put into this socket's receive ring in {@code counter}: for a member on another node,
     * whose ring is read there (a local socket's receiver counts what it reads). Set once, before the socket is filed.
     */
    public void countDeliveries(final AtomicCounter counter)
    {
        deliveries = counter;
    }

    /** True for a member on another node: its receive ring goes to that node. */
    public boolean isRemote()
    {
        return null != deliveries;
    }

    /** An RX queue put a datagram into this socket's ring; counted only for a member on another node. */
    public void countDelivered()
    {
        final AtomicCounter counter = deliveries;
        if (null != counter)
        {
            // Every RX queue a steered member's flows arrive on counts here, from its own thread: an atomic add, as
            // a single writer's release-increment would lose a count to another queue's.
            counter.increment();
        }
    }

    /** The RX path's sk_mark_napi_id (§2.4): only connected sockets record it. */
    public void recordRxQueue(final int rxQueue)
    {
        queueState.recordRxQueue(rxQueue);
    }

    /** The tracing hooks of this socket (its sends and its receive side), set once before it is used. */
    public void trace(final TracePoint point)
    {
        trace = point;
    }

    public TracePoint tracePoint()
    {
        return trace;
    }

    public SendGate.Sender sender()
    {
        return sender;
    }

    /** What this socket has sent, for the pipeline's books. */
    public long sentCount()
    {
        return sent.get();
    }

    public void markClosed()
    {
        closed = true;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            onClose.run();
        }
    }

    @Override
    public String toString()
    {
        return "UdpSocket{id=" + id + ", port=" + port() + ", cpu=" + cpu + ", local=" + local() +
            (wildcard ? " (any address)" : "") + (reusePort ? " (reuseport)" : "") + ", remote=" + remote + ", " + queueState + "}";
    }
}
