package io.xmit.actors.internal.rxq;

import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.internal.host.HostPath;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.trace.TracePoint;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.RxBurst;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.RingDoorbell;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * One RX queue, NAPI-style (architecture.md, "RX queues: NAPI"): each {@link #poll()} takes a burst from the shim,
 * parses each frame, finds its socket (connected 5-tuple, then bound address and port), records the RX queue on a
 * connected socket (§2.4), copies the frame into the socket's ring and releases the burst. When its duty cycle goes
 * idle, the poll made while idle first arms the queue's interrupt, so a frame that lands after that poll raises one
 * (the re-poll after arming is the duty cycle's own re-check).
 * <p>
 * Every frame that reaches no socket is counted under its reason: malformed (the parser's verdict on a frame it cannot
 * read), unsupported (a readable frame that is not UDP, or an IP fragment), no socket, the socket's ring full, or
 * failed (its own delivery threw); on a port with host basics, ARP, ICMP and UDP to a closed port go to the port's
 * host actor instead ({@link HostPath#take}). For the receive books ({@code ReceiveBooks}) a burst is counted
 * ({@code rx_packets}) as it is taken and each frame as it is handed on, before a reader downstream can see it, so
 * what is left in a burst is never negative.
 */
public final class RxQueueEngine implements StageEngine
{
    private final int port;
    private final int rxq;
    private final NicDriver driver;
    private final SocketTable sockets;
    private final RingDoorbell doorbell;
    private final HostPath host;
    private final RxBurst burst;
    private final UnsafeBuffer frame = new UnsafeBuffer(0, 0);
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final PacketClaim claim = new PacketClaim();

    private final AtomicCounter rxPackets;
    private final AtomicCounter rxBytes;
    private final AtomicCounter delivered;
    private final AtomicCounter dropNoSocket;
    private final AtomicCounter dropMalformed;
    private final AtomicCounter dropRingFull;
    private final AtomicCounter dropNodeDown;
    private final AtomicCounter dropUnsupported;
    private final AtomicCounter polls;
    private final AtomicCounter driverErrors;
    private final AtomicCounter dropFailed;
    private final AtomicCounter dropShutdown;
    private final CrashSwitch crash;
    private int burstCount;
    private int next;
    private long burstBytes;
    private boolean inFrame;
    private TracePoint trace = TracePoint.NONE;

    public RxQueueEngine(
        final int port,
        final int rxq,
        final NicDriver driver,
        final SocketTable sockets,
        final RingDoorbell doorbell,
        final int burstSize,
        final CountersFile counters,
        final HostPath host)
    {
        this.host = host;
        this.port = port;
        this.rxq = rxq;
        this.driver = driver;
        this.sockets = sockets;
        this.doorbell = doorbell;
        this.burst = new RxBurst(burstSize);
        final CounterScope scope = CounterScope.rxq(port, rxq);
        rxPackets = counters.allocate(CounterType.RX_PACKETS, scope);
        rxBytes = counters.allocate(CounterType.RX_BYTES, scope);
        delivered = counters.allocate(CounterType.RX_DELIVERED, scope);
        dropNoSocket = counters.allocate(CounterType.RX_DROP_NO_SOCKET, scope);
        dropMalformed = counters.allocate(CounterType.RX_DROP_MALFORMED, scope);
        dropRingFull = counters.allocate(CounterType.RX_DROP_SOCKET_RING_FULL, scope);
        dropNodeDown = counters.allocate(CounterType.RX_DROP_NODE_DOWN, scope);
        dropUnsupported = counters.allocate(CounterType.RX_DROP_UNSUPPORTED, scope);
        polls = counters.allocate(CounterType.RX_POLLS, scope);
        driverErrors = counters.allocate(CounterType.RX_DRIVER_ERRORS, scope);
        dropFailed = counters.allocate(CounterType.RX_DROP_FAILED, scope);
        dropShutdown = counters.allocate(CounterType.RX_DROP_SHUTDOWN, scope);
        crash = new CrashSwitch("rx queue " + port + "/" + rxq);
    }

    /**
     * The actor's poll: takes a burst from the shim, or goes on with the one a failure (or a busy poller's budget)
     * left, and delivers it; the poll made while the duty cycle goes idle arms the interrupt first.
     *
     * @return frames handled (each delivered or counted as dropped).
     */
    @Override
    public int poll()
    {
        return poll(true);
    }

    /**
     * The actor's poll, as {@link #poll()}, but the poll made while going idle arms the interrupt only if
     * {@code mayArm}: not while a busy-polling socket that prefers busy polling keeps it off (kernel-semantics §9.6).
     */
    public int poll(final boolean mayArm)
    {
        // napi_complete: going idle, so interrupts back on before the last look.
        return poll(burst.capacity(), mayArm && RingDoorbell.RUNNING != doorbell.state());
    }

    /**
     * One poll of at most {@code budget} frames (a busy poller's {@code BUSY_POLL_BUDGET}, kernel-semantics §9.3): what
     * is left of a burst first, then a new burst from the shim; frames past the budget stay in the burst for the next
     * poll, whoever makes it.
     *
     * @param arm arm the queue's interrupt before reading the shim (the last look before going idle, or a busy
     *            poller's hand-back, §9.4).
     * @return frames handled (each delivered or counted as dropped).
     */
    public int poll(final int budget, final boolean arm)
    {
        crash.load();
        if (0 == burstCount)
        {
            if (arm)
            {
                driver.armRx(rxq, true);
            }
            polls.incrementRelease();
            final int count = driver.rxBurst(rxq, burst);
            if (count <= 0)
            {
                if (count < 0)
                {
                    driverErrors.incrementRelease();
                }
                return 0;
            }
            burstCount = count;
            burstBytes = 0;
            next = 0;
            rxPackets.getAndAddRelease(count);
        }
        // The burst stays in the shim's buffers until it is released, so a delivery that fails part-way (a restart)
        // goes on at the frame after the one that failed: none is delivered twice, none skipped uncounted.
        final int first = next;
        final int end = Math.min(burstCount, next + budget);
        while (next < end)
        {
            final int index = next++;
            burst.wrapFrame(index, frame);
            burstBytes += frame.capacity();
            inFrame = true;
            deliver(burst.rssHash(index));
            inFrame = false;
            crash.point("after delivering a frame of an RX burst");
        }
        final int handled = next - first;
        if (next == burstCount)
        {
            final int count = burstCount;
            burstCount = 0;
            driver.rxRelease(rxq, count);
            rxBytes.getAndAddRelease(burstBytes);
        }
        return handled;
    }

    /** Whether a burst is taken and not all handled: the next poll goes on with it before it reads the shim. */
    public boolean inBurst()
    {
        return burstCount > 0;
    }

    /**
     * A graceful stop's last step for this queue, once its actor has stopped (and {@link #recover} ran): the rest of
     * a burst a failure interrupted, and what the device's RX ring holds (one ring's worth at most: a device fed from
     * outside keeps receiving), are taken and counted as {@code rx_drop_shutdown}.
     */
    public void dropLeftovers()
    {
        int dropped = 0;
        if (burstCount > 0)
        {
            dropped = burstCount - next;
            driver.rxRelease(rxq, burstCount);
            burstCount = 0;
        }
        final int limit = driver.ringSize();
        int taken;
        int drained = 0;
        while (drained < limit && (taken = driver.rxBurst(rxq, burst)) > 0)
        {
            rxPackets.getAndAddRelease(taken);
            driver.rxRelease(rxq, taken);
            drained += taken;
        }
        dropShutdown.getAndAddRelease(dropped + drained);
    }

    /**
     * After a failure in a turn (a supervisor restart): a frame whose own delivery threw is counted as
     * {@code rx_drop_failed} (retrying it could fail forever); the rest of its burst is delivered by the next turn.
     */
    @Override
    public void recover()
    {
        if (claim.isActive())
        {
            // The failure came between claim and commit: the space is given back, or every later claim would refuse.
            claim.abort();
        }
        if (inFrame)
        {
            inFrame = false;
            dropFailed.incrementRelease();
        }
    }

    /** The tracing hooks of this RX queue, set once before it runs. */
    public void trace(final TracePoint point)
    {
        trace = point;
    }

    @Override
    public void armCrash(final int points)
    {
        crash.arm(points);
    }

    private void deliver(final int rssHash)
    {
        final int length = frame.capacity();
        final ParseStatus status = parser.parse(frame, 0, length, parsed);
        if (ParseStatus.OK != status)
        {
            // Well-formed frames of a kind the pipeline does not speak are unsupported; the rest are malformed.
            (ParseStatus.UNSUPPORTED_ETHERTYPE == status || ParseStatus.UNSUPPORTED_ARP_FORMAT == status ?
                dropUnsupported : dropMalformed).incrementRelease();
            return;
        }
        if (FlowKey.PROTO_UDP != parsed.ipProtocol() || parsed.isFragment())
        {
            if (null != host && host.take(frame, length, rxq, parsed, false, claim))
            {
                return;
            }
            dropUnsupported.incrementRelease();
            return;
        }
        final UdpSocketImpl socket = sockets.lookup(port, parsed.flowKey(), CpuThread.currentCpu(), rssHash);
        if (null == socket || socket.isClosed())
        {
            if (null != host && host.take(frame, length, rxq, parsed, true, claim))
            {
                return;
            }
            dropNoSocket.incrementRelease();
            return;
        }
        socket.recordRxQueue(rxq);

        final PacketPublication ring = socket.receiveRing();
        final long result = ring.tryClaimRetrying(length, claim);
        if (result < 0)
        {
            // A full ring is the socket's receive buffer overflowing; any other refusal means it is going away, and
            // a remote member's ring refuses so once its node is gone.
            (PacketPublication.BACK_PRESSURED == result || PacketPublication.ADMIN_ACTION == result ? dropRingFull :
                socket.isRemote() ? dropNodeDown : dropNoSocket).incrementRelease();
            return;
        }
        final long traceId = trace.select(parsed.flowKey(), socket.id());
        claim.putHeader(rssHash, socket.id(), 0, rxq, 0, traceId, 0);
        claim.buffer().putBytes(claim.frameOffset(), frame, 0, length);
        if (RingFrameHeader.NO_TRACE_ID != traceId)
        {
            trace.received(traceId, socket.id(), frame, 0, length);
        }
        // Counted before the commit makes it visible: the socket never delivers a frame the books have not seen.
        delivered.incrementRelease();
        socket.countDelivered();
        claim.commit();
    }
}
