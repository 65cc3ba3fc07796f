package io.xmit.actors;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.internal.lifecycle.Books;
import io.xmit.actors.internal.lifecycle.ControlCalls;
import io.xmit.actors.internal.lifecycle.FaultInjection;
import io.xmit.actors.internal.lifecycle.GracefulStop;
import io.xmit.actors.internal.lifecycle.JvmFlags;
import io.xmit.actors.internal.lifecycle.OpenState;
import io.xmit.actors.internal.lifecycle.PipelineAssembly;
import io.xmit.actors.internal.lifecycle.PipelineParts;
import io.xmit.actors.internal.lifecycle.SocketLifecycle;
import io.xmit.actors.internal.qdisc.QdiscActor;
import io.xmit.actors.internal.xps.MappingActor;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.actors.trace.Tracer;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.ring.PacketPublication;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A running xmit pipeline inside an application's {@link ActorSystem}: a device, its CPUs, the RX-queue, qdisc,
 * TX-queue, mapping and socket actors, their rings and counters. {@link #start} builds it from a
 * {@link PipelineConfig}; sockets are opened with {@link #openUdp}; {@link #close} stops the actors and releases every
 * thread, ring, file and native resource.
 * <p>
 * Placement: RX queue i and TX queue i (its qdisc and completion actors) of every port run on CPU {@code i mod cpus};
 * a socket's receive side on the CPU it asks for, or the next one round-robin. Control calls ({@code openUdp},
 * XPS changes, {@code close}) block for at most {@link #CONTROL_TIMEOUT}; call them from outside the pipeline's CPUs.
 * <p>
 * This class is the facade: each method delegates to the part of {@code io.xmit.actors.internal} that does the work.
 */
public final class Pipeline implements AutoCloseable
{
    public static final Duration CONTROL_TIMEOUT = ControlCalls.TIMEOUT;

    private final PipelineParts parts;
    private final OpenState open;
    private final SocketLifecycle sockets;
    private final Books books;
    private final GracefulStop stop;
    private final FaultInjection faults;

    private Pipeline(final PipelineParts parts)
    {
        this.parts = parts;
        this.open = new OpenState(parts.config().name());
        this.sockets = new SocketLifecycle(parts, open);
        this.books = new Books(parts, open);
        this.stop = new GracefulStop(parts, open, books, sockets);
        this.faults = new FaultInjection(parts, sockets);
    }

    /**
     * Builds and starts a pipeline in {@code system} from the system's configuration, as Akka extensions do: the keys
     * under {@code xmit} ({@link PipelineConfig#fromConfig}) of the application's {@code application.conf} (or the file
     * {@code -Dconfig.file} names) over the defaults in the actors module's {@code reference.conf}.
     *
     * @throws IllegalArgumentException if a key is unknown or a value not allowed, naming the key, or the
     *                                  configuration does not fit the device.
     * @throws IllegalStateException    if the JVM lacks a flag xmit needs, naming it, or a resource cannot be had.
     */
    public static Pipeline start(final ActorSystem<?> system)
    {
        JvmFlags.check();
        return start(system, PipelineConfig.fromConfig(system.settings().config()));
    }

    /**
     * Builds and starts a pipeline in {@code system}.
     *
     * @throws IllegalArgumentException if the configuration does not fit the device (an XPS mask, say).
     * @throws IllegalStateException    if the JVM lacks a flag xmit needs (naming it), or a resource cannot be had
     *                                  (the device, the rings, the counters file); whatever was already made is
     *                                  released.
     */
    public static Pipeline start(final ActorSystem<?> system, final PipelineConfig config)
    {
        JvmFlags.check();
        final PipelineParts parts = PipelineAssembly.assemble(system, config);
        try
        {
            final Pipeline pipeline = new Pipeline(parts);
            pipeline.stop.registerOnShutdown();
            return pipeline;
        }
        catch (final RuntimeException ex)
        {
            PipelineAssembly.release(parts, ex);
            throw ex;
        }
    }

    public PipelineConfig config()
    {
        return parts.config();
    }

    /** The device's ports, for statistics and fault injection ({@link NicDriver#stats}, {@link NicDriver#fault}). */
    public NicDriver driver(final int port)
    {
        return parts.device().port(port);
    }

    public int portCount()
    {
        return parts.ports().length;
    }

    /** The XPS/queue-count snapshot senders on {@code port} select over now. */
    public QueueMap queueMap(final int port)
    {
        return parts.port(port).queueMap();
    }

    /**
     * Opens a UDP socket. Blocks until its receive actor runs and its address is registered, so datagrams for it are
     * delivered from the moment this returns.
     *
     * @throws IllegalArgumentException for a bad option (port, CPU, address), naming it.
     * @throws IllegalStateException    if the address is in use or the pipeline is closed.
     */
    public UdpSocket openUdp(final SocketOptions options)
    {
        return sockets.openUdp(options);
    }

    /**
     * Adds a member on another node to the SO_REUSEPORT group at {@code options}' address (the group is made if
     * none is open there): the RX queues steer a datagram for the group to its member by rendezvous hashing of the
     * flow hash over the members' keys, so that a member leaving moves only its flows, and copy it into the
     * member's {@code receiveRing} (a ring to its node, whose socket reads it) with the RX queue in the header. It
     * starts out of steering: {@link RemoteMember#steer} puts it in once its node reads the ring.
     *
     * @param steeringKey names the member stably, across its leaving steering and coming back; unique in the group.
     * @throws IllegalArgumentException if the options are not an unconnected reuseport socket's, or the key is taken.
     * @throws IllegalStateException    if the pipeline is closed or the address is held by a socket without
     *                                  SO_REUSEPORT.
     */
    public RemoteMember openRemote(final SocketOptions options, final PacketPublication receiveRing,
        final long steeringKey)
    {
        return sockets.openRemote(options, receiveRing, steeringKey);
    }

    /** The open sockets. */
    public List<UdpSocket> sockets()
    {
        return List.copyOf(parts.sockets().sockets());
    }

    /** Writes {@code xps_cpus} of TX queue {@code txq} on {@code port} (a hex mask, as sysfs takes it). */
    public XpsChange setXpsCpus(final int port, final int txq, final String mask)
    {
        return askMapping(port, "setting xps_cpus", "setting xps_cpus",
            replyTo -> new MappingActor.SetXpsCpus(txq, mask, replyTo));
    }

    /** Writes {@code xps_rxqs} of TX queue {@code txq} on {@code port}. */
    public XpsChange setXpsRxqs(final int port, final int txq, final String mask)
    {
        return askMapping(port, "setting xps_rxqs", "setting xps_rxqs",
            replyTo -> new MappingActor.SetXpsRxqs(txq, mask, replyTo));
    }

    /** Sets the real TX queue count of {@code port}, 1..the device's TX queues. */
    public XpsChange setTxQueueCount(final int port, final int count)
    {
        return askMapping(port, "setting the TX queue count", "setting the TX queue count",
            replyTo -> new MappingActor.SetTxQueueCount(count, replyTo));
    }

    /** Which TX queue a connected socket of {@code flow} on {@code port} would get now, and why. */
    public QueueExplanation explain(final int port, final FlowKey flow, final int cpu, final int rxQueue)
    {
        return askMapping(port, "explain", "explaining a flow",
            (ActorRef<QueueExplanation> replyTo) -> new MappingActor.Explain(flow, cpu, rxQueue, replyTo));
    }

    /** The packets in the backlog of the qdisc of TX queue {@code txq} on {@code port}, read on its own thread. */
    public int qdiscBacklog(final int port, final int txq)
    {
        ControlCalls.checkControlThread("qdiscBacklog");
        open.checkOpen();
        final ActorRef<QdiscActor.Command>[] qdiscs = parts.qdiscs()[parts.port(port).port()];
        if (txq < 0 || txq >= qdiscs.length)
        {
            throw new IllegalArgumentException("TX queue " + txq + " is not in 0.." + (qdiscs.length - 1));
        }
        return ask("qdiscBacklog", "reading a qdisc backlog", qdiscs[txq], QdiscActor.GetBacklog::new);
    }

    /**
     * Changes which packets are traced from now on (message-level tracing; {@link TraceSelector#OFF} stops it). The
     * events go to the file and log the configuration's {@code xmit.trace} names.
     */
    public void trace(final TraceSelector selector)
    {
        parts.tracer().select(selector);
    }

    /** The pipeline's tracer: its selector, the events written and dropped, and a flush for readers of the file. */
    public Tracer tracer()
    {
        return parts.tracer();
    }

    /** The counters file, which {@code CountersFile.open} (or {@code xmit stat}) reads from another process. */
    public Path countersPath()
    {
        return parts.counters().path();
    }

    /**
     * The value of counter {@code type} for {@code scope} ({@code CounterScope.txq(0, 3)},
     * {@code CounterScope.rxq(1, 0)}, {@code CounterScope.socket(0, 7)}), or -1 if there is no such counter.
     */
    public long counter(final CounterType type, final CounterScope scope)
    {
        return parts.counters().value(type, scope);
    }

    /** The sum of counter {@code type} over all queues (or sockets) of {@code port}, and the port's own. */
    public long total(final CounterType type, final int port)
    {
        return parts.counters().total(type, port);
    }

    /** Every counter, label → value, in allocation order. */
    public Map<String, Long> counters()
    {
        return parts.counters().values();
    }

    /**
     * The pipeline's books now ({@link Accounting}): each TX queue's part read on its own thread, then what the
     * sockets accepted. After a stop, the final books.
     */
    public Accounting accounting()
    {
        return books.accounting();
    }

    /**
     * Checks the books ({@link Accounting#balances()}).
     *
     * @return the books, if they balance.
     * @throws IllegalStateException naming what does not balance.
     */
    public Accounting verify()
    {
        return books.verify();
    }

    /**
     * Fault injection, for tests of supervision: makes the actor of {@code stage} throw at its {@code point}-th crash
     * point from its next turn on (1 = the first). It restarts under supervision and must repeat nothing and lose
     * nothing uncounted: the one frame whose handling threw is dropped under a reason ({@code rx_drop_failed},
     * {@code host_drop_failed}, {@code neigh_drop_failed}), never retried.
     *
     * @param index the RX or TX queue, for {@link Stage#SOCKET} the socket's id, for {@link Stage#HOST} 0.
     * @throws IllegalArgumentException for a port, queue, socket or host that does not exist.
     */
    public void injectCrash(final Stage stage, final int port, final int index, final int point)
    {
        faults.crash(stage, port, index, point);
    }

    /** Completes with null when the pipeline's actors have stopped normally, or with the failure that stopped them. */
    public CompletionStage<Throwable> whenTerminated()
    {
        return parts.terminated();
    }

    /**
     * Stops the pipeline gracefully:
     * <ol>
     * <li>sends are refused from now on ({@link SendResult#STOPPED}), and the stop waits for sends in progress;</li>
     * <li>the pipeline drains: every qdisc empties its ring and backlog into the driver, the driver completes, and
     * every frame received is delivered to its socket — until done or until {@code deadline};</li>
     * <li>the actors stop; what is still in a ring, a backlog or the driver is dropped, counted
     * ({@code qdisc_drop_shutdown}, {@code txq_drop_shutdown}; datagrams a host held for ARP,
     * {@code neigh_drop_shutdown}) and reported;</li>
     * <li>the device, the rings and the counters file are released.</li>
     * </ol>
     * Runs on JVM shutdown too (Akka's CoordinatedShutdown, phase {@code service-stop}), with the configured
     * {@code stop.deadline}. Idempotent: a second call, also one made while the first still runs, returns the first
     * one's report once it is done.
     *
     * @return what the stop did, with the final books.
     */
    public StopReport stop(final Duration deadline)
    {
        return stop.stop(deadline);
    }

    /** {@link #stop} with the configured {@code stop.deadline}. */
    @Override
    public void close()
    {
        stop.stop(parts.config().stopDeadline());
    }

    private <T> T askMapping(final int port, final String call, final String what,
        final Function<ActorRef<T>, MappingActor.Command> command)
    {
        parts.port(port);
        return ask(call, what, parts.mappings().get(port), command);
    }

    /** Asks {@code actor} from a control thread ({@code call} names the method, {@code what} the wait). */
    private <T, C> T ask(final String call, final String what, final ActorRef<C> actor,
        final Function<ActorRef<T>, C> command)
    {
        ControlCalls.checkControlThread(call);
        open.checkOpen();
        return ControlCalls.await(AskPattern.ask(actor, command::apply, CONTROL_TIMEOUT,
            parts.system().scheduler()), what);
    }
}
