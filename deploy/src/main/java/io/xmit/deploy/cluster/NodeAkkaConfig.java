package io.xmit.deploy.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import io.xmit.actors.config.ConfigValues;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Akka configuration of one node, generated from the deployment: the cluster provider, Artery TCP on the node's
 * host and port (never Artery's aeron-udp, which would start a second media driver built against another Aeron), the
 * seed nodes, the node's roles, the Split Brain Resolver with its strategy and stable-after, and the failure
 * detector; remember-entities stays off, which keeps durable distributed data (and its native LMDB) out; sharded
 * sockets' keep-alive every second, so a lost node's sockets start elsewhere soon after it is downed. What the
 * file sets under {@code akka { … }} overrides all of it.
 */
public final class NodeAkkaConfig
{
    /** Akka's open-source Split Brain Resolver (in akka-cluster since 2.6.6). */
    public static final String SBR_PROVIDER = "akka.cluster.sbr.SplitBrainResolverProvider";

    /** How often each node of a role pings every instance of its sharded services, starting those not running. */
    static final Duration SHARDED_KEEP_ALIVE = Duration.ofSeconds(1);

    /**
     * What a process that runs one node itself needs below the node's configuration: Akka's own logging through slf4j
     * at WARNING, and no JVM shutdown hook of Akka's, the process handling the signals and running the coordinated
     * shutdown itself.
     */
    public static final Config PROCESS = ConfigFactory.parseString("""
        akka {
          loglevel = WARNING
          loggers = ["akka.event.slf4j.Slf4jLogger"]
          logging-filter = "akka.event.slf4j.Slf4jLoggingFilter"
          log-dead-letters = off
          jvm-shutdown-hooks = off
          coordinated-shutdown.run-by-jvm-shutdown-hook = off
        }
        """);

    private NodeAkkaConfig()
    {
    }

    /** The configuration of {@code node}: the file's {@code akka} section over the generated one. */
    public static Config of(final Deployment deployment, final Node node)
    {
        return deployment.akka().withFallback(generated(deployment, node));
    }

    /** What the file alone decides for {@code node}, without the file's {@code akka} section. */
    public static Config generated(final Deployment deployment, final Node node)
    {
        final FailureSettings failure = deployment.failure();
        final SplitBrain splitBrain = failure.splitBrain();
        final String sbr = "akka.cluster.split-brain-resolver.";
        Config config = ConfigFactory.empty()
            .withValue("akka.actor.provider", value("cluster"))
            .withValue("akka.remote.artery.transport", value("tcp"))
            .withValue("akka.remote.artery.canonical.hostname", value(node.host()))
            .withValue("akka.remote.artery.canonical.port", value(node.port()))
            .withValue("akka.cluster.roles", value(node.roleLabels()))
            .withValue("akka.cluster.seed-nodes", value(deployment.seeds().stream()
                .map(seed -> deployment.requireNode(seed).akkaAddress(deployment.name())).toList()))
            .withValue("akka.cluster.downing-provider-class", value(SBR_PROVIDER))
            .withValue(sbr + "active-strategy", value(splitBrain.strategy().label()))
            .withValue(sbr + "stable-after", value(ConfigValues.render(splitBrain.stableAfter())))
            .withValue("akka.cluster.failure-detector.heartbeat-interval",
                value(ConfigValues.render(failure.heartbeatInterval())))
            .withValue("akka.cluster.failure-detector.acceptable-heartbeat-pause",
                value(ConfigValues.render(failure.acceptableHeartbeatPause())))
            .withValue("akka.cluster.sharding.remember-entities", value("off"))
            // A sharded socket of a lost node starts again on another node at the next keep-alive: Akka's 10 s default
            // would add that to the failover; a keep-alive is a local message per instance.
            .withValue("akka.cluster.sharded-daemon-process.keep-alive-interval",
                value(ConfigValues.render(SHARDED_KEEP_ALIVE)))
            // The services' drain (ClusterNode) runs in this phase: it may take the drain deadline.
            .withValue("akka.coordinated-shutdown.phases.service-requests-done.timeout",
                value(ConfigValues.render(failure.drainDeadline())));
        final String strategy = sbr + splitBrain.strategy().label() + ".";
        if (splitBrain.role().isPresent())
        {
            config = config.withValue(strategy + "role", value(splitBrain.role().get().label()));
        }
        if (SplitBrain.Strategy.STATIC_QUORUM == splitBrain.strategy())
        {
            config = config.withValue(strategy + "quorum-size", value(splitBrain.quorumSize()));
        }
        return config;
    }

    /**
     * {@code config} as HOCON, a line per setting, {@code path = value}, sorted by path: what
     * {@code xmit cluster check} prints, and what a file could hold.
     */
    public static List<String> render(final Config config)
    {
        final Map<String, ConfigValue> sorted = new TreeMap<>();
        config.entrySet().forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
        final List<String> lines = new ArrayList<>();
        for (final Map.Entry<String, ConfigValue> entry : sorted.entrySet())
        {
            lines.add(entry.getKey() + " = " + ConfigValues.render(entry.getValue()));
        }
        return lines;
    }

    private static ConfigValue value(final Object value)
    {
        return ConfigValueFactory.fromAnyRef(value, "the deployment file");
    }
}
