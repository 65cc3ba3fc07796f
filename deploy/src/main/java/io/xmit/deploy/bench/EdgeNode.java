package io.xmit.deploy.bench;

import java.util.Map;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import io.xmit.actors.SocketOptions;
import io.xmit.deploy.cluster.data.EdgeDataPlane;
import io.xmit.transport.ring.NetworkRings;

/**
 * The {@code cluster} variant's edge: the seed of the cluster, the pipeline on the {@code loop} device with the
 * clients on port B, and the data plane whose service {@code echo} on port A has no socket here: every request
 * crosses the UDP hop to a socket on an app node, and its reply comes back through the edge's relay.
 */
final class EdgeNode implements PipelineRole
{
    private final ActorSystem<Void> system;
    private final BenchPipeline pipeline;
    private final NetworkRings rings;
    private final ActorRef<EdgeDataPlane.Command> edge;
    private final int sockets;

    /**
     * @param port    the cluster port the app nodes join.
     * @param sockets the remote sockets to wait for before the load starts.
     */
    EdgeNode(final int port, final int sockets, final DataPathThreads threads)
    {
        this.sockets = sockets;
        system = BenchClusterNodes.system(port);
        BenchClusterNodes.join(system, port);
        pipeline = new BenchPipeline(system, "edge", threads);
        rings = BenchClusterNodes.rings("bench-edge");
        edge = system.systemActorOf(EdgeDataPlane.create(pipeline.pipeline(), rings,
            BenchClusterNodes.freeUdpEndpoint(),
            Map.of("echo", SocketOptions.udp4(BenchPipeline.SERVICE.port()).reusePort(true))), "edge-data",
            Props.empty());
    }

    @Override
    public BenchPipeline pipeline()
    {
        return pipeline;
    }

    /** Once every app node's socket is steered to. */
    @Override
    public void startLoad(final long rate, final int flows)
    {
        BenchClusterNodes.await(sockets + " remote sockets steered to", () -> steered() == sockets,
            BenchClusterNodes.FORMATION);
        pipeline.startLoad(rate, flows);
    }

    private int steered()
    {
        return books().nodes().stream().mapToInt(EdgeDataPlane.NodeBooks::steered).sum();
    }

    /** The data plane's books of every app node incarnation it has known. */
    EdgeDataPlane.EdgeBooks books()
    {
        return BenchClusterNodes.ask(system, edge, EdgeDataPlane.GetBooks::new);
    }

    ActorSystem<Void> system()
    {
        return system;
    }

    /** The pipeline first (its actors must still run to stop), then the system, then the UDP rings. */
    @Override
    public void close()
    {
        try
        {
            pipeline.close();
            BenchSystems.terminate(system);
        }
        finally
        {
            rings.close();
        }
    }
}
