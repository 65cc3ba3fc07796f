package io.xmit.deploy.cluster;

import akka.Done;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.typed.Cluster;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.stats.CounterType;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.deploy.cluster.data.EdgeDataPlane;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.RingsConfig;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One node of a {@link Deployment} started inside an application's own {@code ActorSystem}, the embedding API of a
 * cluster deployment. The system must be a cluster system made from the node's generated configuration
 * ({@link Deployment#akkaConfig}), so that it has the node's address, roles, seeds and downing. On an edge, a
 * pipeline per device and the edge's data plane ({@link EdgeDataPlane}) with the file's services; on an app node,
 * its data plane ({@link AppDataPlane}) and, for each service of its role, the sockets its placement asks for, each
 * with a handler of its own ({@link ServiceHandlers}): {@code per-node N} opens N here, {@code sharded N pinned} the
 * indexes pinned to this node, and {@code sharded N} joins the service's {@code ShardedDaemonProcess}
 * ({@link ShardedSocket}), which places the N sockets among the nodes of the role. A node with both roles runs both
 * over one set of UDP rings.
 * <p>
 * {@link #leave} leaves the cluster gracefully through Akka's coordinated shutdown, which also terminates the
 * system: in its {@code service-requests-done} phase the app node's sockets, sharded ones included, are drained (out
 * of the edge's steering, their rings read to the end, their replies relayed) within {@code failure.drain-deadline},
 * and the books are taken; then, in {@code cluster-sharding-shutdown-region}, sharding hands this node's sharded
 * sockets off (each finds its socket released already) and starts them on the role's other nodes; then the member
 * leaves, the pipelines stop, the system terminates and the UDP rings close.
 */
public final class ClusterNode implements AutoCloseable
{
    /** The IPC rings of the data plane's driver carry nothing but the driver's own: the smallest term. */
    private static final int DATA_IPC_TERM = 64 * 1024;
    /** How long taking the books may take once the drain is over. */
    private static final Duration BOOKS_ASK = Duration.ofSeconds(5);

    private final ActorSystem<?> system;
    private final Deployment deployment;
    private final Node node;
    private final NetworkRings rings;
    private final Map<String, Pipeline> pipelines;
    /** The edge's data plane of each device with services, by the device's name. */
    private final Map<String, ActorRef<EdgeDataPlane.Command>> edges;
    /** The app node's data plane for each device its services are on (one edge each), by the device's name. */
    private final Map<String, ActorRef<AppDataPlane.Command>> apps;
    private final CompletableFuture<List<String>> ready;
    private final AtomicReference<Books> finalBooks = new AtomicReference<>();
    private final AtomicReference<Throwable> drainFailure = new AtomicReference<>();

    private ClusterNode(final ActorSystem<?> system, final Deployment deployment, final Node node,
        final NetworkRings rings, final Map<String, Pipeline> pipelines,
        final Map<String, ActorRef<EdgeDataPlane.Command>> edges,
        final Map<String, ActorRef<AppDataPlane.Command>> apps,
        final CompletableFuture<List<String>> ready)
    {
        this.system = system;
        this.deployment = deployment;
        this.node = node;
        this.rings = rings;
        this.pipelines = pipelines;
        this.edges = edges;
        this.apps = apps;
        this.ready = ready;
    }

    /**
     * What a deployment must not ask for before this node can run it: the handlers (see
     * {@link ServiceHandlers#resolve}) of every service.
     *
     * @throws IllegalArgumentException naming the key.
     */
    public static void check(final Deployment deployment, final ServiceHandlers handlers)
    {
        handlers.resolve(deployment, List.of());
    }

    /**
     * Starts node {@code nodeName} of {@code deployment} in {@code system}; returns at once, the sockets are bound as
     * the edge appears ({@link #ready}).
     *
     * @throws IllegalArgumentException naming what is wrong: a node not in the file, a system that is not this node's
     *                                  cluster system, a deployment {@link #check} refuses, a service of this node
     *                                  without a handler.
     */
    public static ClusterNode start(final ActorSystem<?> system, final Deployment deployment, final String nodeName,
        final ServiceHandlers handlers)
    {
        final Node node = deployment.requireNode(nodeName);
        final String expected = node.akkaAddress(deployment.name());
        final String actual = "cluster".equals(system.settings().config().getString("akka.actor.provider")) ?
            Cluster.get(system).selfMember().address().toString() : "not a cluster system";
        if (!expected.equals(actual))
        {
            throw new IllegalArgumentException("node " + nodeName + " runs at " + expected + ", the system given " +
                "is " + actual + "; create it with Deployment.akkaConfig(node)");
        }
        final List<Service> hosted = deployment.servicesOf(node);
        final Map<String, Supplier<? extends DatagramHandler>> factories = handlers.resolve(deployment, hosted);
        final Map<String, Pipeline> pipelines = new LinkedHashMap<>();
        NetworkRings rings = null;
        try
        {
            for (final Device device : node.devices())
            {
                pipelines.put(device.name(), Pipeline.start(system, device.pipeline()));
            }
            final boolean edgeOfServices = deployment.services().stream()
                .anyMatch(service -> pipelines.containsKey(service.device()));
            if (!edgeOfServices && hosted.isEmpty())
            {
                final ClusterNode started = new ClusterNode(system, deployment, node, null, pipelines, Map.of(),
                    Map.of(), CompletableFuture.completedFuture(List.of()));
                started.drainBeforeLeaving();
                started.writeBooksFile();
                return started;
            }
            rings = NetworkRings.launch("xmit-" + deployment.name() + "-" + node.name(), ringsConfig(deployment),
                deployment.dataPlane().streams());
            final String dataEndpoint = node.host() + ":" + node.dataPort();
            final Map<String, ActorRef<EdgeDataPlane.Command>> edges =
                startEdges(system, deployment, pipelines, rings, dataEndpoint);
            final Map<String, ActorRef<AppDataPlane.Command>> apps =
                startApps(system, deployment, hosted, rings, dataEndpoint);
            final CompletableFuture<List<String>> ready = apps.isEmpty() ?
                CompletableFuture.completedFuture(List.of()) : open(system, apps, node, hosted, factories);
            final ClusterNode started = new ClusterNode(system, deployment, node, rings, pipelines, edges, apps,
                ready);
            started.drainBeforeLeaving();
            started.writeBooksFile();
            return started;
        }
        catch (final RuntimeException ex)
        {
            pipelines.values().forEach(Pipeline::close);
            if (null != rings)
            {
                rings.close();
            }
            throw ex;
        }
    }

    /** The data plane's rings carry the largest frame of any device of the cluster, whole. */
    private static RingsConfig ringsConfig(final Deployment deployment)
    {
        final int maxFrame = deployment.nodes().stream().flatMap(each -> each.devices().stream())
            .mapToInt(Device::maxFrame).max().orElse(RingsConfig.defaults().maxFrameLength());
        return RingsConfig.defaults().withMaxFrameLength(maxFrame).withIpcTermLength(DATA_IPC_TERM)
            .withIdleStrategy(deployment.dataPlane().idle().strategy());
    }

    /** An edge data plane for each of this node's devices that services are bound to, with those services. */
    private static Map<String, ActorRef<EdgeDataPlane.Command>> startEdges(final ActorSystem<?> system,
        final Deployment deployment, final Map<String, Pipeline> pipelines, final NetworkRings rings,
        final String dataEndpoint)
    {
        final Map<String, Map<String, SocketOptions>> groups = new LinkedHashMap<>();
        for (final Service service : deployment.services())
        {
            if (pipelines.containsKey(service.device()))
            {
                groups.computeIfAbsent(service.device(), device -> new LinkedHashMap<>()).put(service.name(),
                    SocketOptions.udp4(service.udp()).onPort(service.port()).reusePort(true));
            }
        }
        final Map<String, ActorRef<EdgeDataPlane.Command>> edges = new LinkedHashMap<>();
        groups.forEach((device, services) -> edges.put(device, system.systemActorOf(
            EdgeDataPlane.create(pipelines.get(device), rings, dataEndpoint, services, edges.size()),
            "xmit-edge-data-" + actorName(device), Props.empty())));
        return edges;
    }

    /**
     * An app data plane for each device that services {@code hosted} here are bound to: each binds with that device's
     * edge (found by one of its services' keys, {@link EdgeDataPlane#serviceKey}) in a block of streams of its own.
     */
    private static Map<String, ActorRef<AppDataPlane.Command>> startApps(final ActorSystem<?> system,
        final Deployment deployment, final List<Service> hosted, final NetworkRings rings, final String dataEndpoint)
    {
        final Map<String, ActorRef<AppDataPlane.Command>> apps = new LinkedHashMap<>();
        for (final Service service : hosted)
        {
            if (!apps.containsKey(service.device()))
            {
                apps.put(service.device(), system.systemActorOf(AppDataPlane.create(rings, dataEndpoint,
                    deployment.dataPlane().socketSpinPolls(), deployment.dataPlane().receiptInterval(),
                    EdgeDataPlane.serviceKey(service.name()), apps.size()),
                    "xmit-app-data-" + actorName(service.device()), Props.empty()));
            }
        }
        return apps;
    }

    /** {@code device} as an actor name's part: any character Akka does not allow there escaped. */
    private static String actorName(final String device)
    {
        return URLEncoder.encode(device, StandardCharsets.UTF_8);
    }

    /**
     * Opens the sockets of {@code hosted} that live on this node ({@link #indexesOn}) and starts the sharded ones'
     * daemon processes; the future completes with a line per socket opened here once every one is bound, or fails
     * with the edge's refusal. Sharded sockets are not in it: sharding decides where they run, and moves them.
     */
    private static CompletableFuture<List<String>> open(final ActorSystem<?> system,
        final Map<String, ActorRef<AppDataPlane.Command>> apps, final Node node, final List<Service> hosted,
        final Map<String, Supplier<? extends DatagramHandler>> factories)
    {
        for (final Service service : hosted)
        {
            if (Placement.Kind.SHARDED == service.placement().kind() && !service.placement().pinned())
            {
                ShardedSocket.init(system, apps.get(service.device()), service, factories.get(service.name()));
            }
        }
        final int sockets = hosted.stream().mapToInt(service -> indexesOn(service, node).size()).sum();
        if (0 == sockets)
        {
            return CompletableFuture.completedFuture(List.of());
        }
        final CompletableFuture<List<String>> ready = new CompletableFuture<>();
        final List<String> lines = new ArrayList<>();
        final ActorRef<AppDataPlane.Opened> collector = system.systemActorOf(Behaviors.receive(
            AppDataPlane.Opened.class).onMessage(AppDataPlane.Opened.class, opened ->
            {
                if (null != opened.refusal())
                {
                    ready.completeExceptionally(new IllegalStateException(opened.refusal()));
                    return Behaviors.stopped();
                }
                lines.add(String.format(Locale.ROOT, "socket %d bound to the edge's port %d", opened.socket().id(),
                    opened.socket().port()));
                if (lines.size() == sockets)
                {
                    ready.complete(List.copyOf(lines));
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            }).build(), "xmit-app-sockets", Props.empty());
        for (final Service service : hosted)
        {
            for (final int index : indexesOn(service, node))
            {
                apps.get(service.device()).tell(new AppDataPlane.Open(service.name(), index,
                    factories.get(service.name()).get(),
                    collector));
            }
        }
        return ready;
    }

    /**
     * The indexes of {@code service}'s sockets that {@code node} opens itself: all N of {@code per-node N}, those
     * pinned to it of {@code sharded N pinned} (socket i on the i-th pin, living and dying with that node), none of
     * {@code sharded N}.
     */
    static List<Integer> indexesOn(final Service service, final Node node)
    {
        final Placement placement = service.placement();
        final List<Integer> indexes = new ArrayList<>();
        for (int index = 0; index < placement.sockets(); index++)
        {
            if (Placement.Kind.PER_NODE == placement.kind() ||
                placement.pinned() && node.name().equals(placement.pins().get(index)))
            {
                indexes.add(index);
            }
        }
        return indexes;
    }

    /**
     * The drain, before the member leaves: in coordinated shutdown's {@code service-requests-done} phase (whose
     * timeout the generated configuration sets to the drain deadline), the app node's graceful leave, then the
     * books; the UDP rings close once the system has terminated.
     */
    private void drainBeforeLeaving()
    {
        CoordinatedShutdown.get(Adapter.toClassic(system)).addTask(CoordinatedShutdown.PhaseServiceRequestsDone(),
            "xmit-drain", () -> drain().thenApply(books ->
            {
                finalBooks.set(books);
                return Done.getInstance();
            }));
        if (null != rings)
        {
            system.getWhenTerminated().thenRun(rings::close);
        }
    }

    /**
     * The node's books file ({@link NodeBooksWriter}, read by {@code xmit stat --cluster}), rewritten from its data
     * planes' books until the system terminates.
     */
    private void writeBooksFile()
    {
        NodeBooksWriter.Sources sources = NodeBooksWriter.Sources.NONE;
        for (final Map.Entry<String, ActorRef<EdgeDataPlane.Command>> edge : edges.entrySet())
        {
            sources = sources.withEdge(edge.getKey(), edge.getValue());
        }
        for (final ActorRef<AppDataPlane.Command> app : apps.values())
        {
            sources = sources.withApp(app);
        }
        NodeBooksWriter.start(system, deployment, node, NodeBooksFile.directory(node), sources);
    }

    private CompletionStage<Books> drain()
    {
        CompletionStage<Optional<AppDataPlane.AppBooks>> left = CompletableFuture.completedFuture(Optional.empty());
        for (final ActorRef<AppDataPlane.Command> app : apps.values())
        {
            left = left.thenCombine(AskPattern.<AppDataPlane.Command, AppDataPlane.Left>ask(app,
                AppDataPlane.Leave::new, deployment.failure().drainDeadline(), system.scheduler())
                .thenApply(drained -> Optional.of(drained.books())), ClusterNode::plus);
        }
        return left.exceptionally(failure ->
        {
            drainFailure.set(failure);
            return Optional.empty();
        }).thenCompose(drained -> books().thenApply(books ->
            new Books(books.node(), books.edges(), drained.or(books::app), books.edgeDevices())));
    }

    /**
     * Whether every socket this node opens itself ({@code per-node} and pinned ones) is bound: a line per socket, or
     * the edge's refusal. Sharded sockets are not in it: sharding places them, and may move them.
     */
    public CompletionStage<List<String>> ready()
    {
        return ready;
    }

    public Node node()
    {
        return node;
    }

    /** This node's pipelines by device name; none on an app node. */
    public Map<String, Pipeline> pipelines()
    {
        return Map.copyOf(pipelines);
    }

    /** The books now: the edge's per app node and per service port, the app node's sockets'. */
    public CompletionStage<Books> books()
    {
        CompletionStage<Map<String, EdgeDataPlane.EdgeBooks>> edgeBooks =
            CompletableFuture.completedFuture(new LinkedHashMap<>());
        for (final Map.Entry<String, ActorRef<EdgeDataPlane.Command>> edge : edges.entrySet())
        {
            edgeBooks = edgeBooks.thenCombine(AskPattern.<EdgeDataPlane.Command, EdgeDataPlane.EdgeBooks>ask(
                edge.getValue(), EdgeDataPlane.GetBooks::new, BOOKS_ASK, system.scheduler()), (all, one) ->
                {
                    all.put(edge.getKey(), one);
                    return all;
                });
        }
        CompletionStage<Optional<AppDataPlane.AppBooks>> appBooks = CompletableFuture.completedFuture(Optional.empty());
        for (final ActorRef<AppDataPlane.Command> app : apps.values())
        {
            appBooks = appBooks.thenCombine(AskPattern.<AppDataPlane.Command, AppDataPlane.AppBooks>ask(app,
                AppDataPlane.GetBooks::new, BOOKS_ASK, system.scheduler()).thenApply(Optional::of), ClusterNode::plus);
        }
        return edgeBooks.thenCombine(appBooks, (edgeSide, appSide) -> new Books(node.name(), edgeSide, appSide,
            serviceBooks()));
    }

    /** Two sets of app books added up; either may be absent. */
    private static Optional<AppDataPlane.AppBooks> plus(final Optional<AppDataPlane.AppBooks> one,
        final Optional<AppDataPlane.AppBooks> other)
    {
        return one.map(books -> other.map(books::plus).orElse(books)).or(() -> other);
    }

    /**
     * How many sockets of the services on this edge the cluster is meant to have: per-node N on every node of the
     * service's role, sharded N cluster-wide.
     */
    public int plannedSockets()
    {
        int sockets = 0;
        for (final Service service : deployment.services())
        {
            if (pipelines.containsKey(service.device()))
            {
                sockets += Placement.Kind.SHARDED == service.placement().kind() ? service.placement().sockets() :
                    service.placement().sockets() *
                        (int)deployment.nodes().stream().filter(each -> each.has(service.role())).count();
            }
        }
        return sockets;
    }

    /** The sockets this edge steers to now, over every app node. */
    public CompletionStage<Integer> steered()
    {
        return books().thenApply(books -> books.edges().values().stream().flatMap(edge -> edge.nodes().stream())
            .mapToInt(EdgeDataPlane.NodeBooks::steered).sum());
    }

    /** The books taken at the end of the drain, once {@link #leave} has run it; empty before. */
    public Optional<Books> finalBooks()
    {
        return Optional.ofNullable(finalBooks.get());
    }

    /** Why the app node's drain did not finish within the drain deadline, if it did not; its books were taken anyway. */
    public Optional<Throwable> drainFailure()
    {
        return Optional.ofNullable(drainFailure.get());
    }

    /** The receive books of each service's port on this edge. */
    private List<ServiceBooks> serviceBooks()
    {
        final List<ServiceBooks> books = new ArrayList<>();
        for (final Service service : deployment.services())
        {
            final Pipeline pipeline = pipelines.get(service.device());
            if (null != pipeline)
            {
                final Map<String, Long> drops = new LinkedHashMap<>();
                for (final CounterType type : ServiceBooks.DROPS)
                {
                    drops.put(type.label(), pipeline.total(type, service.port()));
                }
                books.add(new ServiceBooks(service.name(), service.device(), service.port(),
                    pipeline.total(CounterType.RX_DELIVERED, service.port()), drops));
            }
        }
        return books;
    }

    /**
     * Leaves the cluster gracefully: Akka's coordinated shutdown with the cluster-leaving reason (the drain, the
     * leave, the pipelines' stop, the system's termination). Completes when the system has terminated.
     */
    public CompletionStage<Done> leave()
    {
        return CoordinatedShutdown.get(Adapter.toClassic(system)).runAll(CoordinatedShutdown.clusterLeavingReason());
    }

    /** {@link #leave}, waiting for it at most the drain deadline; the rings close with the system. */
    @Override
    public void close()
    {
        leave();
        system.getWhenTerminated().toCompletableFuture()
            .completeOnTimeout(Done.getInstance(), deployment.failure().drainDeadline().toNanos(),
                TimeUnit.NANOSECONDS).join();
    }

    /**
     * A service's port on this edge: what its RX queues delivered (to local sockets and into the app nodes' rings)
     * and dropped, by reason.
     */
    public record ServiceBooks(String service, String device, int port, long delivered, Map<String, Long> drops)
    {
        static final List<CounterType> DROPS = List.of(CounterType.RX_DROP_NO_SOCKET,
            CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_NODE_DOWN, CounterType.RX_DROP_MALFORMED,
            CounterType.RX_DROP_UNSUPPORTED, CounterType.RX_DROP_FAILED, CounterType.RX_DROP_SHUTDOWN);

        public ServiceBooks
        {
            drops = Collections.unmodifiableMap(new LinkedHashMap<>(drops));
        }

        public long dropped()
        {
            return drops.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * A node's books: on an edge, each app node's ({@link EdgeDataPlane.NodeBooks}) by the device whose services it
     * served, and each service port's; on an app node, its sockets', over every edge it serves.
     */
    public record Books(String node, Map<String, EdgeDataPlane.EdgeBooks> edges, Optional<AppDataPlane.AppBooks> app,
        List<ServiceBooks> edgeDevices)
    {
        public Books
        {
            edges = Collections.unmodifiableMap(new LinkedHashMap<>(edges));
            edgeDevices = List.copyOf(edgeDevices);
        }

        /** One line per service port, per app node the edge served, and for this node's sockets. */
        public List<String> lines()
        {
            final List<String> lines = new ArrayList<>();
            for (final ServiceBooks service : edgeDevices)
            {
                lines.add(String.format(Locale.ROOT, "books %s: service %s on port %d of %s: rx_delivered %d, " +
                    "rx dropped %d %s", node, service.service(), service.port(), service.device(),
                    service.delivered(), service.dropped(), service.drops()));
            }
            edges.forEach((device, books) -> books.nodes().forEach(each -> lines.add(String.format(Locale.ROOT,
                "books %s: app node %s%s on %s: published %d, received %d, unconfirmed %d, relayed %d, " +
                    "rejected %d, refused %d, tx_node_down %d", node, each.node(), each.live() ? "" : " (gone)",
                device, each.published(), each.received(), each.unconfirmed(), each.relayed(), each.rejected(),
                each.refused(), each.txNodeDown()))));
            app.ifPresent(books -> lines.add(String.format(Locale.ROOT, "books %s: sockets %d, received %d, " +
                    "sent %d, back-pressured %d, refused %d, malformed %d, handler failed %d", node, books.sockets(),
                books.received(), books.sent(), books.backPressured(), books.refused(), books.malformed(),
                books.handlerFailed())));
            return lines;
        }
    }
}
