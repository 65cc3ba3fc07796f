package io.xmit.actors.internal.lifecycle;

import io.xmit.actors.Stage;
import io.xmit.actors.internal.channel.Channel;
import io.xmit.actors.internal.host.HostEngine;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.internal.txq.TxQueueEngine;

import java.util.ArrayList;
import java.util.List;

/**
 * The engines of a pipeline's packet stages by port and queue, for fault injection, the books and the last step of a
 * stop; {@code hosts[p]} is null for a port without host basics. A qdisc's entry is its runner, which runs and
 * recovers the engine under the qdisc's run token; {@code channels[p][q]} is RX queue q and TX queue q's completions
 * under one run token (kernel-semantics §9.1). Sockets' receivers are kept by {@link SocketLifecycle}, since sockets
 * come and go.
 */
public record StageEngines(QdiscRunner[][] qdiscs, TxQueueEngine[][] txqs, RxQueueEngine[][] rxqs, HostEngine[] hosts,
    Channel[][] channels)
{
    static StageEngines forPorts(final int ports)
    {
        return new StageEngines(new QdiscRunner[ports][], new TxQueueEngine[ports][], new RxQueueEngine[ports][],
            new HostEngine[ports], new Channel[ports][]);
    }

    /**
     * The engine of {@code stage} at {@code index} (a queue; 0 for the host) of {@code port}, which exists.
     *
     * @throws IllegalArgumentException naming the queue or host that does not exist.
     */
    public StageEngine find(final Stage stage, final int port, final int index)
    {
        return switch (stage)
        {
            case RX_QUEUE -> at(rxqs[port], index, "RX queue");
            case QDISC -> at(qdiscs[port], index, "TX queue");
            case TX_QUEUE -> at(txqs[port], index, "TX queue");
            case HOST -> host(port, index);
            case SOCKET -> throw new IllegalArgumentException("a socket's engine is found by its socket");
        };
    }

    /** The engines that hold packets on their way out (qdiscs, TX queues, hosts): what a stop recovers and empties. */
    public List<StageEngine> outbound()
    {
        final List<StageEngine> outbound = new ArrayList<>();
        for (int p = 0; p < hosts.length; p++)
        {
            outbound.addAll(List.of(qdiscs[p]));
            outbound.addAll(List.of(txqs[p]));
            if (null != hosts[p])
            {
                outbound.add(hosts[p]);
            }
        }
        return outbound;
    }

    private HostEngine host(final int port, final int index)
    {
        if (null == hosts[port])
        {
            throw new IllegalArgumentException("port " + port + " has no host (it has no IPv4 address)");
        }
        if (0 != index)
        {
            throw new IllegalArgumentException("a port has one host: index must be 0, was " + index);
        }
        return hosts[port];
    }

    private static StageEngine at(final StageEngine[] engines, final int index, final String what)
    {
        if (index < 0 || index >= engines.length)
        {
            throw new IllegalArgumentException(what + " " + index + " is not in 0.." + (engines.length - 1));
        }
        return engines[index];
    }
}
