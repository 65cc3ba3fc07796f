package io.xmit.actors.internal.socket;

import akka.actor.typed.ActorRef;
import io.xmit.actors.Datagram;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Datagrams;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The receive side of one socket, run by its actor on the socket's CPU: drains the socket's ring and hands each
 * datagram to the application, either to a {@link DatagramHandler} in place (no copy, no allocation) or, copied, in
 * one {@link Datagrams} message per poll to an application actor. With busy polling (a {@link BusyPoller}), a poll
 * that finds the ring empty polls the channel of the socket's last datagram before it gives up (kernel-semantics
 * §9.2).
 */
public final class SocketReceiver implements StageEngine
{
    private static final Logger LOG = LoggerFactory.getLogger(SocketReceiver.class);

    private final UdpSocketImpl socket;
    private final PacketSubscription ring;
    private final DatagramHandler handler;
    private final ActorRef<Datagrams> target;
    private final int pollLimit;
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final ReceivedFrame datagram = new ReceivedFrame();
    private final PacketHandler onFrame = this::onFrame;
    private final PacketHandler leaveFrame = (header, buffer, offset, length) -> { };
    private final CountersFile counters;
    private final AtomicCounter received;
    private final AtomicCounter deliveredCount;
    private final AtomicCounter handlerFailed;
    private List<Datagram> pending;
    private final CrashSwitch crash;
    private final BusyPoller busyPoller;

    /** @param busyPoller the socket's busy polling, or null without. */
    public SocketReceiver(
        final UdpSocketImpl socket,
        final DatagramHandler handler,
        final ActorRef<Datagrams> target,
        final int pollLimit,
        final CountersFile counters,
        final BusyPoller busyPoller)
    {
        this.socket = socket;
        this.busyPoller = busyPoller;
        this.ring = socket.receiveSubscription();
        this.handler = handler;
        this.target = target;
        this.pollLimit = pollLimit;
        this.counters = counters;
        final CounterScope scope = CounterScope.socket(socket.port(), socket.id());
        received = counters.allocate(CounterType.SOCKET_RECEIVED, scope);
        deliveredCount = counters.allocate(CounterType.SOCKET_DELIVERED, scope);
        handlerFailed = counters.allocate(CounterType.SOCKET_HANDLER_FAILED, scope);
        crash = new CrashSwitch("socket " + socket.id());
    }

    public UdpSocketImpl socket()
    {
        return socket;
    }

    /**
     * @return datagrams taken from the ring; or 1 when there were none but a busy-poll loop yielded to other actors
     * with time left ({@link BusyPoller#yielded}), so that the duty cycle polls again after them and the loop goes on.
     */
    @Override
    public int poll()
    {
        crash.load();
        int frames = ring.poll(onFrame, pollLimit);
        boolean yielded = false;
        if (null != busyPoller)
        {
            if (0 == frames)
            {
                if (busyPoller.loop())
                {
                    frames = ring.poll(onFrame, pollLimit);
                }
                else
                {
                    yielded = busyPoller.yielded();
                }
            }
            else
            {
                busyPoller.endDeferral();
            }
        }
        flushPending();
        return yielded ? 1 : frames;
    }

    /**
     * After a failure in a turn (a supervisor restart): the ring counts a frame as consumed once its handler has run
     * (or thrown), so nothing is delivered twice; datagrams already batched for the application actor are sent; a
     * channel a busy-poll loop held when it failed goes back to its owners.
     */
    @Override
    public void recover()
    {
        flushPending();
        stopBusyPolling();
    }

    /**
     * Once the socket's actor has stopped, or after a failure: a channel its busy polling still holds or deferred is
     * handed back to the channel's owners (kernel-semantics §9.4), so no frame waits for a socket that is gone.
     */
    public void stopBusyPolling()
    {
        if (null != busyPoller)
        {
            busyPoller.recover();
        }
    }

    @Override
    public void armCrash(final int points)
    {
        crash.arm(points);
    }

    private void flushPending()
    {
        if (null != pending)
        {
            target.tell(new Datagrams(pending));
            pending = null;
        }
    }

    private void onFrame(
        final RingFrameHeader header, final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        // The RX queue parsed this frame before copying it here (only it writes this ring), so this parse, which
        // finds the payload, succeeds.
        if (ParseStatus.OK != parser.parse(buffer, frameOffset, frameLength, parsed))
        {
            throw new IllegalStateException("socket " + socket.id() + ": a frame in its ring does not parse");
        }
        if (null != busyPoller)
        {
            busyPoller.recordRxQueue(header.rxQueue());
        }
        final long traceId = header.traceId();
        if (RingFrameHeader.NO_TRACE_ID != traceId)
        {
            socket.tracePoint().delivered(traceId, socket.id(), header.rxQueue());
        }
        datagram.wrap(buffer, parsed, header.rxQueue(), header.flowHash(), traceId);
        if (null != handler)
        {
            try
            {
                handler.onDatagram(socket, datagram);
            }
            catch (final RuntimeException ex)
            {
                if (0 == handlerFailed.incrementRelease())
                {
                    LOG.error("socket {}: the datagram handler threw; the datagram counts as delivered (later " +
                        "failures of this socket's handler are counted as socket_handler_failed, not logged)",
                        socket.id(), ex);
                }
            }
        }
        else
        {
            if (null == pending)
            {
                pending = new ArrayList<>();
            }
            pending.add(new Datagram(socket.id(), datagram.source(), datagram.payload(), datagram.rxQueue()));
        }
        received.incrementRelease();
        deliveredCount.incrementRelease();
        crash.point("after delivering a datagram");
    }

    /**
     * Once the socket's actor has stopped and its ring is closed to the RX queues (the socket closes or the pipeline
     * stops): what is left in the ring will not be delivered; it is read past and counted by the caller as
     * {@code socket_drop_closed}.
     *
     * @return the datagrams left.
     */
    public int dropLeftovers()
    {
        int left = 0;
        int taken;
        do
        {
            taken = ring.poll(leaveFrame, Integer.MAX_VALUE);
            left += taken;
        }
        while (taken > 0);
        return left;
    }

    /** Datagrams delivered to the application so far; any thread. */
    public long delivered()
    {
        return deliveredCount.get();
    }

    /** Frees the counters, once the socket's actor has stopped. */
    public void close()
    {
        counters.free(received);
        counters.free(deliveredCount);
        counters.free(handlerFailed);
    }
}
