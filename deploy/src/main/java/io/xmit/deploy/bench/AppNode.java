package io.xmit.deploy.bench;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.cluster.typed.Cluster;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.transport.ring.NetworkRings;

/**
 * An app node of the {@code cluster} variant: joins the edge's cluster, opens sockets of the service {@code echo}
 * through its data plane (each an Aeron UDP ring from the edge, its replies on the node's TX streams to the edge) and
 * echoes every request.
 */
final class AppNode implements ChildRole
{
    private final ActorSystem<Void> system;
    private final NetworkRings rings;
    private final EchoCounts echoes = new EchoCounts();

    /**
     * @param seedPort the edge's cluster port.
     * @param sockets  the service's sockets on this node.
     */
    AppNode(final int seedPort, final int sockets, final DataPathThreads threads)
    {
        this(seedPort, sockets, FailoverBook.NONE, threads);
    }

    /**
     * @param node a number the node writes into each reply ({@link BenchPipeline#echo}), or {@link FailoverBook#NONE}.
     */
    AppNode(final int seedPort, final int sockets, final int node, final DataPathThreads threads)
    {
        system = BenchClusterNodes.system(0);
        rings = BenchClusterNodes.rings("bench-app");
        BenchClusterNodes.join(system, seedPort);
        final ActorRef<AppDataPlane.Command> app = system.systemActorOf(AppDataPlane.create(rings,
            BenchClusterNodes.freeUdpEndpoint(), 0, BenchClusterNodes.RECEIPTS), "app-data", Props.empty());
        for (int s = 0; s < sockets; s++)
        {
            final int index = s;
            final AppDataPlane.Opened opened = BenchClusterNodes.ask(system, app, replyTo ->
                new AppDataPlane.Open("echo", index, BenchPipeline.echo(threads, echoes, node), replyTo));
            if (null != opened.refusal())
            {
                throw new IllegalStateException("the edge refused socket " + index + " of echo: " + opened.refusal());
            }
        }
    }

    /** Its address in the cluster, as the edge's books name it. */
    String address()
    {
        return Cluster.get(system).selfMember().address().toString();
    }

    @Override
    public long packets()
    {
        return echoes.handled();
    }

    /** As a crash would: no leave (the bench is over, the edge stops next). */
    @Override
    public String repliesLost()
    {
        return echoes.lost();
    }

    @Override
    public void close()
    {
        try
        {
            BenchSystems.terminate(system);
        }
        finally
        {
            rings.close();
        }
    }
}
