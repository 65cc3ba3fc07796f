package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.RingsConfig;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the edge's data plane refuses to start with, each refusal naming the service and the value. */
class EdgeDataPlaneTest
{
    private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "edge-data-plane-test");
    private final Pipeline pipeline = Pipeline.start(system, PipelineConfig.builder().name("edge-check").cpus(1)
        .device("loop:tx=1,rx=1,ring=256,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16).build());

    @AfterEach
    void stop()
    {
        pipeline.close();
        system.terminate();
    }

    @Test
    void ringsThatCannotCarryThePortsLongestFrameWholeAreRefused()
    {
        final RingsConfig small = RingsConfig.defaults().withMaxFrameLength(1514).withIpcTermLength(64 * 1024);
        try (NetworkRings rings = NetworkRings.launch("edge-check-rings", small, DataPlaneConfig.forFrames(small)))
        {
            assertEquals("service 'echo': the data plane's rings carry frames of at most 1514 bytes, port 0's " +
                "frames are up to 2048; launch the rings with a maxFrameLength of at least 2048",
                assertThrows(IllegalArgumentException.class, () -> EdgeDataPlane.create(pipeline, rings,
                    "127.0.0.1:1", Map.of("echo", SocketOptions.udp4(7).reusePort(true)))).getMessage());
        }
    }

    @Test
    void aDataEndpointWithoutAPortIsRefused()
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        try (NetworkRings rings = NetworkRings.launch("edge-check-rings", config, DataPlaneConfig.forFrames(config)))
        {
            assertEquals("dataEndpoint must be host:port, was '127.0.0.1'",
                assertThrows(IllegalArgumentException.class, () -> EdgeDataPlane.create(pipeline, rings,
                    "127.0.0.1", Map.of("echo", SocketOptions.udp4(7).reusePort(true)))).getMessage());
        }
    }

    @Test
    void aServiceGroupMustBeAnUnconnectedReuseportGroup()
    {
        final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
        try (NetworkRings rings = NetworkRings.launch("edge-check-rings", config, DataPlaneConfig.forFrames(config)))
        {
            assertEquals("service 'dns': its group's options need reusePort(true) and no peer",
                assertThrows(IllegalArgumentException.class, () -> EdgeDataPlane.create(pipeline, rings,
                    "127.0.0.1:1", Map.of("dns", SocketOptions.udp4(53)))).getMessage());
        }
    }
}
