package io.xmit.deploy.bench;

/**
 * The {@code aeron-udp} variant's load: requests of {@link BareAeron#MESSAGE} bytes offered at the fixed rate on one
 * Aeron UDP publication to {@link AeronPong}, the echoes polled from one subscription, their RTT recorded.
 */
final class AeronPing implements ChildRole
{
    private final PacedLoad load;
    private final BareAeron aeron;

    AeronPing(final int localPort, final int pongPort, final DataPathThreads threads)
    {
        load = new PacedLoad(BareAeron.MESSAGE, threads);
        aeron = new BareAeron("ping", localPort, BareAeron.PONG_STREAM, pongPort, BareAeron.PING_STREAM, threads);
        aeron.start((buffer, offset, length, header) -> load.replied(buffer, offset));
    }

    @Override
    public long packets()
    {
        return load.replies();
    }

    @Override
    public PacedLoad load()
    {
        return load;
    }

    /** Once the pong answers; {@code flows} has no meaning on one stream. */
    @Override
    public void startLoad(final long rate, final int flows)
    {
        aeron.awaitConnected(BenchClusterNodes.FORMATION);
        load.start(rate, flows, (flow, payload, length) ->
            aeron.offer(payload, 0, length) ? RequestPacer.NEXT : RequestPacer.RETRY);
    }

    @Override
    public void close()
    {
        aeron.close();
    }
}
