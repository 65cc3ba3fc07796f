package io.xmit.actors.internal.lifecycle;

import io.xmit.actors.Stage;

/** Arms a crash in one stage's engine, found by stage, port and index; see {@code Pipeline.injectCrash}. */
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
