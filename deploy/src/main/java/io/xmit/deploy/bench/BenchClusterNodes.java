package io.xmit.deploy.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import akka.actor.Address;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Join;
import com.typesafe.config.ConfigFactory;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.RingsConfig;

/**
 * What the edge and the app nodes of the {@code cluster} bench share: one Akka cluster over Artery TCP on 127.0.0.1
 * (the Split Brain Resolver as in {@code ClusterDataPathTest}), the data path's UDP rings with the settings of
 * {@link DataPlaneConfig#forFrames}, and bounded waits.
 */
final class BenchClusterNodes
{
    static final String SYSTEM_NAME = "xmit-bench-cluster";
    static final Duration FORMATION = Duration.ofSeconds(60);
    static final Duration ASK = Duration.ofSeconds(30);
    /** The app nodes' receipts to the edge: a control message per socket this often, never per packet. */
    static final Duration RECEIPTS = Duration.ofMillis(100);
    /** The rings' longest frame: the loop device's. */
    static final int MAX_FRAME = 2048;

    private BenchClusterNodes()
    {
    }

    /** A cluster node on 127.0.0.1 at {@code port} (0: any). */
    static ActorSystem<Void> system(final int port)
    {
        return ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, ConfigFactory.parseString(
            "akka {\n" +
            "  loggers = [\"akka.event.slf4j.Slf4jLogger\"]\n" +
            "  logging-filter = \"akka.event.slf4j.Slf4jLoggingFilter\"\n" +
            "  actor.provider = cluster\n" +
            "  remote.artery {\n" +
            "    transport = tcp\n" +
            "    canonical { hostname = \"127.0.0.1\", port = " + port + " }\n" +
            "    advanced.inbound-lanes = 1\n" +
            "  }\n" +
            "  cluster {\n" +
            "    downing-provider-class = \"akka.cluster.sbr.SplitBrainResolverProvider\"\n" +
            "    split-brain-resolver { active-strategy = keep-majority, stable-after = 3s }\n" +
            "    failure-detector { heartbeat-interval = 1s, acceptable-heartbeat-pause = 3s }\n" +
            // The app nodes start with the edge and may ask to join before it listens: ask again soon.
            "    retry-unsuccessful-join-after = 1s\n" +
            "  }\n" +
            "  coordinated-shutdown.run-by-actor-system-terminate = off\n" +
            "}\n").withFallback(BenchSystems.quietConfig()).withFallback(ConfigFactory.load()));
    }

    /** Joins the cluster whose seed listens on {@code seedPort} of 127.0.0.1, and waits until this node is Up. */
    static void join(final ActorSystem<Void> system, final int seedPort)
    {
        final Cluster cluster = Cluster.get(system);
        cluster.manager().tell(Join.create(new Address("akka", SYSTEM_NAME, "127.0.0.1", seedPort)));
        await("this node Up in the cluster", () -> MemberStatus.up().equals(cluster.selfMember().status()), FORMATION);
    }

    static NetworkRings rings(final String name)
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(MAX_FRAME).withIpcTermLength(64 * 1024);
        return NetworkRings.launch(name, config, DataPlaneConfig.forFrames(config));
    }

    /** {@code 127.0.0.1:port} with a UDP port that was free a moment ago. */
    static String freeUdpEndpoint()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return "127.0.0.1:" + socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static <T, C> T ask(final ActorSystem<Void> system, final ActorRef<C> actor,
        final Function<ActorRef<T>, C> message)
    {
        return AskPattern.<C, T>ask(actor, message::apply, ASK, system.scheduler()).toCompletableFuture().join();
    }

    /** Waits until {@code condition}, at most {@code timeout}. */
    static void await(final String what, final BooleanSupplier condition, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("not within " + timeout.toSeconds() + " s: " + what);
            }
            try
            {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, ex);
            }
        }
    }
}
