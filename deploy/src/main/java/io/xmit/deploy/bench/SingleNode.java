package io.xmit.deploy.bench;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;

/**
 * The {@code cluster} bench's {@code single} variant: one process, one pipeline on the {@code loop} device whose
 * service sockets on port A answer the clients on port B locally, as {@code xmit run}'s scenario does.
 */
final class SingleNode implements PipelineRole
{
    private final ActorSystem<Void> system;
    private final BenchPipeline pipeline;
    private final EchoCounts echoes = new EchoCounts();

    /** @param sockets the service's sockets, as many as the cluster variant's app nodes open together. */
    SingleNode(final int sockets, final DataPathThreads threads)
    {
        system = ActorSystem.create(Behaviors.empty(), "xmit-bench-single", BenchSystems.quietConfig());
        pipeline = new BenchPipeline(system, "single", threads);
        pipeline.openLocalService(sockets, echoes);
    }

    @Override
    public BenchPipeline pipeline()
    {
        return pipeline;
    }

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
            pipeline.close();
        }
        finally
        {
            BenchSystems.terminate(system);
        }
    }
}
