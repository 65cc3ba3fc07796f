package io.xmit.deploy.bench;

import java.time.Duration;

/**
 * The other end of {@code aeron-udp}: every message polled is offered back, unchanged, on its publication. It polls
 * only once that publication is connected to the ping: a request polled before would have its echo refused
 * {@code NOT_CONNECTED} and be lost (the ping waits only for its own publication, the other direction).
 */
final class AeronPong implements ChildRole
{
    private final EchoCounts echoes = new EchoCounts();
    private final BareAeron aeron;

    AeronPong(final int localPort, final int pingPort, final DataPathThreads threads)
    {
        this(localPort, pingPort, threads, BenchClusterNodes.FORMATION);
    }

    /** @param connect how long the ping's subscription may take to answer; then the pong is not started. */
    AeronPong(final int localPort, final int pingPort, final DataPathThreads threads, final Duration connect)
    {
        aeron = new BareAeron("pong", localPort, BareAeron.PING_STREAM, pingPort, BareAeron.PONG_STREAM, threads);
        try
        {
            aeron.awaitConnected(connect);
        }
        catch (final RuntimeException ex)
        {
            aeron.close();
            throw ex;
        }
        aeron.start((buffer, offset, length, header) -> aeron.echo(buffer, offset, length, echoes));
    }

    @Override
    public long packets()
    {
        return echoes.handled();
    }

    @Override
    public String repliesLost()
    {
        return echoes.lost();
    }

    @Override
    public void close()
    {
        aeron.close();
    }
}
