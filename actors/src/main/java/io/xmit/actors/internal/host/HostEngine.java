package io.xmit.actors.internal.host;

import io.xmit.actors.PortAddress;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.Checksums;
import io.xmit.pipeline.frame.EthernetFlyweight;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFlyweight;
import io.xmit.pipeline.host.ArpFrames;
import io.xmit.pipeline.host.ArpStatus;
import io.xmit.pipeline.host.HoldResult;
import io.xmit.pipeline.host.IcmpFrames;
import io.xmit.pipeline.host.IcmpRateLimiter;
import io.xmit.pipeline.host.IcmpVerdict;
import io.xmit.pipeline.host.NeighbourConfig;
import io.xmit.pipeline.host.NeighbourDrop;
import io.xmit.pipeline.host.NeighbourHandler;
import io.xmit.pipeline.host.NeighbourState;
import io.xmit.pipeline.host.NeighbourTable;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.DirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The host of one port, run by its {@link HostActor} on CPU 0: drains the port's host ring and answers
 * what a kernel peer expects of a host on its link.
 * <ul>
 * <li>ARP (RFC 826): learns senders into its {@link NeighbourTable}, answers requests for the port's IPv4 address,
 * and resolves next hops for senders, holding their frames (bounded, drops counted) until the neighbour answers;
 * the resolved neighbours are published to senders as a {@link NextHops} snapshot;</li>
 * <li>ICMP echo requests to the port's address get echo replies;</li>
 * <li>UDP to a closed port gets Destination Unreachable / Port Unreachable, within the global ICMP rate limit
 * (suppressed ones counted).</li>
 * </ul>
 * Answers leave on the TX queue XPS maps the RX queue they answer to (else RX queue mod TX queues), ARP requests on
 * TX queue 0, held frames on the queue their socket picked. Each goes through that queue's ring like a socket's frame,
 * with socket id 0, which no socket has ({@link SocketTable#byId} ignores it at completion). What it puts into rings
 * counts in the pipeline's books as accepted ({@link #sent()}). Nothing allocates per frame, except a new snapshot
 * when the neighbours change.
 * <p>
 * Over 500 lines on purpose: ARP, ICMP and the held frames share one ring, one neighbour table and one set of
 * books, so they stay in one engine.
 */
public final class HostEngine implements NeighbourHandler, StageEngine
{
    /** The socket id of the host's own frames: socket ids start at 1. */
    static final int HOST_SOCKET_ID = 0;

    private static final int POLL_LIMIT = 64;
    /** How often the senders' use marks are handed to the neighbour table (Linux's DELAY state waits 5 s). */
    private static final long USE_SCAN_NANOS = 1_000_000_000L;
    private static final long NO_MAC = -1;
    /** No datagram handed over to hold is being handled. */
    private static final long NO_TAG = -1;

    private final PortContext port;
    private final HostPath path;
    private final PortAddress address;
    private final PacketSubscription ring;
    private final PacketSubscription holdRing;
    private final SocketTable sockets;
    private final NeighbourTable table;
    private final IcmpRateLimiter limiter;
    private final ArpFrames arp = new ArpFrames();
    private final IcmpFrames icmp = new IcmpFrames();
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final PacketClaim claim = new PacketClaim();
    private final UnsafeBuffer out;
    /** A received datagram whose partial checksum the host finished ({@link #finishPartialChecksum}). */
    private final UnsafeBuffer finished;
    private final UdpFlyweight udp = new UdpFlyweight();
    private final PacketHandler onFrame = this::onFrame;
    private final PacketHandler ignoreFrame = (header, buffer, offset, length) -> { };
    private final PacketHandler dropHeldFrame = this::onHeldFrameAtStop;
    private final Long2LongHashMap resolved = new Long2LongHashMap(NO_MAC);
    private final CrashSwitch crash = new CrashSwitch("host");
    /** A frame is being handled: if a turn fails while this is set, that frame's handling threw. */
    private boolean inFrame;
    /** The tag of the datagram to hold being handled, until the neighbour table has decided its fate. */
    private long holdTag = NO_TAG;
    private boolean changed;
    private long now;
    private long lastUseScan;

    private final AtomicCounter received;
    private final AtomicCounter receivedFrames;
    private final AtomicCounter[] transmitted;
    private final AtomicCounter txRingFull;
    private final AtomicCounter arpReplies;
    private final AtomicCounter arpRequests;
    private final AtomicCounter echoReplies;
    private final AtomicCounter portUnreachable;
    private final AtomicCounter rateLimited;
    private final AtomicCounter ignored;
    private final AtomicCounter failed;
    private final AtomicCounter held;
    private final AtomicCounter holdFailed;
    private final AtomicCounter[] neighbourDrops = new AtomicCounter[NeighbourDrop.values().length];

    public HostEngine(
        final PortContext port,
        final HostPath path,
        final PacketSubscription ring,
        final PacketSubscription holdRing,
        final SocketTable sockets,
        final int txCount,
        final CountersFile counters)
    {
        this.port = port;
        this.path = path;
        this.address = path.address();
        this.ring = ring;
        this.holdRing = holdRing;
        this.sockets = sockets;
        this.out = new UnsafeBuffer(new byte[Math.max(port.maxFrame(), NeighbourConfig.DEFAULT_MAX_FRAME_LENGTH)]);
        this.finished = new UnsafeBuffer(new byte[out.capacity()]);
        final NeighbourConfig defaults = NeighbourConfig.defaults();
        table = new NeighbourTable(new NeighbourConfig(defaults.capacity(), defaults.reachableNanos(),
            defaults.retransNanos(), defaults.maxProbes(), defaults.holdPerNeighbour(), out.capacity()), this);
        limiter = new IcmpRateLimiter();
        final CounterScope scope = CounterScope.port(port.port());
        received = counters.allocate(CounterType.HOST_RX, scope);
        receivedFrames = counters.allocate(CounterType.HOST_RX_FRAMES, scope);
        transmitted = new AtomicCounter[txCount];
        for (int q = 0; q < txCount; q++)
        {
            transmitted[q] = counters.allocate(CounterType.HOST_TX, CounterScope.txq(port.port(), q));
        }
        txRingFull = counters.allocate(CounterType.HOST_TX_DROP_RING_FULL, scope);
        arpReplies = counters.allocate(CounterType.HOST_ARP_REPLIES, scope);
        arpRequests = counters.allocate(CounterType.HOST_ARP_REQUESTS, scope);
        echoReplies = counters.allocate(CounterType.HOST_ICMP_ECHO_REPLIES, scope);
        portUnreachable = counters.allocate(CounterType.HOST_ICMP_PORT_UNREACHABLE, scope);
        rateLimited = counters.allocate(CounterType.HOST_ICMP_RATE_LIMITED, scope);
        ignored = counters.allocate(CounterType.HOST_IGNORED, scope);
        failed = counters.allocate(CounterType.HOST_DROP_FAILED, scope);
        held = counters.allocate(CounterType.NEIGH_HELD, scope);
        holdFailed = counters.allocate(CounterType.NEIGH_DROP_FAILED, scope);
        neighbourDrops[NeighbourDrop.HOLD_FULL.ordinal()] = counters.allocate(CounterType.NEIGH_DROP_HOLD_FULL, scope);
        neighbourDrops[NeighbourDrop.UNRESOLVED.ordinal()] =
            counters.allocate(CounterType.NEIGH_DROP_UNRESOLVED, scope);
        neighbourDrops[NeighbourDrop.TABLE_FULL.ordinal()] =
            counters.allocate(CounterType.NEIGH_DROP_TABLE_FULL, scope);
        neighbourDrops[NeighbourDrop.BAD_LENGTH.ordinal()] =
            counters.allocate(CounterType.NEIGH_DROP_BAD_LENGTH, scope);
        neighbourDrops[NeighbourDrop.SHUTDOWN.ordinal()] = counters.allocate(CounterType.NEIGH_DROP_SHUTDOWN, scope);
    }

    /**
     * One turn: frames from the host ring, then the neighbour table's timers (requests to repeat, resolutions that
     * failed), then, once a second, which stale neighbours senders use.
     *
     * @return frames taken and requests or failures reported.
     */
    @Override
    public int poll()
    {
        crash.load();
        now = System.nanoTime();
        // What arrived first (an ARP reply resolves what the senders hold), then what the senders hand over.
        int work = ring.poll(onFrame, POLL_LIMIT);
        work += holdRing.poll(onFrame, POLL_LIMIT);
        work += table.poll(now);
        if (now - lastUseScan >= USE_SCAN_NANOS)
        {
            lastUseScan = now;
            collectUse();
        }
        if (changed)
        {
            publish();
        }
        return work;
    }

    /**
     * After a failure in a turn (a supervisor restart): the ring counts a frame as consumed once its handler ran or
     * threw, so the frame whose handling threw is not retried (it could fail forever) but counted: a datagram to hold
     * whose fate the neighbour table had not decided as {@code neigh_drop_failed}, its socket released; any other
     * frame as {@code host_drop_failed}. The rest of the rings is handled by the next turn.
     */
    @Override
    public void recover()
    {
        if (!inFrame)
        {
            return;
        }
        inFrame = false;
        if (NO_TAG != holdTag)
        {
            holdFailed.incrementRelease();
            sockets.packetsCompleted((int)(holdTag >>> 32), 1);
            sockets.holdDone((int)(holdTag >>> 32));
            holdTag = NO_TAG;
        }
        else
        {
            failed.incrementRelease();
        }
    }

    @Override
    public void armCrash(final int points)
    {
        crash.arm(points);
    }

    /**
     * A graceful stop's last step for this port, once the host actor has stopped: datagrams senders handed over to
     * hold, and those held for a next hop, will not be sent; each is counted ({@code neigh_drop_shutdown}) and its
     * socket released. Received frames not yet answered are counted as ignored.
     *
     * @return the datagrams dropped.
     */
    public int dropLeftovers()
    {
        int taken;
        do
        {
            taken = ring.poll(ignoreFrame, Integer.MAX_VALUE);
            receivedFrames.getAndAddRelease(taken);
            ignored.getAndAddRelease(taken);
        }
        while (taken > 0);
        int dropped = 0;
        do
        {
            taken = holdRing.poll(dropHeldFrame, Integer.MAX_VALUE);
            dropped += taken;
        }
        while (taken > 0);
        return dropped + table.dropAllHeld(NeighbourDrop.SHUTDOWN);
    }

    private void onHeldFrameAtStop(
        final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        dropped(tag(header.socketId(), header.rxQueue(), header.priority()), NeighbourDrop.SHUTDOWN);
    }

    /** How far this engine has read its rings (for a graceful stop's drain). */
    public long ringPosition()
    {
        return ring.position() + holdRing.position();
    }

    /** What the host put into TX queues' rings, for the pipeline's books; any thread. */
    public long sent()
    {
        long sent = 0;
        for (final AtomicCounter counter : transmitted)
        {
            sent += counter.get();
        }
        return sent;
    }

    private void onFrame(
        final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        received.incrementRelease();
        inFrame = true;
        final boolean hold = HostPath.KIND_HOLD == header.flags();
        if (!hold)
        {
            receivedFrames.incrementRelease();
        }
        holdTag = hold ? tag(header.socketId(), header.rxQueue(), header.priority()) : NO_TAG;
        crash.point(hold ? "after taking a datagram to hold" : "after taking a received frame");
        switch (header.flags())
        {
            case HostPath.KIND_ARP -> onArp(buffer, offset, length, header.rxQueue());
            case HostPath.KIND_ICMP -> onIcmp(buffer, offset, length, header.rxQueue());
            case HostPath.KIND_CLOSED_PORT -> onClosedPort(buffer, offset, length, header.rxQueue());
            case HostPath.KIND_HOLD -> onHold(header, buffer, offset, length);
            default -> ignored.incrementRelease();
        }
        inFrame = false;
    }

    /** RFC 826 "Packet Reception": learn the sender, answer a request for our address. */
    private void onArp(final DirectBuffer buffer, final int offset, final int length, final int rxq)
    {
        final ArpStatus status = arp.parse(buffer, offset, length);
        if (status.isMalformed())
        {
            ignored.incrementRelease();
            return;
        }
        final boolean forUs = arp.targetIp() == address.ipv4();
        table.onArp(arp, forUs, now);
        learn(arp.senderIp(), arp.senderMac());
        if (ArpStatus.REQUEST == status && forUs && arp.senderIp() != address.ipv4())
        {
            final int frameLength = arp.writeReply(out, 0, address.mac(), address.ipv4());
            transmit(out, 0, frameLength, answerQueue(rxq), HOST_SOCKET_ID, 0);
            arpReplies.incrementRelease();
        }
        else if (ArpStatus.REQUEST == status)
        {
            ignored.incrementRelease();
        }
    }

    private void onIcmp(final DirectBuffer buffer, final int offset, final int length, final int rxq)
    {
        final ParseStatus status = parser.parse(buffer, offset, length, parsed);
        if (IcmpVerdict.ECHO_REQUEST == icmp.classifyEchoRequest(buffer, offset, status, parsed) &&
            (int)parsed.flowKey().dstLo() == address.ipv4())
        {
            transmit(out, 0, icmp.writeEchoReply(out, 0), answerQueue(rxq), HOST_SOCKET_ID, 0);
            echoReplies.incrementRelease();
            return;
        }
        ignored.incrementRelease();
    }

    /** RFC 1122 §4.1.3.1: a datagram for a closed port is answered with port unreachable, rate-limited. */
    private void onClosedPort(final DirectBuffer buffer, final int offset, final int length, final int rxq)
    {
        ParseStatus status = parser.parse(buffer, offset, length, parsed);
        IcmpVerdict verdict = icmp.classifyPortUnreachable(buffer, offset, status, parsed);
        if (IcmpVerdict.BAD_UDP_CHECKSUM == verdict && finishPartialChecksum(buffer, offset, length))
        {
            status = parser.parse(finished, 0, length, parsed);
            verdict = icmp.classifyPortUnreachable(finished, 0, status, parsed);
        }
        if (IcmpVerdict.PORT_UNREACHABLE != verdict || (int)parsed.flowKey().dstLo() != address.ipv4())
        {
            ignored.incrementRelease();
            return;
        }
        if (!limiter.tryAcquire(now))
        {
            rateLimited.incrementRelease();
            return;
        }
        transmit(out, 0, icmp.writePortUnreachable(out, 0), answerQueue(rxq), HOST_SOCKET_ID, 0);
        portUnreachable.incrementRelease();
    }

    /**
     * A kernel peer on veth (or any device with TX checksum offload) leaves a UDP checksum for the NIC to finish:
     * the folded pseudo-header sum (CHECKSUM_PARTIAL), which a packet socket hands over as it is. The kernel's own
     * stack takes such a datagram as verified, so the host does too: it finishes the checksum as the NIC would have,
     * in {@link #finished}, and answers that datagram. Any other wrong checksum stays wrong.
     *
     * @return true if the datagram's checksum was partial; {@link #finished} then holds the frame, checksum done.
     */
    private boolean finishPartialChecksum(final DirectBuffer buffer, final int offset, final int length)
    {
        final int l4Offset = parsed.l4Offset();
        udp.wrap(buffer, l4Offset);
        final int udpLength = udp.length();
        final long pseudoHeaderSum = Checksums.ipv4PseudoHeaderSum((int)parsed.flowKey().srcLo(),
            (int)parsed.flowKey().dstLo(), FlowKey.PROTO_UDP, udpLength);
        if (udp.checksum() != Checksums.fold(pseudoHeaderSum))
        {
            return false;
        }
        finished.putBytes(0, buffer, offset, length);
        final int finishedL4 = l4Offset - offset;
        udp.wrap(finished, finishedL4).checksum(0);
        final int checksum = Checksums.complement(Checksums.sum(finished, finishedL4, udpLength, pseudoHeaderSum));
        udp.checksum(0 == checksum ? 0xFFFF : checksum);
        return true;
    }

    /** A socket's frame whose next hop had no MAC when it was sent: hold it, or send it if that has changed. */
    private void onHold(final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        final int txq = header.rxQueue();
        final long tag = tag(header.socketId(), txq, header.priority());
        parser.parse(buffer, offset, length, parsed);
        final int nextHop = path.nextHop((int)parsed.flowKey().dstLo());
        final HoldResult result = table.hold(nextHop, buffer, offset, length, tag, now);
        switch (result)
        {
            case HELD -> held.incrementRelease();
            case RESOLVED ->
            {
                out.putBytes(0, buffer, offset, length);
                EthernetFlyweight.putMac(out, EthernetFlyweight.DESTINATION_OFFSET, table.lookup(nextHop, now));
                transmit(out, 0, length, txq, header.socketId(), header.priority());
                sockets.holdDone(header.socketId());
            }
            case DROPPED_TABLE_FULL -> dropped(tag, NeighbourDrop.TABLE_FULL);
            case DROPPED_BAD_LENGTH -> dropped(tag, NeighbourDrop.BAD_LENGTH);
        }
        // Its fate is settled: held (the table answers for it from now on), sent, or dropped and counted.
        holdTag = NO_TAG;
    }

    /** The neighbour table sends a held datagram: into its TX queue's ring, and its socket may send directly again. */
    @Override
    public void transmit(final DirectBuffer buffer, final int offset, final int length, final long tag)
    {
        final int socketId = (int)(tag >>> 32);
        transmit(buffer, offset, length, (int)(tag >>> 16) & 0xFFFF, socketId, (int)tag & 0xFFFF);
        sockets.holdDone(socketId);
    }

    /** A datagram handed over to hold is dropped: counted under its reason, its socket released. */
    @Override
    public void dropped(final long tag, final NeighbourDrop reason)
    {
        neighbourDrops[reason.ordinal()].incrementRelease();
        final int socketId = (int)(tag >>> 32);
        sockets.packetsCompleted(socketId, 1);
        sockets.holdDone(socketId);
    }

    @Override
    public void solicit(final int ip, final long destinationMac)
    {
        final int frameLength = arp.writeRequest(out, 0, ArpFrames.NO_VLAN, destinationMac, address.mac(),
            address.ipv4(), ip);
        transmit(out, 0, frameLength, 0, HOST_SOCKET_ID, 0);
        arpRequests.incrementRelease();
    }

    @Override
    public void failed(final int ip)
    {
        if (NO_MAC != resolved.remove(key(ip)))
        {
            changed = true;
        }
    }

    /** A neighbour the table now knows (REACHABLE or STALE) goes into the next snapshot with its MAC. */
    private void learn(final int ip, final long mac)
    {
        final NeighbourState state = table.state(ip, now);
        if ((NeighbourState.REACHABLE == state || NeighbourState.STALE == state) && resolved.get(key(ip)) != mac)
        {
            resolved.put(key(ip), mac);
            changed = true;
        }
        if (resolved.size() > table.size())
        {
            forgetEvicted();
        }
    }

    /** The table evicted an entry to make room (it says so to no one): drop what it no longer knows. */
    private void forgetEvicted()
    {
        final Long2LongHashMap.KeyIterator keys = resolved.keySet().iterator();
        while (keys.hasNext())
        {
            final int ip = (int)keys.nextValue();
            final NeighbourState state = table.state(ip, now);
            if (NeighbourState.REACHABLE != state && NeighbourState.STALE != state)
            {
                keys.remove();
                changed = true;
            }
        }
    }

    /** Used stale neighbours are re-probed: the table does that when it is asked for them. */
    private void collectUse()
    {
        final NextHops snapshot = path.nextHops();
        for (int slot = 0; slot < snapshot.slots(); slot++)
        {
            if (snapshot.takeUse(slot))
            {
                table.lookup(snapshot.ipAt(slot), now);
            }
        }
    }

    private void publish()
    {
        changed = false;
        final int[] ips = new int[resolved.size()];
        final long[] macs = new long[ips.length];
        int i = 0;
        final Long2LongHashMap.EntryIterator entries = resolved.entrySet().iterator();
        while (entries.hasNext())
        {
            entries.next();
            ips[i] = (int)entries.getLongKey();
            macs[i] = entries.getLongValue();
            i++;
        }
        path.publish(new NextHops(ips, macs));
    }

    private int answerQueue(final int rxq)
    {
        return answerQueue(port.queueMap(), rxq);
    }

    /**
     * The TX queue of an ARP or ICMP answer to a frame of RX queue {@code rxq}: XPS by RX queue, else that RX queue's
     * number folded onto the real TX queues (kernel-semantics §3.2's rule for a packet that carries its RX queue).
     * A deliberate departure: the kernel answers from a new skb, which carries no RX queue, on the XPS queue of the
     * CPU that handled the request or by the answer's flow hash; here an answer leaves on the TX queue paired with the
     * RX queue it answers, whichever CPU the host actor runs on, and its ring frame carries no flow hash
     * ({@code NO_FLOW_HASH}), since no later stage reads it.
     */
    static int answerQueue(final QueueMap map, final int rxq)
    {
        final int picked = map.xpsQueue(CpuThread.NO_CPU, rxq, 0);
        return QueueMap.NO_QUEUE == picked ? rxq % map.realNumTx() : TxQueueSelector.queue(picked);
    }

    private void transmit(
        final DirectBuffer buffer, final int offset, final int length, final int txq, final int socketId,
        final int priority)
    {
        final PacketPublication txRing = port.qdiscRing(txq, priority);
        final long result = txRing.tryClaimRetrying(length, claim);
        if (result < 0)
        {
            txRingFull.incrementRelease();
            sockets.packetsCompleted(socketId, 1);
            return;
        }
        claim.putHeader(RingFrameHeader.NO_FLOW_HASH, socketId, priority, RingFrameHeader.NO_RX_QUEUE, 0,
            RingFrameHeader.NO_TRACE_ID, 0);
        claim.buffer().putBytes(claim.frameOffset(), buffer, offset, length);
        // Counted before the commit makes it visible, as a socket counts its sends: the books never see it taken first.
        transmitted[txq].incrementRelease();
        claim.commit();
    }

    private static long tag(final int socketId, final int txq, final int priority)
    {
        return (long)socketId << 32 | (long)(txq & 0xFFFF) << 16 | (priority & 0xFFFF);
    }

    private static long key(final int ip)
    {
        return ip & 0xFFFF_FFFFL;
    }
}
