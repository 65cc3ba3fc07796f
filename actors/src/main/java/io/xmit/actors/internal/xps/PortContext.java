package io.xmit.actors.internal.xps;

import io.xmit.actors.PortAddress;
import io.xmit.actors.internal.host.HostPath;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.transport.ring.PacketPublication;

/**
 * What every sender on one device port shares: the port's addresses, the current {@link QueueMap} snapshot (the
 * mapping actor's to write, the senders' to read with one volatile load), the rings into each TX queue's qdisc (one
 * per pfifo_fast band, as the kernel's lockless pfifo_fast keeps one ring per band, §4.2, §5.1) and each qdisc's
 * runner, through which a sender commits into those rings and may run the qdisc itself (§4.4).
 */
public final class PortContext
{
    private final int port;
    private final PortAddress address;
    private final PacketPublication[][] qdiscRings;
    private final QdiscRunner[] qdiscs;
    private final FlowHasher hasher;
    private final int maxFrame;
    private final SendGate gate;
    private final HostPath host;
    private volatile QueueMap queueMap;

    /** @param host the port's host path, or null for a port without host basics (no ARP or ICMP). */
    public PortContext(
        final int port,
        final PortAddress address,
        final PacketPublication[][] qdiscRings,
        final QdiscRunner[] qdiscs,
        final FlowHasher hasher,
        final int maxFrame,
        final QueueMap initial,
        final SendGate gate,
        final HostPath host)
    {
        this.port = port;
        this.address = address;
        if (qdiscs.length != qdiscRings.length)
        {
            throw new IllegalArgumentException("port " + port + ": " + qdiscs.length + " qdisc runners for " +
                qdiscRings.length + " TX queues");
        }
        this.qdiscRings = qdiscRings;
        this.qdiscs = qdiscs;
        this.hasher = hasher;
        this.maxFrame = maxFrame;
        this.queueMap = initial;
        this.gate = gate;
        this.host = host;
    }

    public int port()
    {
        return port;
    }

    public PortAddress address()
    {
        return address;
    }

    /** The snapshot senders select TX queues over. */
    public QueueMap queueMap()
    {
        return queueMap;
    }

    /** Published by the port's mapping actor only. */
    void publish(final QueueMap map)
    {
        queueMap = map;
    }

    /** The ring a packet of {@code priority} enters TX queue {@code txq}'s qdisc by: its band's. */
    public PacketPublication qdiscRing(final int txq, final int priority)
    {
        return qdiscRings[txq][PfifoFast.prio2band(priority)];
    }

    /** The runner of TX queue {@code txq}'s qdisc: a sender commits into its rings through it. */
    public QdiscRunner qdisc(final int txq)
    {
        return qdiscs[txq];
    }

    public FlowHasher hasher()
    {
        return hasher;
    }

    public int maxFrame()
    {
        return maxFrame;
    }

    /** The port's host path (ARP, ICMP), or null when the port has no host basics. */
    public HostPath host()
    {
        return host;
    }

    /** The pipeline's send gate, closed by a graceful stop. */
    public SendGate gate()
    {
        return gate;
    }
}
