package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.BusyPoll;
import io.xmit.actors.Endpoint;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.RemoteMember;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.config.ConfigValues;
import io.xmit.actors.internal.socket.BusyPoller;
import io.xmit.actors.internal.socket.SocketReceiver;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.actors.internal.stage.PollingActor;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opening and closing a pipeline's sockets: the receive ring, counters and actor of each, its place in the socket
 * table, and on close the move of what it sent and delivered to its port's retired counts, and of what it left
 * unread to {@code socket_drop_closed} (in one step, for the books).
 */
public final class SocketLifecycle
{
    private final PipelineParts parts;
    private final OpenState open;
    private final AtomicInteger nextSocketId = new AtomicInteger();
    private final AtomicInteger nextSocketCpu = new AtomicInteger();
    /** The open sockets' actors, receivers and counters by socket id; guarded by {@code open}'s lock. */
    private final Map<Integer, SocketResources> resources = new LinkedHashMap<>();

    private record SocketResources(ActorRef<?> actor, SocketReceiver receiver, AtomicCounter[] counters)
    {
    }

    public SocketLifecycle(final PipelineParts parts, final OpenState open)
    {
        this.parts = parts;
        this.open = open;
    }

    /** See {@code Pipeline.openUdp}. */
    public UdpSocketImpl openUdp(final SocketOptions options)
    {
        ControlCalls.checkControlThread("openUdp");
        final PortContext port = parts.port(options.port());
        final int cpus = parts.cpus().length;
        final int cpu = options.cpu() < 0 ? Math.floorMod(nextSocketCpu.getAndIncrement(), cpus) : options.cpu();
        if (cpu >= cpus)
        {
            throw new IllegalArgumentException("socket cpu " + options.cpu() + " is not in 0.." + (cpus - 1) +
                " (or -1 for any)");
        }
        final FlowKey local = localKey(port, options);
        final PipelineConfig config = parts.config();
        final int receiveTerm = options.receiveBuffer() > 0 ? options.receiveBuffer() : config.socketRingTerm();
        try
        {
            RingsConfig.defaults().withMaxFrameLength(Math.max(port.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
                .withIpcTermLength(receiveTerm);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("socket receive buffer " + receiveTerm + ": " + ex.getMessage(), ex);
        }
        synchronized (open)
        {
            open.checkOpen();
            final CountersFile counters = parts.counters();
            final int id = nextSocketId.incrementAndGet();
            final ActorWake<PollingActor.Poll> wake = new ActorWake<>(PollingActor.Poll.INSTANCE);
            final RingDoorbell doorbell = new RingDoorbell(wake);
            final PacketSubscription subscription = parts.rings().addSubscription(StreamIds.socket(id), doorbell);
            final PacketPublication publication = parts.rings().addPublication(StreamIds.socket(id), doorbell,
                receiveTerm);
            final CounterScope scope = CounterScope.socket(port.port(), id);
            final AtomicCounter[] socketCounters = {
                counters.allocate(CounterType.SOCKET_SENT, scope),
                counters.allocate(CounterType.SOCKET_SEND_BACKPRESSURED, scope),
                counters.allocate(CounterType.SOCKET_SEND_REFUSED, scope),
                counters.allocate(CounterType.STAGE_RESTARTS, scope.withStage(CounterScope.Stage.SOCKET))};
            final UdpSocketImpl[] holder = new UdpSocketImpl[1];
            final UdpSocketImpl socket = new UdpSocketImpl(id, cpu, port, local, "*".equals(options.address()),
                options.reusePort(), options.priority(), options.sendBufferPackets(), publication, subscription,
                new SocketQueueState(parts.jiffies(), config.txqReselection().toNanos()), socketCounters,
                () -> close(holder[0]), peer -> associate(holder[0], peer));
            holder[0] = socket;
            socket.trace(parts.tracer().point(port.port(), -1));
            try
            {
                if (null != options.connectTo())
                {
                    socket.setPeer(options.connectTo());
                }
                parts.sockets().put(socket);
            }
            catch (final RuntimeException ex)
            {
                socket.markClosed();
                publication.close();
                subscription.close();
                for (final AtomicCounter counter : socketCounters)
                {
                    counters.free(counter);
                }
                throw ex;
            }
            final BusyPoll busyPoll = null != options.busyPoll() ? options.busyPoll() : config.busyPoll();
            final SocketReceiver receiver = new SocketReceiver(socket, options.handler(), options.target(),
                config.rxBurst(), counters, busyPoll.enabled() ? new BusyPoller(parts.engines().channels()[port.port()],
                busyPoll, publication, subscription) : null);
            final ActorRef<?> actor;
            try
            {
                actor = ControlCalls.spawn(parts.system(), parts.guardian(), "socket-" + id,
                    PollingActor.create(new RingDutyCycle(doorbell, receiver::poll, config.socketSpinPolls(),
                        config.spinNanos()), wake, receiver::recover, socketCounters[3]), parts.cpus()[cpu]);
            }
            catch (final RuntimeException ex)
            {
                // No actor reads the socket's ring: it must not keep its address, its ring or its counters.
                socket.markClosed();
                parts.sockets().remove(socket);
                publication.close();
                subscription.close();
                receiver.close();
                for (final AtomicCounter counter : socketCounters)
                {
                    counters.free(counter);
                }
                throw ex;
            }
            resources.put(id, new SocketResources(actor, receiver, socketCounters));
            return socket;
        }
    }

    /**
     * {@code UdpSocket.connect} ({@code peer}) and {@code disconnect} (null): the new peer, and the socket re-filed in
     * the socket table under it; if the table refuses it (the address is taken), the old peer is put back.
     */
    private void associate(final UdpSocketImpl socket, final Endpoint peer)
    {
        ControlCalls.checkControlThread(null == peer ? "disconnecting a socket" : "connecting a socket");
        synchronized (open)
        {
            if (socket.isClosed())
            {
                throw new IllegalStateException("socket " + socket.id() + " is closed");
            }
            final Endpoint before = socket.remote();
            socket.setPeer(peer);
            try
            {
                parts.sockets().put(socket);
            }
            catch (final RuntimeException ex)
            {
                socket.setPeer(before);
                throw ex;
            }
        }
    }

    /**
     * See {@code Pipeline.openRemote}: a reuseport member whose receive ring is {@code receiveRing} (a ring to its
     * node) and whose receive side is that node's; steered by {@code steeringKey}.
     */
    public RemoteMember openRemote(final SocketOptions options, final PacketPublication receiveRing,
        final long steeringKey)
    {
        ControlCalls.checkControlThread("openRemote");
        if (!options.reusePort() || null != options.connectTo())
        {
            throw new IllegalArgumentException(
                "a remote member joins a SO_REUSEPORT group: its options need reusePort(true) and no peer");
        }
        if (null == receiveRing)
        {
            throw new IllegalArgumentException("receiveRing must not be null");
        }
        final PortContext port = parts.port(options.port());
        final FlowKey local = localKey(port, options);
        synchronized (open)
        {
            open.checkOpen();
            final CountersFile counters = parts.counters();
            final int id = nextSocketId.incrementAndGet();
            final CounterScope scope = CounterScope.socket(port.port(), id);
            final AtomicCounter[] socketCounters = {
                counters.allocate(CounterType.SOCKET_SENT, scope),
                counters.allocate(CounterType.SOCKET_SEND_BACKPRESSURED, scope),
                counters.allocate(CounterType.SOCKET_SEND_REFUSED, scope),
                counters.allocate(CounterType.SOCKET_DELIVERED, scope)};
            final UdpSocketImpl socket = new UdpSocketImpl(id, 0, port, local, "*".equals(options.address()), true,
                options.priority(), 0, receiveRing, null,
                new SocketQueueState(parts.jiffies(), parts.config().txqReselection().toNanos()), socketCounters,
                () -> { }, peer ->
                {
                    throw new IllegalStateException("a remote member's peer is its node's to set");
                });
            // Its deliveries are the port's socket deliveries: the edge's books end where the ring to the node begins.
            socket.countDeliveries(socketCounters[3]);
            try
            {
                parts.sockets().putSteered(socket, steeringKey);
            }
            catch (final RuntimeException ex)
            {
                socket.markClosed();
                freeAll(socketCounters);
                throw ex;
            }
            return new Remote(socket, socketCounters);
        }
    }

    /** The edge's handle on a remote member. */
    private final class Remote implements RemoteMember
    {
        private final UdpSocketImpl socket;
        private final AtomicCounter[] counters;
        /** What it had sent and was delivered when it closed (its counters are freed then); -1 while open. */
        private long closedSent = -1;
        private long closedDelivered = -1;

        Remote(final UdpSocketImpl socket, final AtomicCounter[] counters)
        {
            this.socket = socket;
            this.counters = counters;
        }

        @Override
        public int id()
        {
            return socket.id();
        }

        @Override
        public int port()
        {
            return socket.port();
        }

        @Override
        public long relay(final int txq, final RingFrameHeader header, final DirectBuffer buffer,
            final int frameOffset, final int frameLength)
        {
            return socket.relay(txq, header, buffer, frameOffset, frameLength);
        }

        @Override
        public long held()
        {
            return socket.holdsSent();
        }

        @Override
        public void steer(final boolean on)
        {
            ControlCalls.checkControlThread("steering a remote member");
            synchronized (open)
            {
                if (!socket.isClosed() && !open.isClosed())
                {
                    parts.sockets().steer(socket, on);
                }
            }
        }

        /** Re-filed as a local socket is on connect: a connected member is in the table's exact entries only. */
        @Override
        public void connect(final Endpoint peer)
        {
            associate(socket, Objects.requireNonNull(peer, "peer"));
        }

        @Override
        public void disconnect()
        {
            associate(socket, null);
        }

        @Override
        public Endpoint peer()
        {
            return socket.remote();
        }

        @Override
        public long sent()
        {
            synchronized (open)
            {
                return socket.isClosed() || open.isClosed() ? closedSent : socket.sentCount();
            }
        }

        /** No lock: the count only grows, and it stops once the socket leaves the table at close. */
        @Override
        public long completed()
        {
            return socket.queueState().completed();
        }

        @Override
        public long delivered()
        {
            synchronized (open)
            {
                return socket.isClosed() || open.isClosed() ? closedDelivered : counters[3].get();
            }
        }

        @Override
        public void close()
        {
            ControlCalls.checkControlThread("closing a remote member");
            synchronized (open)
            {
                if (retire(socket))
                {
                    // Closed first, as a local socket's: no RX queue counts a delivery after the count is moved.
                    socket.receiveRing().close();
                    closedSent = socket.sentCount();
                    closedDelivered = counters[3].get();
                    parts.retiredDelivered()[socket.port()].getAndAddRelease(closedDelivered);
                    freeAll(counters);
                }
            }
        }

        @Override
        public String toString()
        {
            return "RemoteMember{" + socket + "}";
        }
    }

    private void freeAll(final AtomicCounter[] counters)
    {
        for (final AtomicCounter counter : counters)
        {
            parts.counters().free(counter);
        }
    }

    /**
     * Marks {@code socket} closed and, while the pipeline is open, moves what it sent to its port's retired count
     * and takes it out of the socket table, in one step for the books (read under {@code open}'s lock, held here).
     *
     * @return false if it was closed already (what it sent has been moved once), or the pipeline is closed.
     */
    private boolean retire(final UdpSocketImpl socket)
    {
        if (socket.isClosed())
        {
            return false;
        }
        socket.markClosed();
        if (open.isClosed())
        {
            return false;
        }
        socket.sender().awaitOutside();
        parts.retiredSent()[socket.port()].getAndAddRelease(socket.sentCount());
        parts.sockets().remove(socket);
        return true;
    }

    private void close(final UdpSocketImpl socket)
    {
        ControlCalls.checkControlThread("closing a socket");
        synchronized (open)
        {
            if (!retire(socket))
            {
                return;
            }
            final SocketResources closing = resources.remove(socket.id());
            if (null == closing)
            {
                return;
            }
            ControlCalls.await(AskPattern.ask(parts.guardian(),
                (ActorRef<Boolean> replyTo) -> new PipelineGuardian.StopChild(closing.actor(), replyTo),
                ControlCalls.TIMEOUT, parts.system().scheduler()), "stopping socket " + socket.id());
            // A socket stopped while a failed busy-poll loop held its channel (its restart had not come yet).
            closing.receiver().stopBusyPolling();
            // Closed first, so no RX queue puts a frame into the ring after its leftovers are counted.
            socket.receiveRing().close();
            parts.closedDrops()[socket.port()].getAndAddRelease(closing.receiver().dropLeftovers());
            parts.retiredDelivered()[socket.port()].getAndAddRelease(closing.receiver().delivered());
            socket.receiveSubscription().close();
            closing.receiver().close();
            freeAll(closing.counters());
        }
    }

    /** The receive engine of open socket {@code id} on {@code port}, for fault injection. */
    StageEngine receiver(final int port, final int id)
    {
        final SocketResources socket;
        synchronized (open)
        {
            socket = resources.get(id);
        }
        if (null == socket || socket.receiver().socket().port() != port)
        {
            throw new IllegalArgumentException("no open socket " + id + " on port " + port);
        }
        return socket.receiver();
    }

    /**
     * The last step of a stop for the open sockets (their actors have stopped, and the RX queues'): what each left
     * unread in its ring is counted as {@code socket_drop_closed}.
     */
    void dropLeftovers()
    {
        synchronized (open)
        {
            for (final SocketResources socket : resources.values())
            {
                final SocketReceiver receiver = socket.receiver();
                parts.closedDrops()[receiver.socket().port()].getAndAddRelease(receiver.dropLeftovers());
            }
        }
    }

    /** Every open socket's receive engine, for the last step of a stop (the actors have stopped). */
    List<StageEngine> receivers()
    {
        synchronized (open)
        {
            final List<StageEngine> receivers = new ArrayList<>();
            for (final SocketResources socket : resources.values())
            {
                receivers.add(socket.receiver());
            }
            return receivers;
        }
    }

    private static FlowKey localKey(final PortContext port, final SocketOptions options)
    {
        final PortAddress address = port.address();
        final FlowKey local = new FlowKey();
        final String text = options.address();
        final boolean own = null == text || "*".equals(text);
        final int localPort = options.localPort();
        if (FlowKey.FAMILY_IPV4 == options.family())
        {
            final int ipv4 = own ? address.ipv4() : ByteBuffer.wrap(literal(text, 4)).getInt();
            local.setIpv4(FlowKey.PROTO_UDP, ipv4, 0, localPort, 0);
        }
        else
        {
            long hi = address.ipv6Hi();
            long lo = address.ipv6Lo();
            if (!own)
            {
                final ByteBuffer bytes = ByteBuffer.wrap(literal(text, 16));
                hi = bytes.getLong();
                lo = bytes.getLong();
            }
            local.setIpv6(FlowKey.PROTO_UDP, hi, lo, 0, 0, localPort, 0);
        }
        return local;
    }

    private static byte[] literal(final String text, final int length)
    {
        final byte[] bytes = ConfigValues.addressLiteral(text);
        if (null == bytes || bytes.length != length)
        {
            throw new IllegalArgumentException("socket address '" + text + "' is not an IPv" + (length == 4 ? 4 : 6) +
                " address literal (or '*' for any)");
        }
        return bytes;
    }
}
