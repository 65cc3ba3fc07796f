package io.xmit.deploy.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.cluster.UniqueAddress;
import akka.cluster.typed.Cluster;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.deploy.cluster.data.EdgeDataPlane;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps a cluster node's books file ({@link NodeBooksFile}) for {@code xmit stat --cluster}: once an interval it asks
 * the node's data planes for their books ({@link EdgeDataPlane.GetBooks} of each edge pipeline,
 * {@link AppDataPlane.GetBooks} of each app data plane, added up) and rewrites the file with each answer; a data
 * plane that does not
 * answer keeps its last books in the file. The file is deleted when the writer stops, which the node's ActorSystem
 * does when it terminates. Control plane only: a message per data plane a second, never per packet.
 */
public final class NodeBooksWriter extends AbstractBehavior<NodeBooksWriter.Command>
{
    /** How often the books are asked for and the file rewritten. */
    public static final Duration INTERVAL = Duration.ofSeconds(1);
    static final String NAME = "xmit-node-books";

    /** The writer's protocol: its tick, the data planes' answers, and {@link Stop}. */
    public sealed interface Command permits Tick, EdgeAnswer, AppAnswer, Stop
    {
    }

    enum Tick implements Command
    {
        INSTANCE
    }

    record EdgeAnswer(String device, EdgeDataPlane.EdgeBooks books) implements Command
    {
    }

    record AppAnswer(int plane, AppDataPlane.AppBooks books) implements Command
    {
    }

    /** Stops the writer, which deletes the file: a node that closes its data path without terminating its system. */
    public enum Stop implements Command
    {
        INSTANCE
    }

    /**
     * The data planes whose books the file holds: each edge pipeline's by its device's name, and the app node's (one
     * per edge it serves; the file holds their sum). A node whose data path has not started yet has none: its file
     * then says who it is.
     */
    public record Sources(Map<String, ActorRef<EdgeDataPlane.Command>> edges,
        List<ActorRef<AppDataPlane.Command>> apps)
    {
        public static final Sources NONE = new Sources(Map.of(), List.of());

        public Sources
        {
            edges = Collections.unmodifiableMap(new LinkedHashMap<>(edges));
            apps = List.copyOf(apps);
        }

        /** These and the edge pipeline of {@code device}. */
        public Sources withEdge(final String device, final ActorRef<EdgeDataPlane.Command> edge)
        {
            final Map<String, ActorRef<EdgeDataPlane.Command>> more = new LinkedHashMap<>(edges);
            if (null != more.putIfAbsent(device, edge))
            {
                throw new IllegalArgumentException("device '" + device + "' has an edge data plane already");
            }
            return new Sources(more, apps);
        }

        /** These and one of the app node's data planes. */
        public Sources withApp(final ActorRef<AppDataPlane.Command> appDataPlane)
        {
            final List<ActorRef<AppDataPlane.Command>> more = new ArrayList<>(apps);
            more.add(appDataPlane);
            return new Sources(edges, more);
        }
    }

    private final NodeBooksFile file;
    private final Sources sources;
    private final Map<String, ActorRef<EdgeDataPlane.EdgeBooks>> edgeReplies = new HashMap<>();
    private final List<ActorRef<AppDataPlane.AppBooks>> appReplies = new ArrayList<>();
    private final Map<String, EdgeDataPlane.EdgeBooks> edgeBooks = new LinkedHashMap<>();
    private final Map<Integer, AppDataPlane.AppBooks> appBooks = new HashMap<>();

    private NodeBooksWriter(final ActorContext<Command> context, final TimerScheduler<Command> timers,
        final NodeBooksFile file, final Sources sources, final Duration interval)
    {
        super(context);
        this.file = file;
        this.sources = sources;
        for (final String device : sources.edges().keySet())
        {
            edgeReplies.put(device, context.messageAdapter(EdgeDataPlane.EdgeBooks.class,
                books -> new EdgeAnswer(device, books)));
        }
        for (int i = 0; i < sources.apps().size(); i++)
        {
            final int plane = i;
            appReplies.add(context.messageAdapter(AppDataPlane.AppBooks.class, books -> new AppAnswer(plane, books)));
        }
        timers.startTimerWithFixedDelay(Tick.INSTANCE, interval);
        ask();
    }

    /**
     * Starts the writer of {@code node}'s books as a system actor of {@code system}, a member of the cluster of
     * {@code deployment}, writing its file in {@code directory} now (who the node is) and then once a
     * {@link #INTERVAL} with the books of {@code sources}.
     *
     * @return the writer, which deletes the file when the system terminates or it is sent {@link Stop}.
     * @throws UncheckedIOException if the file cannot be written, naming it.
     */
    public static ActorRef<Command> start(final ActorSystem<?> system, final Deployment deployment, final Node node,
        final Path directory, final Sources sources)
    {
        return system.systemActorOf(create(NodeBooksFile.create(directory, identity(system, deployment, node)),
            sources, INTERVAL), NAME, Props.empty());
    }

    /** Who {@code node} is in {@code system}: its incarnation is the system's cluster member's uid. */
    static NodeBooksFile.Identity identity(final ActorSystem<?> system, final Deployment deployment, final Node node)
    {
        final UniqueAddress self = Cluster.get(system).selfMember().uniqueAddress();
        final Map<String, String> peers = new HashMap<>();
        for (final Node peer : deployment.nodes())
        {
            peers.put(peer.akkaAddress(deployment.name()), peer.name());
        }
        return new NodeBooksFile.Identity(deployment.name(), node.name(), node.roleLabels(),
            self.address().toString(), self.longUid(), peers);
    }

    /** The writer of {@code file}, which it owns and deletes when it stops. */
    static Behavior<Command> create(final NodeBooksFile file, final Sources sources, final Duration interval)
    {
        return Behaviors.setup(context -> Behaviors.withTimers(timers ->
            new NodeBooksWriter(context, timers, file, sources, interval)));
    }

    @Override
    public Receive<Command> createReceive()
    {
        return newReceiveBuilder()
            .onMessageEquals(Tick.INSTANCE, () ->
            {
                ask();
                return this;
            })
            .onMessage(EdgeAnswer.class, answer ->
            {
                edgeBooks.put(answer.device(), answer.books());
                return write();
            })
            .onMessage(AppAnswer.class, answer ->
            {
                appBooks.put(answer.plane(), answer.books());
                return write();
            })
            .onMessageEquals(Stop.INSTANCE, Behaviors::<Command>stopped)
            .onSignal(PostStop.class, signal ->
            {
                file.close();
                return this;
            })
            .build();
    }

    private void ask()
    {
        sources.edges().forEach((device, edge) -> edge.tell(new EdgeDataPlane.GetBooks(edgeReplies.get(device))));
        for (int i = 0; i < sources.apps().size(); i++)
        {
            sources.apps().get(i).tell(new AppDataPlane.GetBooks(appReplies.get(i)));
        }
    }

    private Behavior<Command> write()
    {
        final List<NodeBooksFile.EdgeView> edges = new ArrayList<>();
        edgeBooks.forEach((device, books) -> edges.add(new NodeBooksFile.EdgeView(device, books.nodes())));
        try
        {
            file.write(edges, appBooks.values().stream().reduce(AppDataPlane.AppBooks::plus));
        }
        catch (final UncheckedIOException ex)
        {
            // A full or vanished directory must not stop the node; the next answer tries again.
            getContext().getLog().warn("{}", ex.getMessage());
        }
        return this;
    }
}
