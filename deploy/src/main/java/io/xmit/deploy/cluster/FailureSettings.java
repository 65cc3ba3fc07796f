package io.xmit.deploy.cluster;

import java.time.Duration;

/**
 * What happens when a node fails or leaves: Akka's failure detector (a node unheard for longer than the acceptable
 * pause becomes unreachable), the split-brain strategy that downs one side, and how long a node may take to leave
 * gracefully before it stops anyway.
 */
public record FailureSettings(Duration heartbeatInterval, Duration acceptableHeartbeatPause, SplitBrain splitBrain,
    Duration drainDeadline)
{
}
