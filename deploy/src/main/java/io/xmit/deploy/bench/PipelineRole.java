package io.xmit.deploy.bench;

/** A {@link ChildRole} whose load is its {@link BenchPipeline}'s clients: the single node and the edge. */
interface PipelineRole extends ChildRole
{
    BenchPipeline pipeline();

    /** Replies the clients received. */
    @Override
    default long packets()
    {
        return pipeline().load().replies();
    }

    @Override
    default PacedLoad load()
    {
        return pipeline().load();
    }

    @Override
    default void startLoad(final long rate, final int flows)
    {
        pipeline().startLoad(rate, flows);
    }
}
