package io.xmit.deploy.cluster;

import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.aeron.exceptions.AeronException;
import io.xmit.actors.config.ConfigValues;
import io.xmit.deploy.Main;
import io.xmit.transport.nic.NicException;

import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * One node of a deployment in this JVM, {@code xmit cluster run}: its ActorSystem made from the node's generated
 * Akka configuration joins the cluster through the seeds, and the node starts in it ({@link ClusterNode}: on an edge
 * a pipeline per device and the edge's data plane, on an app node the sockets of its services); with
 * {@code --load}, an edge offers requests to its service ({@link ClusterLoad}); membership changes are printed as
 * they come. Ctrl-C or SIGTERM leaves the cluster gracefully (Akka's coordinated shutdown with the cluster-leaving
 * reason: the sockets drain, the member goes Leaving, Exiting, Removed, and the pipelines stop in its
 * {@code service-stop} phase) within the file's drain deadline, the node's books are printed, and the command exits
 * 0. A node the cluster downs or removes without being asked (the split-brain resolver) exits 1, and so does one whose
 * drain did not finish.
 */
final class NodeRunner
{
    /** How often the edge's books are read while the load waits for the sockets. */
    private static final long STEERED_POLL_MS = 200;

    private final Deployment deployment;
    private final Node node;
    private final boolean local;
    private final LoadOptions load;
    private final PrintStream out;
    private final PrintStream err;
    private final CountDownLatch stopOrGone = new CountDownLatch(1);
    private final AtomicReference<String> stopReason = new AtomicReference<>();

    /**
     * @param local started by {@code xmit cluster local}: Ctrl-C is ignored (the parent stops the nodes one by one)
     *              and the node stops when its standard input closes, which happens when the parent dies however it
     *              dies.
     */
    NodeRunner(final Deployment deployment, final Node node, final boolean local, final LoadOptions load,
        final PrintStream out, final PrintStream err)
    {
        this.deployment = deployment;
        this.node = node;
        this.local = local;
        this.load = load;
        this.out = out;
        this.err = err;
    }

    /** The ActorSystem's configuration: the node's Akka configuration over the command's and Akka's defaults. */
    static Config systemConfig(final Deployment deployment, final Node node)
    {
        return deployment.akkaConfig(node).withFallback(NodeAkkaConfig.PROCESS).withFallback(ConfigFactory.load());
    }

    int run()
    {
        try
        {
            deployment.dataPlane().streams().checkHost();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("xmit cluster run: " + ClusterKey.SECTION + ".data-plane does not fit this host: " +
                ex.getMessage());
            return Main.EXIT_USAGE;
        }
        StopSignals.install(local ? List.of("TERM") : List.of("INT", "TERM"), local ? List.of("INT") : List.of(),
            this::stop);
        if (local)
        {
            Thread.ofPlatform().daemon().name("xmit-cluster-parent").start(this::stopWhenStdinCloses);
        }
        out.printf(Locale.ROOT, "xmit cluster run: node %s of cluster %s at %s, roles %s; seeds %s%n", node.name(),
            deployment.name(), node.akkaAddress(deployment.name()), String.join(", ", node.roleLabels()),
            String.join(", ", deployment.seeds()));
        final MembershipLog membership = new MembershipLog(deployment);
        // slf4j initialised before Akka's first log line, which it would otherwise replay with a three-line notice.
        LoggerFactory.getLogger(NodeRunner.class);
        final ActorSystem<?> system = ActorSystem.create(MembershipListener.create(membership, out::println),
            deployment.name(), systemConfig(deployment, node));
        system.getWhenTerminated().thenRun(stopOrGone::countDown);
        ClusterLoad offered = null;
        try
        {
            final ClusterNode started = start(system);
            if (load.rate() > 0 && everySocketSteered(started))
            {
                offered = ClusterLoad.start(started, deployment, load.rate(), load.flows(), load.duration(), out);
            }
            stopOrGone.await();
            if (null != offered)
            {
                offered.stop();
            }
            if (null == stopReason.get())
            {
                err.printf(Locale.ROOT, "xmit cluster run: node %s was removed from the cluster without leaving " +
                    "(last seen %s); exit %d%n", node.name(), label(membership.last(node.name())), Main.EXIT_FAILED);
                return Main.EXIT_FAILED;
            }
            return leave(system, membership, started);
        }
        catch (final StartFailure ex)
        {
            err.println("xmit cluster run: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Main.EXIT_FAILED;
        }
        finally
        {
            system.terminate();
        }
    }

    /**
     * Waits until the edge steers to every socket the placement plans (so that the load meets a whole service), or
     * the node is asked to stop.
     */
    private boolean everySocketSteered(final ClusterNode started) throws InterruptedException
    {
        final int planned = started.plannedSockets();
        out.printf(Locale.ROOT, "load: waiting until the edge steers to all %d sockets%n", planned);
        while (started.steered().toCompletableFuture().join() < planned)
        {
            if (stopOrGone.await(STEERED_POLL_MS, TimeUnit.MILLISECONDS))
            {
                return false;
            }
        }
        return true;
    }

    /** The node's pipelines, data plane and sockets ({@link ClusterNode}); the sockets' binding printed as it comes. */
    private ClusterNode start(final ActorSystem<?> system)
    {
        final ClusterNode started;
        try
        {
            started = ClusterNode.start(system, deployment, node.name(), new ServiceHandlers());
        }
        catch (final IllegalStateException | IllegalArgumentException | UncheckedIOException | NicException |
            AeronException ex)
        {
            // What only starting can find: a device that cannot be opened, a /dev/shm too small for the rings.
            throw new StartFailure("cannot start node " + node.name() + ": " + ex.getMessage());
        }
        started.pipelines().forEach((name, pipeline) -> out.printf(Locale.ROOT,
            "device %s: pipeline started on %s, %d %s; counters %s%n", name, pipeline.config().device(),
            pipeline.config().cpus(), 1 == pipeline.config().cpus() ? "CPU" : "CPUs", pipeline.countersPath()));
        final List<Service> services = deployment.servicesOf(node);
        if (!services.isEmpty())
        {
            out.println("services this node hosts: " + services.stream()
                .map(service -> service.name() + " (" + service.placement() + ")").collect(Collectors.joining(", ")) +
                "; binding their sockets when the edge is up");
        }
        started.ready().whenComplete((lines, failure) ->
        {
            if (null != failure)
            {
                err.println("xmit cluster run: a socket was refused: " + failure.getMessage());
            }
            else if (!lines.isEmpty())
            {
                out.println(lines.size() + " sockets bound: " + String.join("; ", lines));
            }
        });
        return started;
    }

    /**
     * Leaves through Akka's coordinated shutdown (sharding hands off, the member leaves and is removed, the
     * pipelines stop, the system terminates), waiting at most the drain deadline.
     */
    private int leave(final ActorSystem<?> system, final MembershipLog membership, final ClusterNode started)
        throws InterruptedException
    {
        out.println("leaving the cluster (" + stopReason.get() + ")");
        final long start = System.nanoTime();
        started.leave();
        final long deadline = deployment.failure().drainDeadline().toNanos();
        try
        {
            system.getWhenTerminated().toCompletableFuture().get(deadline, TimeUnit.NANOSECONDS);
        }
        catch (final TimeoutException ex)
        {
            err.printf(Locale.ROOT, "xmit cluster run: node %s did not leave within %s = %s (last seen %s); " +
                "stopping it; exit %d%n", node.name(), ClusterKey.DRAIN_DEADLINE.key(),
                ConfigValues.render(deployment.failure().drainDeadline()), label(membership.last(node.name())),
                Main.EXIT_FAILED);
            return Main.EXIT_FAILED;
        }
        catch (final ExecutionException ex)
        {
            err.println("xmit cluster run: node " + node.name() + " failed while leaving: " + ex.getCause());
            return Main.EXIT_FAILED;
        }
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        for (final Device device : node.devices())
        {
            out.println("device " + device.name() + ": stop: " +
                started.pipelines().get(device.name()).stop(device.pipeline().stopDeadline()).line());
        }
        started.finalBooks().ifPresentOrElse(books -> books.lines().forEach(out::println),
            () -> err.println("xmit cluster run: node " + node.name() + " took no books: its drain phase did not " +
                "complete"));
        if (started.drainFailure().isPresent())
        {
            err.printf(Locale.ROOT, "xmit cluster run: node %s: its sockets' drain did not finish within %s (%s); " +
                "the books above are as it stopped; exit %d%n", node.name(), ClusterKey.DRAIN_DEADLINE.key(),
                started.drainFailure().get(), Main.EXIT_FAILED);
            return Main.EXIT_FAILED;
        }
        final MembershipLog.Change self = membership.last(node.name());
        if (MembershipLog.Change.EXITED != self && MembershipLog.Change.REMOVED != self)
        {
            err.printf(Locale.ROOT, "xmit cluster run: node %s stopped in %d ms but the cluster never moved it to " +
                "exiting (last seen %s); exit %d%n", node.name(), ms, label(self), Main.EXIT_FAILED);
            return Main.EXIT_FAILED;
        }
        out.printf(Locale.ROOT, "left the cluster gracefully in %d ms (last seen %s); exit %d%n", ms, label(self),
            Main.EXIT_OK);
        return Main.EXIT_OK;
    }

    private void stop(final String reason)
    {
        if (stopReason.compareAndSet(null, reason))
        {
            stopOrGone.countDown();
        }
    }

    /** Reads standard input to its end, which comes when the parent that holds the other end is gone. */
    private void stopWhenStdinCloses()
    {
        try
        {
            // Whatever the parent writes means nothing; only the end does.
            System.in.transferTo(OutputStream.nullOutputStream());
        }
        catch (final IOException brokenPipe)
        {
            // An end too.
        }
        stop("xmit cluster local, its parent, is gone");
    }

    private static String label(final MembershipLog.Change change)
    {
        return null == change ? "never a member" : change.label();
    }

    /**
     * Load offered by an edge to its service ({@link ClusterLoad}).
     *
     * @param rate     requests per second; 0 for none.
     * @param duration how long; zero for until the node stops.
     */
    record LoadOptions(int rate, int flows, Duration duration)
    {
        static final LoadOptions NONE = new LoadOptions(0, 0, Duration.ZERO);
    }

    /** A node that could not start: it stops, exit 1. */
    private static final class StartFailure extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        StartFailure(final String message)
        {
            super(message, null, false, false);
        }
    }
}
