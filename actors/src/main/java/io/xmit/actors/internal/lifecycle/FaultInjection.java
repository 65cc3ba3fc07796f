package io.xmit.actors.internal.lifecycle;

import io.xmit.actors.Stage;

/**
 * Arms a crash in one stage's engine, found by stage, port and index ({@code Pipeline.injectCrash}). Each stage's
 * crash points sit where a failure is hardest to recover from: an RX queue after delivering a frame of a burst it has
 * not released, a socket after delivering a datagram, a qdisc after a {@code tx_burst} whose result it has not booked
 * or before taking a ring frame into its backlog, a TX queue after reclaiming completions it has not booked, a host
 * after taking a frame it has not handled. The one frame whose own handling threw is dropped under a reason
 * ({@code rx_drop_failed}, {@code host_drop_failed}, {@code neigh_drop_failed}), never retried.
 */
public final class FaultInjection
{
    private final PipelineParts parts;
    private final SocketLifecycle sockets;

    public FaultInjection(final PipelineParts parts, final SocketLifecycle sockets)
    {
        this.parts = parts;
        this.sockets = sockets;
    }

    public void crash(final Stage stage, final int port, final int index, final int point)
    {
        parts.port(port);
        (Stage.SOCKET == stage ? sockets.receiver(port, index) : parts.engines().find(stage, port, index))
            .armCrash(point);
    }
}
