package io.xmit.deploy.cluster;

import io.xmit.actors.PipelineConfig;

/**
 * A device of an edge node and the pipeline that serves it there, read from the device's {@code xmit { … }} keys
 * ({@code name} names both).
 */
public record Device(String name, String node, PipelineConfig pipeline)
{
    /** The longest frame the device carries: what an inter-node datagram must hold whole. */
    public int maxFrame()
    {
        return pipeline.deviceSpec().maxFrame();
    }
}
