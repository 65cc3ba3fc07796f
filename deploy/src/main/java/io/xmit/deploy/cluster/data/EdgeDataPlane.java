package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import akka.cluster.ClusterEvent;
import akka.cluster.UniqueAddress;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PortAddress;
import io.xmit.actors.RemoteMember;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.XpsChange;
import io.xmit.actors.cpu.PipelineMailbox;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.XpsMask;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The edge's side of the data path, one per edge pipeline: it takes app nodes' sockets into the pipeline's reuseport
 * groups as {@link RemoteMember}s (each with a UDP ring to its node), relays each node's sends into the qdisc rings
 * ({@link TxRelay}), and follows Akka Cluster's membership: a node that becomes unreachable leaves steering (only
 * its flows move) and comes back when reachable again; a node removed without leaving is closed, what was published
 * to it is split by {@link RemoteRingBooks}, and what its TX streams still held is counted as {@code nodeDown}. An
 * incarnation removed, or replaced by a newer one of the same address, is declared lost: its relay is fenced (its
 * frames refused and counted, never relayed) and it cannot bind again. Changes of a port's queue map go to the app
 * nodes with sockets there ({@link DataPlaneMessage.QueueMapChanged}). A socket its node connects to a peer is
 * filed under that 4-tuple ({@link DataPlaneMessage.SocketPeer}): the peer's datagrams go to it, no other peer's are
 * steered to it, and the entry goes with its disconnect, its member's close, or its node's leave or loss.
 * Registered with the receptionist under {@link #KEY} and, for each of its services, under {@link #serviceKey}: an
 * app node finds a service's edge by it.
 */
public final class EdgeDataPlane extends AbstractBehavior<EdgeDataPlane.Command>
{
    public static final ServiceKey<DataPlaneMessage> KEY = ServiceKey.create(DataPlaneMessage.class, "xmit-edge");
    private static final String SERVICE_KEY_PREFIX = "xmit-edge-of-";
    /**
     * The edge's TX streams: node n's TX queue q is {@code TX_STREAM_BASE + p * TX_STREAMS_PER_PLANE +
     * n * MAX_TX_QUEUES + q} on the node's p-th edge data plane.
     */
    static final int TX_STREAM_BASE = 0x4000_0000;
    static final int MAX_TX_QUEUES = 1024;
    static final int TX_STREAMS_PER_PLANE = 0x0100_0000;
    /** The planes one set of rings can number streams for. */
    static final int MAX_PLANES = (Integer.MAX_VALUE - TX_STREAM_BASE + 1) / TX_STREAMS_PER_PLANE;
    /** RX queue masks travel as one 64-bit word per TX queue. */
    static final int MAX_XPS_RX_QUEUES = 64;

    /** The edge's protocol: the data-plane messages, membership, and local queries. */
    public sealed interface Command permits DataPlaneMessage, Reachability, Removed, GetBooks, RelayReached,
        RelayStopped, RelayFenced, SetTxQueueCount, SetXpsRxqs
    {
    }

    /**
     * Sets the real TX queue count of {@code port} ({@link Pipeline#setTxQueueCount}) and tells every app node with a
     * socket on it, so that their sends follow.
     */
    public record SetTxQueueCount(int port, int count, ActorRef<XpsChange> replyTo) implements Command
    {
    }

    /**
     * Writes {@code xps_rxqs} of TX queue {@code txq} on {@code port} ({@link Pipeline#setXpsRxqs}) and tells every
     * app node with a socket on it.
     */
    public record SetXpsRxqs(int port, int txq, String mask, ActorRef<XpsChange> replyTo) implements Command
    {
    }

    record Reachability(ClusterEvent.ReachabilityEvent event) implements Command
    {
    }

    record Removed(ClusterEvent.MemberRemoved event) implements Command
    {
    }

    /** The books of every node this edge has had, live and gone. */
    public record GetBooks(ActorRef<EdgeBooks> replyTo) implements Command
    {
    }

    record RelayReached(TxRelay.Reached reached) implements Command
    {
    }

    record RelayStopped(TxRelay.Stopped stopped) implements Command
    {
    }

    record RelayFenced(TxRelay.Fenced fenced) implements Command
    {
    }

    /**
     * One app node's books on the edge. Receive side: {@code published = received + unconfirmed + rxNodeDown + in
     * flight}, where in flight is what its open sockets' rings hold or their handlers have not reported yet. Send
     * side: every frame its TX streams brought is relayed, rejected, refused or counted {@code txNodeDown}.
     *
     * @param steered     its sockets the RX queues steer to now (ring connected, node reachable, not leaving).
     * @param published   datagrams the RX queues put into its sockets' rings.
     * @param received    of those, what its sockets are known to have read: reported at their last receipt or at
     *                    release, or, for a node removed without leaving, confirmed by its driver's last status
     *                    message (whichever says more).
     * @param unconfirmed of its closed sockets' datagrams, those sent to it and never known read: 0 after a graceful
     *                    leave; for a node removed without leaving, what the edge's driver had sent past the last
     *                    confirmed position, an upper bound of what it lost (it may have read some of them).
     * @param relayed     its sends copied into the qdisc rings.
     * @param rejected    its frames from a socket it does not hold (unbound, or never bound here).
     * @param refused     its frames the pipeline refused (stopping, closed, too long).
     * @param txNodeDown  its frames left in its TX streams when it was removed without leaving.
     * @param rxNodeDown  of its closed sockets' datagrams, those the edge's driver had not sent when the node was
     *                    removed without leaving (or replaced by a newer incarnation): lost, exactly (they never
     *                    reached it).
     * @param txStaleIncarnation its frames read after a newer incarnation of the node bound, or left in its streams
     *                    then: refused, never relayed.
     */
    public record NodeBooks(String node, long incarnation, boolean live, int sockets, int steered, long published,
        long received, long unconfirmed, long relayed, long rejected, long refused, long txNodeDown,
        long relayBackPressured, long rxNodeDown, long txStaleIncarnation)
    {
    }

    public record EdgeBooks(List<NodeBooks> nodes)
    {
        /** The books of the live incarnation at {@code address}, else of the last one it had, or null. */
        public NodeBooks node(final String address)
        {
            NodeBooks found = null;
            for (final NodeBooks books : nodes)
            {
                if (books.node().equals(address))
                {
                    if (books.live())
                    {
                        return books;
                    }
                    found = books;
                }
            }
            return found;
        }
    }

    /** A socket of a node, as the edge holds it. */
    private static final class EdgeSocket
    {
        final RemoteMember member;
        final PacketPublication ring;
        final RemoteRingBooks ringBooks;
        /** The service and socket index it was bound as: with its node, its steering key in the service's group. */
        final String service;
        final int index;
        boolean ready;
        long confirmed;
        /** Released by its node: closed once the relay has read the node's sends up to the socket's last. */
        boolean releasing;

        EdgeSocket(final RemoteMember member, final PacketPublication ring, final RemoteRingBooks ringBooks,
            final String service, final int index)
        {
            this.member = member;
            this.ring = ring;
            this.ringBooks = ringBooks;
            this.service = service;
            this.index = index;
        }
    }

    /** An app node's incarnation, as the edge holds it. */
    private static final class EdgeNode
    {
        final String address;
        final long incarnation;
        /** The {@code host:port} its TX streams arrive at: a port of its own, so each receive socket has one sender. */
        final String txEndpoint;
        final TxRelay relay;
        final ActorRef<TxRelay.Command> relayActor;
        final Map<Integer, EdgeSocket> sockets = new LinkedHashMap<>();
        /** Its data plane, which takes the queue-map changes. */
        ActorRef<DataPlaneMessage> app;
        boolean reachable = true;
        boolean relayStopped;
        /** Left gracefully: its relay read its TX streams to their end and is stopping. */
        boolean drained;
        boolean nodeDown;
        /** Declared lost while it may still send (a newer incarnation bound): its relay is asked to refuse all. */
        boolean fenceAsked;
        /**
         * Binds waiting until members have left the group (steering keys): its newer incarnation's, until all of its
         * have; its own, until the released socket of the same service and index has.
         */
        final List<DataPlaneMessage.BindSocket> pendingBinds = new ArrayList<>();
        long closedPublished;
        long closedConfirmed;
        long closedNotSent;
        ActorRef<DataPlaneMessage> drainedReply;

        EdgeNode(final String address, final long incarnation, final String txEndpoint, final TxRelay relay,
            final ActorRef<TxRelay.Command> relayActor)
        {
            this.address = address;
            this.incarnation = incarnation;
            this.txEndpoint = txEndpoint;
            this.relay = relay;
            this.relayActor = relayActor;
        }

        String key()
        {
            return key(address, incarnation);
        }

        /** True if its socket {@code index} of {@code service} is released and waits for the relay to close. */
        boolean releasing(final String service, final int index)
        {
            for (final EdgeSocket socket : sockets.values())
            {
                if (socket.releasing && socket.index == index && socket.service.equals(service))
                {
                    return true;
                }
            }
            return false;
        }

        static String key(final String address, final long incarnation)
        {
            return address + "#" + incarnation;
        }

        NodeBooks books(final boolean live)
        {
            int steered = 0;
            long published = closedPublished;
            long received = closedConfirmed;
            for (final EdgeSocket socket : sockets.values())
            {
                steered += socket.ready && reachable && live ? 1 : 0;
                published += socket.member.delivered();
                received += socket.confirmed;
            }
            return new NodeBooks(address, incarnation, live, sockets.size(), steered, published, received,
                closedPublished - closedConfirmed - closedNotSent, relay.relayed(), relay.rejected(),
                relay.refused(), relay.nodeDown(), relay.backPressured(), closedNotSent, relay.staleIncarnation());
        }
    }

    private final Pipeline pipeline;
    private final NetworkRings rings;
    private final String dataEndpoint;
    private final int txStreamBase;
    private final Map<String, SocketOptions> services;
    private final Map<String, EdgeNode> nodes = new HashMap<>();
    private final Map<Integer, EdgeNode> nodeOfSocket = new HashMap<>();
    private final List<NodeBooks> gone = new ArrayList<>();
    /** The queue map each port's app nodes were told last (at bind, or since). */
    private final Map<Integer, QueueMap> toldMaps = new HashMap<>();
    /** Incarnations removed from the cluster or replaced by a newer one: never bound again. */
    private final Set<String> declaredLost = new HashSet<>();
    private final ActorRef<TxRelay.Reached> relayReached;
    private final ActorRef<TxRelay.Stopped> relayStopped;
    private final ActorRef<TxRelay.Fenced> relayFenced;
    private int nextNode;

    private EdgeDataPlane(final ActorContext<Command> context, final Pipeline pipeline, final NetworkRings rings,
        final String dataEndpoint, final Map<String, SocketOptions> services, final int txStreamBase)
    {
        super(context);
        this.txStreamBase = txStreamBase;
        this.pipeline = pipeline;
        this.rings = rings;
        this.dataEndpoint = dataEndpoint;
        this.services = Map.copyOf(services);
        this.relayReached = context.messageAdapter(TxRelay.Reached.class, RelayReached::new);
        this.relayStopped = context.messageAdapter(TxRelay.Stopped.class, RelayStopped::new);
        this.relayFenced = context.messageAdapter(TxRelay.Fenced.class, RelayFenced::new);
        final Cluster cluster = Cluster.get(context.getSystem());
        cluster.subscriptions().tell(Subscribe.create(
            context.messageAdapter(ClusterEvent.ReachabilityEvent.class, Reachability::new),
            ClusterEvent.ReachabilityEvent.class));
        cluster.subscriptions().tell(Subscribe.create(
            context.messageAdapter(ClusterEvent.MemberRemoved.class, Removed::new), ClusterEvent.MemberRemoved.class));
        context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf().narrow()));
        for (final String service : this.services.keySet())
        {
            context.getSystem().receptionist().tell(Receptionist.register(serviceKey(service),
                context.getSelf().narrow()));
        }
    }

    /** The key the edge that steers {@code service} is registered under (a service is on one device, one edge). */
    public static ServiceKey<DataPlaneMessage> serviceKey(final String service)
    {
        return ServiceKey.create(DataPlaneMessage.class, SERVICE_KEY_PREFIX + service);
    }

    /**
     * @param pipeline     the edge's pipeline, whose reuseport groups take the remote members.
     * @param rings        the edge's UDP rings (a driver of their own beside the pipeline's).
     * @param dataEndpoint the edge's data {@code host:port}: each app node's TX streams arrive on a port of their
     *                     own on its host, chosen by the system when the node first binds and sent in
     *                     {@link DataPlaneMessage.SocketBound#edgeEndpoint()}.
     * @param services     each service's group: the options of a reuseport socket on the pipeline.
     */
    public static Behavior<Command> create(final Pipeline pipeline, final NetworkRings rings,
        final String dataEndpoint, final Map<String, SocketOptions> services)
    {
        return create(pipeline, rings, dataEndpoint, services, 0);
    }

    /**
     * The edge data plane of one of several devices of a node, sharing its rings: it numbers its TX streams in the
     * {@code plane}-th block, so that the planes never share a stream.
     *
     * @param plane 0 for the node's first edge data plane, 1 for its second, and so on (at most 63).
     */
    public static Behavior<Command> create(final Pipeline pipeline, final NetworkRings rings,
        final String dataEndpoint, final Map<String, SocketOptions> services, final int plane)
    {
        if (plane < 0 || plane >= MAX_PLANES)
        {
            throw new IllegalArgumentException("plane must be in [0, " + (MAX_PLANES - 1) + "], was " + plane);
        }
        if (null == dataEndpoint || dataEndpoint.lastIndexOf(':') <= 0)
        {
            throw new IllegalArgumentException("dataEndpoint must be host:port, was " +
                (null == dataEndpoint ? "null" : "'" + dataEndpoint + "'"));
        }
        for (final Map.Entry<String, SocketOptions> service : new TreeMap<>(services).entrySet())
        {
            final SocketOptions options = service.getValue();
            if (!options.reusePort() || null != options.connectTo())
            {
                throw new IllegalArgumentException("service '" + service.getKey() + "': its group's options need " +
                    "reusePort(true) and no peer");
            }
            // A frame is never fragmented: the rings to the app nodes must carry the port's longest frame whole,
            // or the RX queues could not deliver it.
            final int maxFrame = pipeline.driver(options.port()).maxFrame();
            if (rings.rings().config().maxFrameLength() < maxFrame)
            {
                throw new IllegalArgumentException("service '" + service.getKey() + "': the data plane's rings " +
                    "carry frames of at most " + rings.rings().config().maxFrameLength() + " bytes, port " +
                    options.port() + "'s frames are up to " + maxFrame + "; launch the rings with a maxFrameLength " +
                    "of at least " + maxFrame);
            }
        }
        return Behaviors.setup(context -> new EdgeDataPlane(context, pipeline, rings, dataEndpoint, services,
            TX_STREAM_BASE + plane * TX_STREAMS_PER_PLANE));
    }

    @Override
    public Receive<Command> createReceive()
    {
        return newReceiveBuilder()
            .onMessage(DataPlaneMessage.BindSocket.class, this::onBind)
            .onMessage(DataPlaneMessage.SocketReady.class, this::onReady)
            .onMessage(DataPlaneMessage.Receipt.class, this::onReceipt)
            .onMessage(DataPlaneMessage.SocketPeer.class, this::onSocketPeer)
            .onMessage(DataPlaneMessage.UnbindSocket.class, this::onUnbind)
            .onMessage(DataPlaneMessage.ReleaseSocket.class, this::onRelease)
            .onMessage(DataPlaneMessage.NodeLeaving.class, this::onNodeLeaving)
            .onMessage(Reachability.class, this::onReachability)
            .onMessage(Removed.class, this::onRemoved)
            .onMessage(RelayReached.class, this::onRelayReached)
            .onMessage(RelayStopped.class, this::onRelayStopped)
            .onMessage(RelayFenced.class, this::onRelayFenced)
            .onMessage(GetBooks.class, this::onGetBooks)
            .onMessage(SetTxQueueCount.class, set ->
            {
                final XpsChange change = pipeline.setTxQueueCount(set.port(), set.count());
                tellQueueMap(set.port());
                set.replyTo().tell(change);
                return this;
            })
            .onMessage(SetXpsRxqs.class, set ->
            {
                final XpsChange change = pipeline.setXpsRxqs(set.port(), set.txq(), set.mask());
                tellQueueMap(set.port());
                set.replyTo().tell(change);
                return this;
            })
            .onSignal(PostStop.class, signal -> onPostStop())
            .build();
    }

    private Behavior<Command> onBind(final DataPlaneMessage.BindSocket bind)
    {
        final SocketOptions options = services.get(bind.service());
        if (null == options)
        {
            bind.replyTo().tell(new DataPlaneMessage.BindRefused(bind.service(), bind.index(),
                "no service '" + bind.service() + "' on this edge; it has " + new TreeMap<>(services).keySet()));
            return this;
        }
        final PortAddress address = portAddress(options.port());
        final String key = EdgeNode.key(bind.node(), bind.incarnation());
        if (declaredLost.contains(key))
        {
            bind.replyTo().tell(new DataPlaneMessage.BindRefused(bind.service(), bind.index(), "node " +
                bind.node() + " incarnation " + bind.incarnation() + " was declared lost (removed from the " +
                "cluster, or a newer incarnation of it bound): its streams are refused; a restarted node binds " +
                "as its new incarnation"));
            return this;
        }
        for (final EdgeNode old : List.copyOf(nodes.values()))
        {
            if (old.address.equals(bind.node()) && old.incarnation != bind.incarnation() && supersede(old, bind))
            {
                return this;
            }
        }
        final EdgeNode same = nodes.get(key);
        if (null != same && same.releasing(bind.service(), bind.index()))
        {
            // The socket reopened before its former self left the group: it takes the same steering key.
            same.pendingBinds.add(bind);
            return this;
        }
        tellQueueMap(options.port());
        final QueueMap map = toldMaps.get(options.port());
        PacketPublication ring = null;
        RemoteRingBooks ringBooks = null;
        try
        {
            final EdgeNode node = nodes.computeIfAbsent(key,
                absent -> newNode(bind.node(), bind.incarnation(),
                    Math.max(map.numTxQueues(), pipeline.driver(options.port()).txQueueCount())));
            node.app = bind.replyTo();
            node.relay.reportTo(bind.replyTo());
            ring = rings.addPublication(bind.dataEndpoint(), bind.streamId());
            ringBooks = RemoteRingBooks.open(rings, ring, bind.receiverWindow());
            final RemoteMember member = pipeline.openRemote(options, ring, steeringKey(bind.node(), bind.index()));
            node.sockets.put(member.id(), new EdgeSocket(member, ring, ringBooks, bind.service(), bind.index()));
            nodeOfSocket.put(member.id(), node);
            node.relay.add(member);
            bind.replyTo().tell(new DataPlaneMessage.SocketBound(bind.service(), bind.index(), member.id(),
                options.port(), node.txEndpoint, node.relay.streamIds(), address.mac(), address.peerMac(),
                address.ipv4(), options.localPort(), map.numRxQueues(), xpsRxqs(map),
                pipeline.driver(options.port()).maxFrame(), map.realNumTx()));
        }
        catch (final RuntimeException ex)
        {
            if (null != ringBooks)
            {
                ringBooks.close();
            }
            if (null != ring)
            {
                ring.close();
            }
            bind.replyTo().tell(new DataPlaneMessage.BindRefused(bind.service(), bind.index(), ex.getMessage()));
        }
        return this;
    }

    private Behavior<Command> onReady(final DataPlaneMessage.SocketReady ready)
    {
        final EdgeNode node = nodeOfSocket.get(ready.socketId());
        final EdgeSocket socket = null == node ? null : node.sockets.get(ready.socketId());
        if (null != socket)
        {
            socket.ready = true;
            if (node.reachable && !declaredLost.contains(node.key()))
            {
                socket.member.steer(true);
            }
        }
        return this;
    }

    private Behavior<Command> onReceipt(final DataPlaneMessage.Receipt receipt)
    {
        final EdgeNode node = nodeOfSocket.get(receipt.socketId());
        final EdgeSocket socket = null == node ? null : node.sockets.get(receipt.socketId());
        if (null != socket)
        {
            socket.confirmed = Math.max(socket.confirmed, receipt.received());
            // A change made on the pipeline itself, not through this actor, reaches the nodes within a receipt.
            tellQueueMap(socket.member.port());
        }
        return this;
    }

    /**
     * The socket was connected or disconnected on its node: its member is filed under the exact 4-tuple, or steered
     * to again. The kernel's lookup in a reuseport group with connections (acdcecc61285, "udp: correct reuseport
     * selection with connected sockets") gives a connected member all of its 4-tuple's datagrams and no other
     * peer's; so does the socket table, which keeps a connected member out of its group's steering. A released
     * socket, or one of an incarnation declared lost, is closing: nothing to file. A peer the pipeline refuses
     * (another socket connected from the group's address to it) leaves the member unconnected, steered to.
     */
    private Behavior<Command> onSocketPeer(final DataPlaneMessage.SocketPeer peer)
    {
        final EdgeNode node = nodeOfSocket.get(peer.socketId());
        final EdgeSocket socket = null == node ? null : node.sockets.get(peer.socketId());
        if (null == socket || socket.releasing || declaredLost.contains(node.key()))
        {
            return this;
        }
        final Endpoint to = peer.peer();
        if (null == to)
        {
            socket.member.disconnect();
            return this;
        }
        try
        {
            socket.member.connect(to);
        }
        catch (final RuntimeException ex)
        {
            // Not left on a former peer the node no longer has.
            socket.member.disconnect();
            getContext().getLog().warn("socket {} of service '{}' on node {}: its connect to {} stays on its node, " +
                "the edge steers its group's flows to it as to an unconnected member: {}", peer.socketId(),
                socket.service, node.address, to, ex.getMessage());
        }
        return this;
    }

    private Behavior<Command> onUnbind(final DataPlaneMessage.UnbindSocket unbind)
    {
        final EdgeNode node = nodeOfSocket.get(unbind.socketId());
        final EdgeSocket socket = null == node ? null : node.sockets.get(unbind.socketId());
        if (null != socket)
        {
            socket.ready = false;
            socket.member.steer(false);
            unbind.replyTo().tell(new DataPlaneMessage.SocketUnbound(unbind.socketId(), socket.ring.position()));
        }
        return this;
    }

    /**
     * The socket's node has stopped its sends and read its ring to the end. The node's TX streams are shared by its
     * sockets and go on, so the member stays in the relay's table until the relay has read them to the positions
     * of the socket's last send: what it sent in its last moment is relayed, not rejected. A node that has left or
     * is gone has no relay to wait for.
     */
    private Behavior<Command> onRelease(final DataPlaneMessage.ReleaseSocket release)
    {
        final EdgeNode node = nodeOfSocket.get(release.socketId());
        final EdgeSocket socket = null == node ? null : node.sockets.get(release.socketId());
        if (null == socket || socket.releasing)
        {
            return this;
        }
        socket.confirmed = Math.max(socket.confirmed, release.received());
        socket.releasing = true;
        if (node.drained || node.relayStopped || node.nodeDown || node.fenceAsked)
        {
            closeReleased(node, socket);
        }
        else
        {
            node.relayActor.tell(new TxRelay.DrainTo(release.txPositions(), release.socketId(), relayReached));
        }
        return this;
    }

    private void closeReleased(final EdgeNode node, final EdgeSocket socket)
    {
        nodeOfSocket.remove(socket.member.id());
        node.sockets.remove(socket.member.id());
        close(node, socket, false);
        retireIfDone(node);
        bindWaiting(node);
    }

    private Behavior<Command> onNodeLeaving(final DataPlaneMessage.NodeLeaving leaving)
    {
        final EdgeNode node = nodes.get(EdgeNode.key(leaving.node(), leaving.incarnation()));
        if (null == node)
        {
            leaving.replyTo().tell(new DataPlaneMessage.NodeDrained(leaving.node(), 0));
            return this;
        }
        node.drainedReply = leaving.replyTo();
        node.relayActor.tell(new TxRelay.DrainTo(leaving.txPositions(), TxRelay.WHOLE_NODE, relayReached));
        return this;
    }

    private Behavior<Command> onRelayReached(final RelayReached reached)
    {
        final int socketId = reached.reached().socketId();
        for (final EdgeNode node : List.copyOf(nodes.values()))
        {
            if (node.relay != reached.reached().relay())
            {
                continue;
            }
            final EdgeSocket socket = node.sockets.get(socketId);
            if (null != socket && socket.releasing)
            {
                closeReleased(node, socket);
            }
            else if (TxRelay.WHOLE_NODE == socketId && null != node.drainedReply)
            {
                node.drained = true;
                node.drainedReply.tell(new DataPlaneMessage.NodeDrained(node.address, node.relay.relayed()));
                node.drainedReply = null;
                node.relayActor.tell(new TxRelay.Stop(false, relayStopped));
            }
        }
        return this;
    }

    private Behavior<Command> onReachability(final Reachability reachability)
    {
        final ClusterEvent.ReachabilityEvent event = reachability.event();
        final boolean reachable = event instanceof ClusterEvent.ReachableMember;
        for (final EdgeNode node : nodesAt(event.member().uniqueAddress()))
        {
            node.reachable = reachable;
            for (final EdgeSocket socket : node.sockets.values())
            {
                if (socket.ready && !declaredLost.contains(node.key()))
                {
                    socket.member.steer(reachable);
                }
            }
        }
        return this;
    }

    private Behavior<Command> onRemoved(final Removed removed)
    {
        final UniqueAddress member = removed.event().member().uniqueAddress();
        declaredLost.add(EdgeNode.key(member.address().toString(), member.longUid()));
        for (final EdgeNode node : nodesAt(member))
        {
            // Out of steering now; its members close once the relay has stopped using them.
            node.nodeDown = true;
            for (final EdgeSocket socket : node.sockets.values())
            {
                socket.member.steer(false);
            }
            if (!node.relayStopped)
            {
                node.relayActor.tell(new TxRelay.Stop(true, relayStopped));
            }
            else
            {
                closeAll(node);
            }
        }
        return this;
    }

    private Behavior<Command> onRelayStopped(final RelayStopped stopped)
    {
        for (final EdgeNode node : List.copyOf(nodes.values()))
        {
            if (node.relay == stopped.stopped().relay())
            {
                node.relayStopped = true;
                if (node.nodeDown)
                {
                    closeAll(node);
                }
                retireIfDone(node);
            }
        }
        return this;
    }

    /**
     * {@code old} is an older incarnation of the node {@code bind} comes from: declared lost, out of steering, its
     * relay fenced (every frame it still sends refused and counted), its sockets closed as a lost node's.
     *
     * @return true if {@code bind} waits until {@code old}'s members have left the group.
     */
    private boolean supersede(final EdgeNode old, final DataPlaneMessage.BindSocket bind)
    {
        declaredLost.add(old.key());
        for (final EdgeSocket socket : old.sockets.values())
        {
            socket.member.steer(false);
        }
        if (!old.fenceAsked && !old.nodeDown && !old.relayStopped)
        {
            old.fenceAsked = true;
            old.relayActor.tell(new TxRelay.Fence(relayFenced));
        }
        if (old.sockets.isEmpty())
        {
            return false;
        }
        old.pendingBinds.add(bind);
        return true;
    }

    private Behavior<Command> onRelayFenced(final RelayFenced fenced)
    {
        for (final EdgeNode node : List.copyOf(nodes.values()))
        {
            if (node.relay == fenced.fenced().relay())
            {
                closeAll(node);
            }
        }
        return this;
    }

    private Behavior<Command> onGetBooks(final GetBooks get)
    {
        final List<NodeBooks> books = new ArrayList<>(gone);
        for (final EdgeNode node : nodes.values())
        {
            books.add(node.books(!declaredLost.contains(node.key())));
        }
        get.replyTo().tell(new EdgeBooks(List.copyOf(books)));
        return this;
    }

    private Behavior<Command> onPostStop()
    {
        for (final EdgeNode node : nodes.values())
        {
            for (final EdgeSocket socket : node.sockets.values())
            {
                close(node, socket, false);
            }
        }
        return this;
    }

    /** If {@code port}'s queue map is not the one its app nodes were told last, tells them the new one. */
    private void tellQueueMap(final int port)
    {
        final QueueMap map = pipeline.queueMap(port);
        final QueueMap told = toldMaps.put(port, map);
        if (null == told || told == map)
        {
            return;
        }
        final DataPlaneMessage.QueueMapChanged change = new DataPlaneMessage.QueueMapChanged(port, map.realNumTx(),
            map.numRxQueues(), xpsRxqs(map));
        for (final EdgeNode node : nodes.values())
        {
            if (!declaredLost.contains(node.key()) &&
                node.sockets.values().stream().anyMatch(socket -> socket.member.port() == port))
            {
                node.app.tell(change);
            }
        }
    }

    private EdgeNode newNode(final String address, final long incarnation, final int txQueues)
    {
        if (nextNode == TX_STREAMS_PER_PLANE / MAX_TX_QUEUES)
        {
            throw new IllegalStateException("node " + address + " cannot bind: the edge has numbered the TX streams " +
                "of " + nextNode + " node incarnations since it started, all that its streams allow; restart the edge");
        }
        final int n = nextNode++;
        final ActorWake<TxRelay.Command> wake = new ActorWake<>(TxRelay.Poll.INSTANCE);
        final RingDoorbell doorbell = new RingDoorbell(wake);
        final int[] streamIds = new int[txQueues];
        for (int q = 0; q < txQueues; q++)
        {
            streamIds[q] = txStreamBase + n * MAX_TX_QUEUES + q;
        }
        // One receive socket per node: the JDK's DatagramChannel.receive allocates the sender's address whenever it
        // differs from the last datagram's, which nodes sharing a socket made happen on most datagrams.
        final PacketSubscription[] streams = rings.addSubscriptionsOnOwnPort(host(dataEndpoint), streamIds, doorbell);
        final String txEndpoint = streams[0].localEndpoint();
        if (null == txEndpoint)
        {
            for (final PacketSubscription stream : streams)
            {
                stream.close();
            }
            throw new IllegalStateException("the edge's driver reported no port for node " + address + "'s TX " +
                "streams on " + host(dataEndpoint));
        }
        final TxRelay relay = new TxRelay(streams);
        final ActorRef<TxRelay.Command> actor = getContext().spawn(TxRelay.create(relay, doorbell, wake), "relay-" + n,
            PipelineMailbox.selectIn(getContext().getSystem(), Props.empty()));
        return new EdgeNode(address, incarnation, txEndpoint, relay, actor);
    }

    private void closeAll(final EdgeNode node)
    {
        for (final EdgeSocket socket : List.copyOf(node.sockets.values()))
        {
            nodeOfSocket.remove(socket.member.id());
            close(node, socket, node.nodeDown || node.fenceAsked);
        }
        node.sockets.clear();
        retireIfDone(node);
        bindWaiting(node);
    }

    /**
     * Some of {@code node}'s members have left the group: the binds waiting for them go ahead (each waits again if
     * its member has not left yet).
     */
    private void bindWaiting(final EdgeNode node)
    {
        final List<DataPlaneMessage.BindSocket> waiting = List.copyOf(node.pendingBinds);
        node.pendingBinds.clear();
        for (final DataPlaneMessage.BindSocket bind : waiting)
        {
            onBind(bind);
        }
    }

    /**
     * Closes a socket's member and ring and moves its counts to the node's. For a node {@code lost} without leaving,
     * the ring's books split what was published to it: read (by its last receipt, or confirmed by its driver),
     * sent and not confirmed, and never sent ({@link RemoteRingBooks}).
     */
    private static void close(final EdgeNode node, final EdgeSocket socket, final boolean lost)
    {
        if (lost)
        {
            socket.ringBooks.settle();
        }
        node.relay.remove(socket.member.id());
        socket.member.close();
        socket.ring.close();
        final long published = Math.max(0, socket.member.delivered());
        long received = socket.confirmed;
        if (lost)
        {
            final RemoteRingBooks books = socket.ringBooks;
            received = Math.max(received, published - books.framesFrom(books.confirmedPosition()));
            node.closedNotSent += Math.min(published - received, books.framesFrom(books.senderPosition()));
        }
        socket.ringBooks.close();
        node.closedPublished += published;
        node.closedConfirmed += received;
    }

    /** A node with no socket left and its relay stopped is gone: its books move to {@link #gone}. */
    private void retireIfDone(final EdgeNode node)
    {
        if (node.sockets.isEmpty() && node.relayStopped && nodes.remove(node.key()) == node)
        {
            gone.add(node.books(false));
        }
    }

    /** The host of a {@code host:port} (an IPv6 host keeps its brackets). */
    private static String host(final String endpoint)
    {
        return endpoint.substring(0, endpoint.lastIndexOf(':'));
    }

    private List<EdgeNode> nodesAt(final UniqueAddress member)
    {
        final EdgeNode node = nodes.get(EdgeNode.key(member.address().toString(), member.longUid()));
        return null == node ? List.of() : List.of(node);
    }

    private PortAddress portAddress(final int port)
    {
        final List<PortAddress> configured = pipeline.config().ports();
        return configured.isEmpty() ? PortAddress.defaultsFor(pipeline.config().deviceSpec()).get(port) :
            configured.get(port);
    }

    /** Each TX queue's {@code xps_rxqs} as a word of RX queue bits; none sent for more than 64 RX queues. */
    private static long[] xpsRxqs(final QueueMap map)
    {
        if (!map.rxqMapEnabled() || map.numRxQueues() > MAX_XPS_RX_QUEUES)
        {
            return new long[0];
        }
        final long[] masks = new long[map.numTxQueues()];
        for (int q = 0; q < masks.length; q++)
        {
            final XpsMask mask = map.xpsRxqs(q);
            for (int rxq = null == mask ? -1 : mask.nextSetBit(0); rxq >= 0; rxq = mask.nextSetBit(rxq + 1))
            {
                masks[q] |= 1L << rxq;
            }
        }
        return masks;
    }

    /**
     * A member's steering key: the same for the same socket index of the same node incarnation, so that a node
     * coming back from unreachable gets exactly its flows back (SteeringTable).
     */
    static long steeringKey(final String node, final int index)
    {
        long z = (long)node.hashCode() << 32 ^ index;
        z = (z ^ (z >>> 33)) * 0xFF51_AFD7_ED55_8CCDL;
        return (z ^ (z >>> 33)) | Long.MIN_VALUE;
    }
}
