package io.xmit.deploy.bench;

/**
 * What one process of a {@code cluster} bench variant runs ({@link ClusterBenchChild}): a node that offers the load
 * and receives the replies (the single node, the edge, the Aeron pinger), or one that only answers (an app node, the
 * Aeron echo).
 */
interface ChildRole extends AutoCloseable
{
    /** Packets this process handled on its data path so far: replies received, or requests answered. */
    long packets();

    /**
     * Requests whose reply this process's echo gave up on, {@link EchoCounts#lost()}: {@code BACK_PRESSURED REFUSED}.
     * Each a request the load never sees answered; none in a process that echoes nothing.
     */
    default String repliesLost()
    {
        return "0 0";
    }

    /** The offered load of a process that offers it. */
    default PacedLoad load()
    {
        throw new IllegalStateException(getClass().getSimpleName() + " offers no load");
    }

    /** Starts offering {@code rate} requests per second over {@code flows} flows, once the variant is in place. */
    default void startLoad(final long rate, final int flows)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " offers no load");
    }

    /** Stops within a bounded time; what it holds is released. */
    @Override
    void close();
}
