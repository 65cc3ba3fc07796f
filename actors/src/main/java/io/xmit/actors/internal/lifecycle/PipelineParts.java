package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.internal.qdisc.QdiscActor;
import io.xmit.actors.internal.rxq.DeviceRxCounters;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.xps.MappingActor;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.actors.trace.Tracer;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.ring.Rings;

import org.agrona.concurrent.status.AtomicCounter;

import io.xmit.pipeline.txq.Jiffies;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a running pipeline is made of, as {@link PipelineAssembly} built it: the device, rings, counters, XPS maps
 * file and tracer (released by the stop), the CPUs' placements, each port's context, mapping actor and qdisc actors,
 * the stage engines, the socket table and the gate a stop closes, and the guardian every actor runs under.
 *
 * @param cpus        each CPU's dispatcher (with the pipeline's mailbox), indexed by CPU.
 * @param retiredSent per port, what the sockets closed so far had sent (the books' "accepted" keeps it).
 * @param retiredDelivered per port, what the sockets closed so far had delivered (the receive books keep it).
 * @param closedDrops per port, {@code socket_drop_closed}: what closing sockets (and the stop) left in their rings.
 * @param deviceRx    per port, the device's own receive counters.
 * @param jiffies     the coarse clock the sockets' cached TX queues age by (§1.6), ticked by an actor of its own.
 * @param terminated  completes when the guardian has stopped: null normally, else the failure that stopped it.
 */
public record PipelineParts(
    ActorSystem<?> system,
    PipelineConfig config,
    NicDevice device,
    Rings rings,
    CountersFile counters,
    XpsMapsFile xpsMaps,
    Tracer tracer,
    Props[] cpus,
    PortContext[] ports,
    List<ActorRef<MappingActor.Command>> mappings,
    ActorRef<QdiscActor.Command>[][] qdiscs,
    StageEngines engines,
    SocketTable sockets,
    SendGate gate,
    AtomicCounter[] retiredSent,
    AtomicCounter[] retiredDelivered,
    AtomicCounter[] closedDrops,
    DeviceRxCounters[] deviceRx,
    Jiffies jiffies,
    ActorRef<PipelineGuardian.Command> guardian,
    CompletableFuture<Throwable> terminated)
{
    /**
     * What a stop (or a start that fails) releases, in the order it does: the tracer drains its ring and completes
     * its file before the counters it reports from go.
     */
    public List<AutoCloseable> resources()
    {
        return List.of(device, rings, xpsMaps, tracer, counters);
    }

    /** The context of {@code port}, or an {@link IllegalArgumentException} naming a port the device does not have. */
    public PortContext port(final int port)
    {
        if (port < 0 || port >= ports.length)
        {
            throw new IllegalArgumentException("device port " + port + " is not in 0.." + (ports.length - 1));
        }
        return ports[port];
    }
}
