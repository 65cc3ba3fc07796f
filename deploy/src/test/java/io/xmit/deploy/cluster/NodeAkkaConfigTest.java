package io.xmit.deploy.cluster;

import akka.cluster.ClusterSettings;
import com.typesafe.config.Config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.xmit.deploy.cluster.DeploymentReaderTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Each node's Akka configuration, generated from the deployment file, with the file's akka section over it. */
class NodeAkkaConfigTest
{
    @Test
    void aNodeGetsTheClusterProviderItsAddressTheSeedsItsRolesAndTheFailureSettings()
    {
        final Deployment deployment = read("""
            xmit.cluster.failure { detector { heartbeat-interval = 500ms, acceptable-heartbeat-pause = 2s }
              split-brain.stable-after = 7s, drain-deadline = 25s }
            """);
        final Config config = deployment.akkaConfig(deployment.requireNode("app-1"));
        assertEquals("cluster", config.getString("akka.actor.provider"));
        assertEquals("tcp", config.getString("akka.remote.artery.transport"));
        assertEquals("127.0.0.1", config.getString("akka.remote.artery.canonical.hostname"));
        assertEquals(25521, config.getInt("akka.remote.artery.canonical.port"));
        assertEquals(List.of("akka://echo@127.0.0.1:25520", "akka://echo@127.0.0.1:25521"),
            config.getStringList("akka.cluster.seed-nodes"));
        assertEquals(List.of("app"), config.getStringList("akka.cluster.roles"));
        assertEquals(NodeAkkaConfig.SBR_PROVIDER, config.getString("akka.cluster.downing-provider-class"));
        assertEquals("static-quorum", config.getString("akka.cluster.split-brain-resolver.active-strategy"));
        assertEquals(Duration.ofSeconds(7), config.getDuration("akka.cluster.split-brain-resolver.stable-after"));
        assertEquals("edge", config.getString("akka.cluster.split-brain-resolver.static-quorum.role"));
        assertEquals(1, config.getInt("akka.cluster.split-brain-resolver.static-quorum.quorum-size"));
        assertEquals(Duration.ofMillis(500), config.getDuration("akka.cluster.failure-detector.heartbeat-interval"));
        assertEquals(Duration.ofSeconds(2),
            config.getDuration("akka.cluster.failure-detector.acceptable-heartbeat-pause"));
        assertFalse(config.getBoolean("akka.cluster.sharding.remember-entities"));
        assertEquals(Duration.ofSeconds(1),
            config.getDuration("akka.cluster.sharded-daemon-process.keep-alive-interval"),
            "a lost node's sharded sockets start elsewhere at the next keep-alive");
        assertEquals(Duration.ofSeconds(25),
            config.getDuration("akka.coordinated-shutdown.phases.service-requests-done.timeout"),
            "the services' drain may take the drain deadline");
        assertEquals(List.of("edge"),
            deployment.akkaConfig(deployment.requireNode("edge-1")).getStringList("akka.cluster.roles"));
        assertEquals(25520, deployment.akkaConfig(deployment.requireNode("edge-1"))
            .getInt("akka.remote.artery.canonical.port"));
    }

    @Test
    void theFilesAkkaSectionOverridesWhatIsGenerated()
    {
        final Deployment deployment = read("""
            akka.cluster.failure-detector.heartbeat-interval = 2s
            akka.remote.artery.advanced.inbound-lanes = 1
            """);
        final Config config = deployment.akkaConfig(deployment.requireNode("app-2"));
        assertEquals(Duration.ofSeconds(2), config.getDuration("akka.cluster.failure-detector.heartbeat-interval"));
        assertEquals(1, config.getInt("akka.remote.artery.advanced.inbound-lanes"));
        assertEquals(Duration.ofSeconds(3),
            config.getDuration("akka.cluster.failure-detector.acceptable-heartbeat-pause"));
        assertEquals(25522, config.getInt("akka.remote.artery.canonical.port"));
    }

    @Test
    void otherStrategiesTakeTheirRoleAndNoQuorum()
    {
        final Deployment majority = read("xmit.cluster.failure.split-brain { strategy = keep-majority, role = app }");
        final Config config = majority.akkaConfig(majority.requireNode("app-1"));
        assertEquals("keep-majority", config.getString("akka.cluster.split-brain-resolver.active-strategy"));
        assertEquals("app", config.getString("akka.cluster.split-brain-resolver.keep-majority.role"));
        assertFalse(config.hasPath("akka.cluster.split-brain-resolver.static-quorum"));
        final Deployment downAll = read("xmit.cluster.failure.split-brain.strategy = down-all");
        assertEquals(List.of("akka.cluster.split-brain-resolver.active-strategy = \"down-all\"",
            "akka.cluster.split-brain-resolver.stable-after = \"20s\""), NodeAkkaConfig.render(
            downAll.akkaConfig(downAll.requireNode("app-1"))).stream()
            .filter(line -> line.startsWith("akka.cluster.split-brain-resolver.")).toList());
    }

    /** Akka itself reads the node's configuration (over its reference) as the file meant it. */
    @Test
    void akkaReadsTheGeneratedSettings()
    {
        final Deployment deployment = read("xmit.cluster.failure.detector.acceptable-heartbeat-pause = 4s");
        final Config system = NodeRunner.systemConfig(deployment, deployment.requireNode("app-2"));
        final ClusterSettings settings = new ClusterSettings(system, "echo");
        assertEquals(NodeAkkaConfig.SBR_PROVIDER, settings.DowningProviderClassName());
        assertEquals(scala.jdk.javaapi.CollectionConverters.asJava(settings.Roles()).stream().sorted().toList(),
            List.of("app", "dc-default"));
        assertEquals(4_000, settings.FailureDetectorConfig().getDuration("acceptable-heartbeat-pause").toMillis());
        assertEquals(2, settings.SeedNodes().size());
    }
}
