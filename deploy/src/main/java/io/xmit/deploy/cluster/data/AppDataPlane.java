package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import akka.cluster.UniqueAddress;
import akka.cluster.typed.Cluster;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.cpu.PipelineMailbox;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.ReceivePort;
import io.xmit.transport.ring.RingDoorbell;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An app node's side of the data path: it opens sockets that are members of the edge's reuseport groups (each
 * reading its own UDP ring from the edge, {@link RemoteSocketReceiver}; sending into the edge's TX streams,
 * {@link RemoteUdpSocket}), finds the edge through the receptionist (its key: {@link EdgeDataPlane#KEY}, or
 * {@link EdgeDataPlane#serviceKey} on a node that serves several edges, a data plane for each), and leaves
 * gracefully: every socket out of the edge's steering and its ring read to the end, then the node's sends relayed
 * to their end, then the sockets released, so that nothing either side accepted is lost. One socket can be closed
 * alone ({@link Close}, a sharded socket moving to another node) by the same steps: its release carries the node's
 * TX positions at its last send, and the edge relays up to them before it closes the member, although the streams
 * go on with the node's other sockets.
 */
public final class AppDataPlane extends AbstractBehavior<AppDataPlane.Command>
{
    /** This node's socket rings: socket n of the data plane with stream base b reads stream {@code b + n}. */
    static final int RX_STREAM_BASE = 0x2000_0000;
    /** The streams a data plane numbers its sockets' rings in, from its base: the next plane's base is above. */
    public static final int RX_STREAMS_PER_PLANE = 0x0010_0000;
    /** The planes whose streams stay below the edge's TX streams ({@code EdgeDataPlane.TX_STREAM_BASE}). */
    static final int MAX_PLANES = (EdgeDataPlane.TX_STREAM_BASE - RX_STREAM_BASE) / RX_STREAMS_PER_PLANE;

    /** The app node's protocol: the data-plane messages, the receivers' reports and local requests. */
    public sealed interface Command permits DataPlaneMessage, Open, Close, Leave, GetBooks, EdgeListing,
        ReceiverConnected, ReceiverDrained, SendReceipts
    {
    }

    /** Opens socket {@code index} of {@code service}; the reply comes once the edge has taken it into its group. */
    public record Open(String service, int index, DatagramHandler handler, ActorRef<Opened> replyTo)
        implements Command
    {
    }

    /** The socket, or why the edge refused it (then {@code socket} is null). */
    public record Opened(RemoteUdpSocket socket, String refusal)
    {
    }

    /**
     * Closes socket {@code index} of {@code service} gracefully: out of the edge's steering, its ring read to the
     * end, its sends stopped, released with its count. Replies {@link Closed} then, or at once if the node holds no
     * such socket (a node that left has released them all); a socket still waiting for the edge is never opened.
     */
    public record Close(String service, int index, ActorRef<Closed> replyTo) implements Command
    {
    }

    public record Closed(String service, int index)
    {
    }

    /** Leaves gracefully: replies once every socket is drained and released and the node's sends relayed. */
    public record Leave(ActorRef<Left> replyTo) implements Command
    {
    }

    /** @param relayed what the edge relayed of this node's sends over its life. */
    public record Left(long relayed, AppBooks books)
    {
    }

    public record GetBooks(ActorRef<AppBooks> replyTo) implements Command
    {
    }

    /**
     * The node's books: what its sockets received, sent, had refused for back-pressure and for other reasons, and
     * malformed frames in their rings.
     */
    public record AppBooks(int sockets, long received, long sent, long backPressured, long refused, long malformed,
        long handlerFailed)
    {
        /** These books and {@code other}'s together: a node's over the data planes of the edges it serves. */
        public AppBooks plus(final AppBooks other)
        {
            return new AppBooks(sockets + other.sockets, received + other.received, sent + other.sent,
                backPressured + other.backPressured, refused + other.refused, malformed + other.malformed,
                handlerFailed + other.handlerFailed);
        }
    }

    record EdgeListing(Receptionist.Listing listing) implements Command
    {
    }

    record ReceiverConnected(int streamId) implements Command
    {
    }

    record ReceiverDrained(int streamId, long received) implements Command
    {
    }

    /** Time to tell the edge what the sockets have read since the last receipts. */
    enum SendReceipts implements Command
    {
        INSTANCE
    }

    /** A socket being opened or open. */
    private static final class AppSocket
    {
        final Open open;
        final int streamId;
        final PacketSubscription ring;
        final RingDoorbell doorbell;
        final ActorWake<RemoteSocketReceiver.Command> wake;
        RemoteSocketReceiver receiver;
        ActorRef<RemoteSocketReceiver.Command> actor;
        boolean drained;
        long reported;
        /** The request to close this socket alone, while it is being closed. */
        Close closing;

        AppSocket(final Open open, final int streamId, final PacketSubscription ring, final RingDoorbell doorbell,
            final ActorWake<RemoteSocketReceiver.Command> wake)
        {
            this.open = open;
            this.streamId = streamId;
            this.ring = ring;
            this.doorbell = doorbell;
            this.wake = wake;
        }
    }

    private final NetworkRings rings;
    private final String dataEndpoint;
    private final ServiceKey<DataPlaneMessage> edgeKey;
    private final int rxStreamBase;
    /** The port of its own a node's second and further planes receive on; null on its first, on the data port. */
    private final ReceivePort receivePort;
    /** Where this plane's socket rings receive: the node's data endpoint, or its own port's. */
    private final String ringsEndpoint;
    private final int spinPolls;
    private final UniqueAddress self;
    private final FlowHasher hasher = FlowHasher.random();
    private final Map<Integer, AppSocket> sockets = new LinkedHashMap<>();
    private final List<Open> waiting = new ArrayList<>();
    private final List<AppSocket> closed = new ArrayList<>();
    private ActorRef<DataPlaneMessage> edge;
    private PacketPublication[] txStreams;
    private int nextStream;
    private Leave leaving;

    private AppDataPlane(final ActorContext<Command> context, final TimerScheduler<Command> timers,
        final NetworkRings rings, final String dataEndpoint, final int spinPolls, final Duration receiptInterval,
        final ServiceKey<DataPlaneMessage> edgeKey, final int rxStreamBase)
    {
        super(context);
        timers.startTimerWithFixedDelay(SendReceipts.INSTANCE, receiptInterval);
        this.rings = rings;
        this.dataEndpoint = dataEndpoint;
        this.edgeKey = edgeKey;
        this.rxStreamBase = rxStreamBase;
        this.receivePort = RX_STREAM_BASE == rxStreamBase ? null :
            rings.openReceivePort(dataEndpoint.substring(0, dataEndpoint.lastIndexOf(':')),
                rxStreamBase + RX_STREAMS_PER_PLANE - 1);
        this.ringsEndpoint = null == receivePort ? dataEndpoint : receivePort.endpoint();
        this.spinPolls = spinPolls;
        this.self = Cluster.get(context.getSystem()).selfMember().uniqueAddress();
        context.getSystem().receptionist().tell(Receptionist.subscribe(edgeKey,
            context.messageAdapter(Receptionist.Listing.class, EdgeListing::new)));
    }

    /**
     * @param rings        the node's UDP rings.
     * @param dataEndpoint the {@code host:port} this node's socket rings receive on (a fixed port: the edge sends to
     *                     it).
     * @param spinPolls       each socket's spin budget: empty polls before its actor goes idle.
     * @param receiptInterval how often the sockets tell the edge what they have read (a message per socket that read
     *                        something, never per packet): what the edge counts as unconfirmed if this node is lost
     *                        is what it read in the last interval and what was on its way.
     */
    public static Behavior<Command> create(final NetworkRings rings, final String dataEndpoint, final int spinPolls,
        final Duration receiptInterval)
    {
        return create(rings, dataEndpoint, spinPolls, receiptInterval, EdgeDataPlane.KEY, 0);
    }

    /**
     * The data plane of one of several edges this node serves: it binds with the edge registered under
     * {@code edgeKey} and numbers its sockets' rings from the {@code plane}-th block of {@link #RX_STREAMS_PER_PLANE}
     * streams, so that the planes sharing the node's rings never share a stream. Plane 0's rings receive on
     * {@code dataEndpoint}, each other plane's on a port of its own on that host, which the system chooses: a receive
     * socket with one edge's driver as its sender, so that the JDK's receive does not allocate the sender's address
     * as datagrams of two edges alternate.
     *
     * @param plane 0 for the node's first data plane, 1 for its second, and so on (at most 511).
     */
    public static Behavior<Command> create(final NetworkRings rings, final String dataEndpoint, final int spinPolls,
        final Duration receiptInterval, final ServiceKey<DataPlaneMessage> edgeKey, final int plane)
    {
        if (null == receiptInterval || receiptInterval.isNegative() || receiptInterval.isZero())
        {
            throw new IllegalArgumentException("receiptInterval must be positive, was " + receiptInterval);
        }
        if (plane < 0 || plane >= MAX_PLANES)
        {
            throw new IllegalArgumentException("plane must be in [0, " + (MAX_PLANES - 1) + "], was " + plane);
        }
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> new AppDataPlane(context, timers, rings,
            dataEndpoint, spinPolls, receiptInterval, edgeKey, RX_STREAM_BASE + plane * RX_STREAMS_PER_PLANE)));
    }

    @Override
    public Receive<Command> createReceive()
    {
        // The two messages that come while traffic flows are matched first: Akka 2.6's built receive allocates a
        // tuple for every case it tries, so each Completions matched twelfth made twelve.
        return newReceiveBuilder()
            .onMessage(DataPlaneMessage.Completions.class, this::onCompletions)
            .onMessageEquals(SendReceipts.INSTANCE, this::onSendReceipts)
            .onMessage(EdgeListing.class, this::onListing)
            .onMessage(Open.class, this::onOpen)
            .onMessage(Close.class, this::onClose)
            .onMessage(DataPlaneMessage.SocketBound.class, this::onBound)
            .onMessage(DataPlaneMessage.BindRefused.class, this::onRefused)
            .onMessage(ReceiverConnected.class, this::onConnected)
            .onMessage(Leave.class, this::onLeave)
            .onMessage(DataPlaneMessage.SocketUnbound.class, this::onUnbound)
            .onMessage(ReceiverDrained.class, this::onDrained)
            .onMessage(DataPlaneMessage.NodeDrained.class, this::onNodeDrained)
            .onMessage(DataPlaneMessage.QueueMapChanged.class, this::onQueueMapChanged)
            .onMessage(DataPlaneMessage.SocketPeer.class, this::onSocketPeer)
            .onMessage(GetBooks.class, get ->
            {
                get.replyTo().tell(books());
                return this;
            })
            .onSignal(PostStop.class, signal -> onPostStop())
            .build();
    }

    private Behavior<Command> onListing(final EdgeListing listing)
    {
        final var edges = listing.listing().getServiceInstances(edgeKey);
        if (null == edge && !edges.isEmpty())
        {
            edge = edges.iterator().next();
            for (final Open open : waiting)
            {
                bind(open);
            }
            waiting.clear();
        }
        return this;
    }

    private Behavior<Command> onOpen(final Open open)
    {
        if (null != leaving)
        {
            open.replyTo().tell(new Opened(null, "the node is leaving"));
        }
        else if (null == edge)
        {
            waiting.add(open);
        }
        else
        {
            bind(open);
        }
        return this;
    }

    private void bind(final Open open)
    {
        final int streamId = rxStreamBase + nextStream++;
        final ActorWake<RemoteSocketReceiver.Command> wake = new ActorWake<>(RemoteSocketReceiver.Poll.INSTANCE);
        final RingDoorbell doorbell = new RingDoorbell(wake);
        final PacketSubscription ring = null == receivePort ? rings.addSubscription(dataEndpoint, streamId, doorbell) :
            rings.addSubscription(receivePort, streamId, doorbell);
        sockets.put(streamId, new AppSocket(open, streamId, ring, doorbell, wake));
        edge.tell(new DataPlaneMessage.BindSocket(open.service(), open.index(), self.address().toString(),
            self.longUid(), ringsEndpoint, streamId, getContext().getSelf().narrow(),
            rings.dataPlane().receiverWindowLength()));
    }

    private Behavior<Command> onBound(final DataPlaneMessage.SocketBound bound)
    {
        final AppSocket socket = find(bound.service(), bound.index());
        if (null == socket || null != leaving)
        {
            if (null != socket)
            {
                socket.open.replyTo().tell(new Opened(null, "the node is leaving"));
            }
            return this;
        }
        if (null == txStreams)
        {
            txStreams = new PacketPublication[bound.txStreams().length];
            for (int q = 0; q < txStreams.length; q++)
            {
                txStreams[q] = rings.addPublication(bound.edgeEndpoint(), bound.txStreams()[q]);
            }
        }
        final ActorRef<Command> self = getContext().getSelf();
        final RemoteUdpSocket udp = new RemoteUdpSocket(bound, txStreams, hasher, self::tell);
        socket.receiver = new RemoteSocketReceiver(udp, socket.ring, socket.open.handler(), 64);
        socket.actor = getContext().spawn(RemoteSocketReceiver.create(socket.receiver, socket.doorbell, socket.wake,
            spinPolls, getContext().getSelf(), socket.streamId), "socket-" + bound.socketId(),
            PipelineMailbox.selectIn(getContext().getSystem(), Props.empty()));
        socket.open.replyTo().tell(new Opened(udp, null));
        if (null != socket.closing)
        {
            unbind(socket);
        }
        return this;
    }

    private Behavior<Command> onRefused(final DataPlaneMessage.BindRefused refused)
    {
        final AppSocket socket = find(refused.service(), refused.index());
        if (null != socket)
        {
            sockets.remove(socket.streamId);
            socket.ring.close();
            socket.open.replyTo().tell(new Opened(null, refused.reason()));
            if (null != socket.closing)
            {
                socket.closing.replyTo().tell(new Closed(socket.open.service(), socket.open.index()));
            }
        }
        return this;
    }

    private Behavior<Command> onConnected(final ReceiverConnected connected)
    {
        final AppSocket socket = sockets.get(connected.streamId());
        if (null != socket && null != socket.receiver && null == leaving && null == socket.closing)
        {
            edge.tell(new DataPlaneMessage.SocketReady(socket.receiver.socket().id()));
        }
        return this;
    }

    private Behavior<Command> onQueueMapChanged(final DataPlaneMessage.QueueMapChanged change)
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null != socket.receiver && socket.receiver.socket().port() == change.port())
            {
                socket.receiver.socket().changeQueueMap(change);
            }
        }
        return this;
    }

    /**
     * A socket connected or disconnected (on its handler's thread): passed on from this actor, so that the edge has
     * it in order with the socket's unbind and release.
     */
    private Behavior<Command> onSocketPeer(final DataPlaneMessage.SocketPeer peer)
    {
        edge.tell(peer);
        return this;
    }

    /** The edge is done with more of the sockets' sends: each counts its packets in flight down (§1.5). */
    private Behavior<Command> onCompletions(final DataPlaneMessage.Completions completions)
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null == socket.receiver)
            {
                continue;
            }
            final RemoteUdpSocket udp = socket.receiver.socket();
            for (int i = 0; i < completions.socketIds().length; i++)
            {
                if (completions.socketIds()[i] == udp.id())
                {
                    udp.completedUpTo(completions.completed()[i]);
                }
            }
        }
        return this;
    }

    private Behavior<Command> onSendReceipts()
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null != socket.receiver && null != edge)
            {
                final long received = socket.receiver.received();
                if (received != socket.reported)
                {
                    socket.reported = received;
                    edge.tell(new DataPlaneMessage.Receipt(socket.receiver.socket().id(), received));
                }
            }
        }
        return this;
    }

    private Behavior<Command> onLeave(final Leave leave)
    {
        leaving = leave;
        for (final Open open : waiting)
        {
            open.replyTo().tell(new Opened(null, "the node is leaving"));
        }
        waiting.clear();
        boolean drained = true;
        for (final AppSocket socket : sockets.values())
        {
            if (null == socket.receiver)
            {
                // Its bind is still on its way: the edge has never steered to it, so it has nothing to drain.
                socket.drained = true;
                continue;
            }
            drained = false;
            if (null == socket.closing)
            {
                // A socket closing alone has been unbound already; its drain goes on.
                unbind(socket);
            }
        }
        if (drained)
        {
            leaveEdge();
        }
        return this;
    }

    private Behavior<Command> onClose(final Close close)
    {
        for (final Open open : waiting)
        {
            if (open.service().equals(close.service()) && open.index() == close.index())
            {
                waiting.remove(open);
                open.replyTo().tell(new Opened(null, "closed before the edge was found"));
                close.replyTo().tell(new Closed(close.service(), close.index()));
                return this;
            }
        }
        for (final AppSocket socket : sockets.values())
        {
            if (socket.open.service().equals(close.service()) && socket.open.index() == close.index() &&
                null == socket.closing)
            {
                socket.closing = close;
                if (null != socket.receiver && null == leaving)
                {
                    unbind(socket);
                }
                return this;
            }
        }
        close.replyTo().tell(new Closed(close.service(), close.index()));
        return this;
    }

    /** The first of a graceful close's steps: out of the edge's steering, which replies with the ring's end. */
    private void unbind(final AppSocket socket)
    {
        edge.tell(new DataPlaneMessage.UnbindSocket(socket.receiver.socket().id(), getContext().getSelf().narrow()));
    }

    private Behavior<Command> onUnbound(final DataPlaneMessage.SocketUnbound unbound)
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null != socket.receiver && socket.receiver.socket().id() == unbound.socketId() && !socket.drained)
            {
                socket.actor.tell(new RemoteSocketReceiver.DrainTo(unbound.position(), getContext().getSelf()));
            }
        }
        return this;
    }

    private Behavior<Command> onDrained(final ReceiverDrained drained)
    {
        final AppSocket socket = sockets.get(drained.streamId());
        if (null == socket || socket.drained)
        {
            return this;
        }
        socket.drained = true;
        if (null == leaving && null != socket.closing)
        {
            release(socket);
            return this;
        }
        for (final AppSocket each : sockets.values())
        {
            if (!each.drained)
            {
                return this;
            }
        }
        leaveEdge();
        return this;
    }

    /**
     * A socket closed alone, its ring read to its end: it stops sending, the edge closes its member once it has
     * relayed the TX streams to where they were after its last send, and it moves to the node's closed sockets with
     * its counts.
     */
    private void release(final AppSocket socket)
    {
        socket.receiver.socket().close();
        edge.tell(new DataPlaneMessage.ReleaseSocket(socket.receiver.socket().id(), socket.receiver.received(),
            txPositions()));
        getContext().stop(socket.actor);
        socket.ring.close();
        sockets.remove(socket.streamId);
        closed.add(socket);
        socket.closing.replyTo().tell(new Closed(socket.open.service(), socket.open.index()));
    }

    /** Every socket's ring read to its end: stop sending, and let the edge relay what was sent. */
    private void leaveEdge()
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null != socket.receiver)
            {
                socket.receiver.socket().close();
            }
        }
        final long[] positions = txPositions();
        if (null == edge)
        {
            leaving.replyTo().tell(new Left(0, books()));
            return;
        }
        edge.tell(new DataPlaneMessage.NodeLeaving(self.address().toString(), self.longUid(), positions,
            getContext().getSelf().narrow()));
    }

    private Behavior<Command> onNodeDrained(final DataPlaneMessage.NodeDrained drained)
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null != socket.receiver)
            {
                edge.tell(new DataPlaneMessage.ReleaseSocket(socket.receiver.socket().id(),
                    socket.receiver.received(), txPositions()));
                getContext().stop(socket.actor);
                closed.add(socket);
            }
            socket.ring.close();
            if (null != socket.closing)
            {
                socket.closing.replyTo().tell(new Closed(socket.open.service(), socket.open.index()));
            }
        }
        sockets.clear();
        if (null != txStreams)
        {
            for (final PacketPublication stream : txStreams)
            {
                stream.close();
            }
        }
        leaving.replyTo().tell(new Left(drained.relayed(), books()));
        return this;
    }

    /** Where the node's TX streams end now, one position per TX queue (none before the first socket bound). */
    private long[] txPositions()
    {
        final long[] positions = new long[null == txStreams ? 0 : txStreams.length];
        for (int q = 0; q < positions.length; q++)
        {
            positions[q] = txStreams[q].position();
        }
        return positions;
    }

    private Behavior<Command> onPostStop()
    {
        for (final AppSocket socket : sockets.values())
        {
            socket.ring.close();
        }
        if (null != receivePort)
        {
            receivePort.close();
        }
        if (null != txStreams)
        {
            for (final PacketPublication stream : txStreams)
            {
                stream.close();
            }
        }
        return this;
    }

    private AppSocket find(final String service, final int index)
    {
        for (final AppSocket socket : sockets.values())
        {
            if (null == socket.receiver && socket.open.service().equals(service) && socket.open.index() == index)
            {
                return socket;
            }
        }
        return null;
    }

    private AppBooks books()
    {
        int count = 0;
        long received = 0;
        long sent = 0;
        long backPressured = 0;
        long refused = 0;
        long malformed = 0;
        long handlerFailed = 0;
        final List<AppSocket> all = new ArrayList<>(closed);
        all.addAll(sockets.values());
        for (final AppSocket socket : all)
        {
            if (null != socket.receiver)
            {
                count++;
                received += socket.receiver.received();
                malformed += socket.receiver.malformed();
                handlerFailed += socket.receiver.handlerFailed();
                sent += socket.receiver.socket().sent();
                backPressured += socket.receiver.socket().backPressured();
                refused += socket.receiver.socket().refused();
            }
        }
        return new AppBooks(count, received, sent, backPressured, refused, malformed, handlerFailed);
    }
}
