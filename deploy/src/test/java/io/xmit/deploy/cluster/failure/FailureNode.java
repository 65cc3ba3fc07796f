package io.xmit.deploy.cluster.failure;

import akka.actor.Address;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import com.typesafe.config.ConfigFactory;
import io.xmit.deploy.cluster.ClusterNode;
import io.xmit.deploy.cluster.Deployment;
import io.xmit.deploy.cluster.Node;
import io.xmit.deploy.cluster.NodeAkkaConfig;
import io.xmit.deploy.cluster.Role;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A node of the failure tests: {@code FailureNode FILE NODE} builds the node's ActorSystem from the deployment file
 * ({@link Deployment#akkaConfig}, so the failure detector and the split-brain resolver are the file's) and starts the
 * node as {@code xmit cluster run} does, through {@link ClusterNode#start}: an edge runs the device's pipeline and the
 * data plane, and the test's clients on the pipeline ({@link EdgeRole}); an app node's sockets get an echo handler
 * registered in code ({@link AppRole}). It prints what happens as lines {@code WORD key=value ...} on standard output,
 * takes commands a line at a time on standard input, and on SIGTERM leaves gracefully ({@link ClusterNode#leave}:
 * Akka's coordinated shutdown with the cluster-leaving reason, the app node's drain in it). A node removed without
 * leaving (downed) prints {@code downed} and exits 1.
 */
public final class FailureNode
{
    static final int EXIT_DOWNED = 1;
    static final int EXIT_FAILED = 3;

    /** What a role does with the commands and the stop. */
    interface NodeRole
    {
        /** Answers one command line from the test; unknown commands are an error line. */
        void command(String line);

        /** SIGTERM: leave gracefully ({@link ClusterNode#leave}: the drain, the leave, the system's end), then return
         * the exit code. */
        int leave() throws InterruptedException;

        /** A line about what the node did that needs no ActorSystem: what a downed node still prints. */
        String lastWords();
    }

    private FailureNode()
    {
    }

    public static void main(final String[] args)
    {
        if (args.length != 2)
        {
            System.err.println("usage: FailureNode FILE NODE");
            System.exit(2);
        }
        try
        {
            System.exit(run(Path.of(args[0]), args[1]));
        }
        catch (final Exception | Error ex)
        {
            // Akka's and Aeron's threads would keep a JVM whose start failed alive.
            ex.printStackTrace(System.out);
            say("failed " + ex);
            System.exit(EXIT_FAILED);
        }
    }

    private static int run(final Path file, final String nodeName) throws Exception
    {
        final Deployment deployment = Deployment.read(file);
        final Node node = deployment.requireNode(nodeName);
        final ActorSystem<ClusterEvent.ClusterDomainEvent> system = ActorSystem.create(membership(deployment),
            deployment.name(),
            deployment.akkaConfig(node).withFallback(NodeAkkaConfig.PROCESS).withFallback(ConfigFactory.load()));
        final NodeRole role = node.has(Role.EDGE) ? new EdgeRole(system, deployment, node) :
            new AppRole(system, deployment, node);

        final CountDownLatch stop = new CountDownLatch(1);
        system.getWhenTerminated().thenRun(stop::countDown);
        final AtomicReference<String> asked = new AtomicReference<>();
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal ->
        {
            asked.set("SIGTERM");
            stop.countDown();
        });
        Thread.ofPlatform().daemon().name("failure-node-commands").start(() -> readCommands(role));
        say("started node=" + node.name());
        stop.await();
        final int code;
        if (null == asked.get())
        {
            say("downed at=" + System.currentTimeMillis() + " " + role.lastWords());
            code = EXIT_DOWNED;
        }
        else
        {
            code = role.leave();
            system.getWhenTerminated().toCompletableFuture().get(deployment.failure().drainDeadline().toMillis(),
                TimeUnit.MILLISECONDS);
        }
        say("exit code=" + code + " " + role.lastWords());
        return code;
    }

    /** One line to the test, whole. */
    static void say(final String line)
    {
        synchronized (System.out)
        {
            System.out.println(line);
            System.out.flush();
        }
    }

    /** The node's name in the file from its Akka address. */
    static String nameOf(final Deployment deployment, final Address address)
    {
        for (final Node node : deployment.nodes())
        {
            if (node.akkaAddress(deployment.name()).equals(address.toString()))
            {
                return node.name();
            }
        }
        return address.toString();
    }

    private static void readCommands(final NodeRole role)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            for (String line = in.readLine(); null != line; line = in.readLine())
            {
                try
                {
                    role.command(line.strip());
                }
                catch (final RuntimeException ex)
                {
                    say("error command=" + line.strip() + " " + ex);
                }
            }
        }
        catch (final IOException ex)
        {
            say("error stdin " + ex.getMessage());
        }
    }

    /** The guardian: prints every member and reachability change with its wall-clock time. */
    private static Behavior<ClusterEvent.ClusterDomainEvent> membership(final Deployment deployment)
    {
        return Behaviors.setup(context ->
        {
            final Cluster cluster = Cluster.get(context.getSystem());
            cluster.subscriptions().tell(Subscribe.create(context.getSelf().narrow(), ClusterEvent.MemberEvent.class));
            cluster.subscriptions().tell(Subscribe.create(context.getSelf().narrow(),
                ClusterEvent.ReachabilityEvent.class));
            return Behaviors.receive(ClusterEvent.ClusterDomainEvent.class)
                .onMessage(ClusterEvent.MemberUp.class, event -> member(deployment, event.member().address(), "up"))
                .onMessage(ClusterEvent.MemberRemoved.class, event ->
                    member(deployment, event.member().address(), "removed"))
                .onMessage(ClusterEvent.UnreachableMember.class, event ->
                    member(deployment, event.member().address(), "unreachable"))
                .onMessage(ClusterEvent.ReachableMember.class, event ->
                    member(deployment, event.member().address(), "reachable"))
                .onMessage(ClusterEvent.ClusterDomainEvent.class, event -> Behaviors.same())
                .build();
        });
    }

    private static Behavior<ClusterEvent.ClusterDomainEvent> member(final Deployment deployment,
        final Address address, final String change)
    {
        say("member name=" + nameOf(deployment, address) + " change=" + change + " at=" + System.currentTimeMillis());
        return Behaviors.same();
    }
}
