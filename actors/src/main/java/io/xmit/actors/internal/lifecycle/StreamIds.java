package io.xmit.actors.internal.lifecycle;

import io.xmit.pipeline.qdisc.PfifoFast;

/** The Aeron stream id of each ring of a pipeline; the bases are far enough apart that no two rings share one. */
final class StreamIds
{
    private static final int QDISC_BASE = 1000;
    private static final int HOST_BASE = 50_000;
    private static final int HOST_HOLD_BASE = 60_000;
    private static final int SOCKET_BASE = 100_000;

    private StreamIds()
    {
    }

    /** The ring senders write packets of {@code band} into for TX queue {@code txq} of {@code port}, read by its qdisc. */
    static int qdisc(final int port, final int txq, final int band)
    {
        return QDISC_BASE + (port * 256 + txq) * PfifoFast.BANDS + band;
    }

    /** The ring of frames for {@code port}'s host (ARP, ICMP) from its RX queues. */
    static int host(final int port)
    {
        return HOST_BASE + port;
    }

    /** The ring of datagrams handed to {@code port}'s host to hold while their next hop resolves. */
    static int hostHold(final int port)
    {
        return HOST_HOLD_BASE + port;
    }

    /** Socket {@code id}'s receive ring. */
    static int socket(final int id)
    {
        return SOCKET_BASE + id;
    }
}
