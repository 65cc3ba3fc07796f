package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

/** The other end of {@code aeron-udp}: every message polled is offered back, unchanged, on its publication. */
final class AeronPong implements ChildRole
{
    private final AtomicLong echoed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final BareAeron aeron;

    AeronPong(final int localPort, final int pingPort, final DataPathThreads threads)
    {
        aeron = new BareAeron("pong", localPort, BareAeron.PING_STREAM, pingPort, BareAeron.PONG_STREAM, threads);
        aeron.start((buffer, offset, length, header) -> aeron.echo(buffer, offset, length, echoed, refused));
    }

    @Override
    public long packets()
    {
        return echoed.get() + refused.get();
    }

    @Override
    public void close()
    {
        aeron.close();
    }
}
