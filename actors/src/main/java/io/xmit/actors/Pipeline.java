package io.xmit.actors;

import akka.Done;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.MailboxSelector;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.cpu.Cpus;
import io.xmit.actors.cpu.PipelineMailbox;
import io.xmit.actors.internal.host.HostActor;
import io.xmit.actors.internal.host.HostEngine;
import io.xmit.actors.internal.host.HostPath;
import io.xmit.actors.internal.lifecycle.PipelineGuardian;
import io.xmit.actors.internal.qdisc.QdiscActor;
import io.xmit.actors.internal.qdisc.QdiscEngine;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketReceiver;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.actors.internal.stage.PollingActor;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.actors.internal.txq.InFlightFifo;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.actors.internal.txq.TxWatchdog;
import io.xmit.actors.internal.xps.MappingActor;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.actors.trace.Tracer;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.XpsMask;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.NicSpec;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;
import io.xmit.transport.ring.RingPoller;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
 */
public final class Pipeline implements AutoCloseable
{
    public static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);
    private static final long DRAIN_POLL_NANOS = 1_000_000;
    /** The shortest ask (Akka refuses a zero timeout): what a stop past its deadline gives an actor to answer. */
    private static final long MIN_ASK_NANOS = 1_000_000;

    private static final int QDISC_STREAM_BASE = 1000;
    private static final int SOCKET_STREAM_BASE = 100_000;
    private static final int HOST_STREAM_BASE = 50_000;
    private static final int HOST_HOLD_STREAM_BASE = 60_000;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final ActorSystem<?> system;
    private final PipelineConfig config;
    private final NicDevice device;
    private final Rings rings;
    private final CountersFile counters;
    private final Props[] cpus;
    private final PortContext[] ports;
    private final SocketTable sockets;
    private final List<ActorRef<MappingActor.Command>> mappings;
    private final ActorRef<QdiscActor.Command>[][] qdiscs;
    private final ActorRef<PipelineGuardian.Command> guardian;
    private final CompletableFuture<Throwable> terminated;
    private final AtomicInteger nextSocketId = new AtomicInteger();
    private final AtomicInteger nextSocketCpu = new AtomicInteger();
    private final Map<Integer, SocketResources> socketActors = new LinkedHashMap<>();
    private final Engines engines;
    private final SendGate gate;
    private final AtomicCounter[] retiredSent;
    private final Tracer tracer;
    private Cancellable shutdownTask;
    private boolean closed;
    private final CompletableFuture<StopReport> stopped = new CompletableFuture<>();

    private Pipeline(
        final ActorSystem<?> system,
        final PipelineConfig config,
        final NicDevice device,
        final Rings rings,
        final CountersFile counters,
        final Props[] cpus,
        final PortContext[] ports,
        final SocketTable sockets,
        final List<ActorRef<MappingActor.Command>> mappings,
        final ActorRef<QdiscActor.Command>[][] qdiscs,
        final ActorRef<PipelineGuardian.Command> guardian,
        final CompletableFuture<Throwable> terminated,
        final Engines engines,
        final SendGate gate,
        final AtomicCounter[] retiredSent,
        final Tracer tracer)
    {
        this.system = system;
        this.config = config;
        this.device = device;
        this.rings = rings;
        this.counters = counters;
        this.cpus = cpus;
        this.ports = ports;
        this.sockets = sockets;
        this.mappings = mappings;
        this.qdiscs = qdiscs;
        this.guardian = guardian;
        this.terminated = terminated;
        this.engines = engines;
        this.gate = gate;
        this.retiredSent = retiredSent;
        this.tracer = tracer;
    }

    /**
     * The engines of the packet stages, for fault injection, the books and the last step of a stop; {@code hosts[p]}
     * is null for a port without host basics.
     */
    private record Engines(QdiscEngine[][] qdiscs, TxQueueEngine[][] txqs, RxQueueEngine[][] rxqs, HostEngine[] hosts)
    {
    }

    /**
     * Builds and starts a pipeline in {@code system}.
     *
     * @throws IllegalArgumentException if the configuration does not fit the device (an XPS mask, say).
     * @throws IllegalStateException    if a resource cannot be had (the device, the rings, the counters file);
     *                                  whatever was already made is released.
     */
    public static Pipeline start(final ActorSystem<?> system, final PipelineConfig config)
    {
        final List<AutoCloseable> made = new ArrayList<>();
        try
        {
            final Pipeline pipeline = build(system, config, made);
            // Ctrl-C, or the application's own shutdown: the pipeline drains before the actor system goes.
            pipeline.shutdownTask = CoordinatedShutdown.get(system).addCancellableTask(
                CoordinatedShutdown.PhaseServiceStop(), "xmit-stop-" + config.name(), pipeline::stopOnShutdown);
            return pipeline;
        }
        catch (final RuntimeException ex)
        {
            for (int i = made.size() - 1; i >= 0; i--)
            {
                try
                {
                    made.get(i).close();
                }
                catch (final Exception suppressed)
                {
                    ex.addSuppressed(suppressed);
                }
            }
            throw ex;
        }
    }

    @SuppressWarnings("unchecked")
    private static Pipeline build(final ActorSystem<?> system, final PipelineConfig config,
        final List<AutoCloseable> made)
    {
        final NicSpec spec = config.deviceSpec();
        final CountersFile counters = CountersFile.create(config.name(), config.countersDir(),
            CountersFile.DEFAULT_CAPACITY);
        made.add(counters);
        final NicDevice device = NicDevice.open(spec);
        made.add(device);
        final Rings rings = Rings.launch(config.name(), RingsConfig.defaults()
            .withMaxFrameLength(Math.max(spec.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
            .withIpcTermLength(config.qdiscRingTerm()));
        made.add(rings);
        final int[] rxQueues = new int[device.portCount()];
        final int[] txQueues = new int[device.portCount()];
        for (int p = 0; p < device.portCount(); p++)
        {
            rxQueues[p] = device.port(p).rxQueueCount();
            txQueues[p] = device.port(p).txQueueCount();
        }
        final Tracer tracer = new Tracer(config.trace(), config.name(), spec.backend().label(), rxQueues, txQueues,
            counters);
        made.add(tracer);

        final Props[] cpus = placement(system, Cpus.register(system, config.cpus(),
            config.cores().stream().mapToInt(Integer::intValue).toArray(), config.throughput()));
        final CompletableFuture<Throwable> terminated = new CompletableFuture<>();
        final ActorRef<PipelineGuardian.Command> guardian = system.systemActorOf(
            PipelineGuardian.create(terminated), "xmit-" + config.name() + "-" + INSTANCES.incrementAndGet(),
            Props.empty());
        made.add(() -> stopGuardian(guardian, terminated));

        final FlowHasher hasher = FlowHasher.random();
        final SocketTable sockets = new SocketTable();
        final SendGate gate = new SendGate();
        final Engines engines = new Engines(new QdiscEngine[device.portCount()][], new TxQueueEngine[device.portCount()][],
            new RxQueueEngine[device.portCount()][], new HostEngine[device.portCount()]);
        final AtomicCounter[] retiredSent = new AtomicCounter[device.portCount()];
        final PortContext[] ports = new PortContext[device.portCount()];
        final List<ActorRef<MappingActor.Command>> mappings = new ArrayList<>();
        final ActorRef<QdiscActor.Command>[][] qdiscs = new ActorRef[device.portCount()][];
        final RingDoorbell[][] rxDoorbells = new RingDoorbell[device.portCount()][];
        final AtomicCounter[] interrupts = new AtomicCounter[device.portCount()];
        for (int p = 0; p < device.portCount(); p++)
        {
            final NicDriver driver = device.port(p);
            final int txCount = driver.txQueueCount();
            final int rxCount = driver.rxQueueCount();
            final PacketPublication[] qdiscRings = new PacketPublication[txCount];
            final ActorWake<QdiscActor.Command>[] qdiscWakes = new ActorWake[txCount];
            final RingDoorbell[] qdiscDoorbells = new RingDoorbell[txCount];
            for (int q = 0; q < txCount; q++)
            {
                qdiscWakes[q] = new ActorWake<>(QdiscActor.Poll.INSTANCE);
                qdiscDoorbells[q] = new RingDoorbell(qdiscWakes[q]);
                qdiscRings[q] = rings.addPublication(qdiscStream(p, q), qdiscDoorbells[q]);
            }
            // Issue 8: a port with ARP or ICMP gets a host ring, read by its host actor (spawned below).
            final PortAddress address = portAddress(config.ports().get(p), driver, p);
            final ActorWake<HostActor.Command> hostWake = new ActorWake<>(HostActor.Poll.INSTANCE);
            final RingDoorbell hostDoorbell = new RingDoorbell(hostWake);
            final HostPath host = address.hostBasics() ? new HostPath(address,
                rings.addPublication(HOST_STREAM_BASE + p, hostDoorbell, config.socketRingTerm()),
                rings.addPublication(HOST_HOLD_STREAM_BASE + p, hostDoorbell, config.socketRingTerm()),
                counters.allocate(CounterType.HOST_DROP_RING_FULL, "port=" + p)) : null;
            ports[p] = new PortContext(p, address, qdiscRings, hasher, driver.maxFrame(),
                initialMap(config, p, txCount, rxCount), gate, host);
            retiredSent[p] = counters.allocate(CounterType.SOCKET_SENT_RETIRED, "port=" + p);
            mappings.add((ActorRef<MappingActor.Command>)spawn(system, guardian, "mapping-" + p,
                MappingActor.create(ports[p], txCount), Props.empty()));

            qdiscs[p] = new ActorRef[txCount];
            engines.qdiscs()[p] = new QdiscEngine[txCount];
            engines.txqs()[p] = new TxQueueEngine[txCount];
            final TxQueueState[] states = new TxQueueState[txCount];
            for (int q = 0; q < txCount; q++)
            {
                final TxQueueState state = new TxQueueState(System::nanoTime);
                states[q] = state;
                final ByteQueueLimits bql = new ByteQueueLimits(state);
                final InFlightFifo inFlight = new InFlightFifo(driver.ringSize());
                final ActorWake<PollingActor.Poll> txqWake = new ActorWake<>(PollingActor.Poll.INSTANCE);
                final RingDoorbell txqDoorbell = new RingDoorbell(txqWake);
                final PacketSubscription ring = rings.addSubscription(qdiscStream(p, q), qdiscDoorbells[q]);
                final QdiscEngine qdisc = new QdiscEngine(p, q, driver, ring, state, bql, inFlight, sockets, config,
                    counters, txqDoorbell::ring);
                final TxQueueEngine txq = new TxQueueEngine(p, q, driver, state, bql, inFlight, sockets,
                    config.bulkLimit(), counters, qdiscDoorbells[q]::ring, txqDoorbell::ring);
                qdisc.trace(tracer.point(p, q));
                txq.trace(tracer.point(p, q));
                engines.qdiscs()[p][q] = qdisc;
                engines.txqs()[p][q] = txq;
                final Props on = cpus[q % cpus.length];
                final String scope = "port=" + p + " txq=" + q;
                qdiscs[p][q] = (ActorRef<QdiscActor.Command>)spawn(system, guardian, "qdisc-" + p + "-" + q,
                    QdiscActor.create(qdisc, txq, dutyCycle(qdiscDoorbells[q], qdisc::poll, config), qdiscWakes[q],
                        counters.allocate(CounterType.STAGE_RESTARTS, scope + " stage=qdisc")), on);
                spawn(system, guardian, "txq-" + p + "-" + q,
                    PollingActor.create(dutyCycle(txqDoorbell, txq::poll, config), txqWake, txq::recover,
                        counters.allocate(CounterType.STAGE_RESTARTS, scope + " stage=txq")), on);
            }
            if (null != host)
            {
                final HostEngine engine = new HostEngine(ports[p], host,
                    rings.addSubscription(HOST_STREAM_BASE + p, hostDoorbell),
                    rings.addSubscription(HOST_HOLD_STREAM_BASE + p, hostDoorbell), sockets, txCount, counters);
                engines.hosts()[p] = engine;
                spawn(system, guardian, "host-" + p, HostActor.create(new RingDutyCycle(hostDoorbell, engine::poll, 0, 0),
                    hostWake, engine::recover, counters.allocate(CounterType.STAGE_RESTARTS, "port=" + p + " stage=host")),
                    cpus[0]);
            }
            spawn(system, guardian, "watchdog-" + p,
                TxWatchdog.create(p, states, engines.txqs()[p], config.txWatchdogTimeout()), Props.empty());

            rxDoorbells[p] = new RingDoorbell[rxCount];
            engines.rxqs()[p] = new RxQueueEngine[rxCount];
            for (int q = 0; q < rxCount; q++)
            {
                final ActorWake<PollingActor.Poll> rxWake = new ActorWake<>(PollingActor.Poll.INSTANCE);
                rxDoorbells[p][q] = new RingDoorbell(rxWake);
                final RxQueueEngine rx = new RxQueueEngine(p, q, driver, sockets, rxDoorbells[p][q],
                    config.rxBurst(), counters, host);
                rx.trace(tracer.point(p, q));
                engines.rxqs()[p][q] = rx;
                spawn(system, guardian, "rxq-" + p + "-" + q,
                    PollingActor.create(dutyCycle(rxDoorbells[p][q], rx::poll, config), rxWake, rx::recover,
                        counters.allocate(CounterType.STAGE_RESTARTS, "port=" + p + " rxq=" + q + " stage=rxq")),
                    cpus[q % cpus.length]);
            }
            interrupts[p] = counters.allocate(CounterType.RX_INTERRUPTS, "port=" + p);
        }
        device.startInterrupts((port, queue) ->
        {
            interrupts[port].incrementRelease();
            rxDoorbells[port][queue].ring();
        });
        return new Pipeline(system, config, device, rings, counters, cpus, ports, sockets, mappings, qdiscs, guardian,
            terminated, engines, gate, retiredSent, tracer);
    }

    /** The duty cycle of a queue actor: {@code spin-polls} empty polls, at most {@code spin-time} long. */
    private static RingDutyCycle dutyCycle(final RingDoorbell doorbell, final RingPoller poller,
        final PipelineConfig config)
    {
        return new RingDutyCycle(doorbell, poller, config.spinPolls(), config.spinNanos());
    }

    private static ActorRef<?> spawn(final ActorSystem<?> system, final ActorRef<PipelineGuardian.Command> guardian,
        final String name, final Behavior<?> behavior, final Props props)
    {
        return await(AskPattern.ask(guardian,
            (ActorRef<ActorRef<?>> replyTo) -> new PipelineGuardian.Spawn(name, behavior, props, replyTo),
            CONTROL_TIMEOUT, system.scheduler()), "spawning " + name);
    }

    private static <T> T await(final CompletionStage<T> stage, final String what)
    {
        try
        {
            return stage.toCompletableFuture().get(CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("xmit: interrupted while " + what, ex);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException("xmit: " + what + " did not complete in time: " + ex, ex);
        }
    }

    private static void stopGuardian(
        final ActorRef<PipelineGuardian.Command> guardian, final CompletableFuture<Throwable> terminated)
    {
        guardian.tell(new PipelineGuardian.Stop());
        try
        {
            terminated.get(CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException("xmit: the pipeline's actors did not stop within " + CONTROL_TIMEOUT, ex);
        }
    }

    public PipelineConfig config()
    {
        return config;
    }

    /** The device's ports, for statistics and fault injection ({@link NicDriver#stats}, {@link NicDriver#fault}). */
    public NicDriver driver(final int port)
    {
        return device.port(port);
    }

    public int portCount()
    {
        return ports.length;
    }

    /** The XPS/queue-count snapshot senders on {@code port} select over now. */
    public QueueMap queueMap(final int port)
    {
        return portContext(port).queueMap();
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
        checkControlThread("openUdp");
        final PortContext port = portContext(options.port());
        final int cpu = options.cpu() < 0 ? Math.floorMod(nextSocketCpu.getAndIncrement(), cpus.length) :
            options.cpu();
        if (cpu >= cpus.length)
        {
            throw new IllegalArgumentException("socket cpu " + options.cpu() + " is not in 0.." + (cpus.length - 1) +
                " (or -1 for any)");
        }
        final FlowKey local = localKey(port, options);
        final int receiveTerm = options.receiveBuffer() > 0 ? options.receiveBuffer() : config.socketRingTerm();
        try
        {
            RingsConfig.defaults().withMaxFrameLength(Math.max(port.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
                .withIpcTermLength(receiveTerm);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("socket receive buffer " + receiveTerm + ": " + ex.getMessage(), ex);
        }
        synchronized (this)
        {
            checkOpen();
            final int id = nextSocketId.incrementAndGet();
            final ActorWake<PollingActor.Poll> wake = new ActorWake<>(PollingActor.Poll.INSTANCE);
            final RingDoorbell doorbell = new RingDoorbell(wake);
            final int stream = SOCKET_STREAM_BASE + id;
            final PacketSubscription subscription = rings.addSubscription(stream, doorbell);
            final PacketPublication publication = rings.addPublication(stream, doorbell, receiveTerm);
            final String scope = "port=" + port.port() + " socket=" + id;
            final AtomicCounter[] sendCounters = {
                counters.allocate(CounterType.SOCKET_SENT, scope),
                counters.allocate(CounterType.SOCKET_SEND_BACKPRESSURED, scope),
                counters.allocate(CounterType.SOCKET_SEND_REFUSED, scope),
                counters.allocate(CounterType.STAGE_RESTARTS, scope + " stage=socket")};
            final UdpSocketImpl[] holder = new UdpSocketImpl[1];
            final UdpSocketImpl socket = new UdpSocketImpl(id, cpu, port, local, "*".equals(options.address()),
                options.reusePort(), options.priority(), options.sendBufferPackets(), publication, subscription, sendCounters,
                () -> closeSocket(holder[0]));
            holder[0] = socket;
            socket.trace(tracer.point(port.port(), -1));
            try
            {
                if (null != options.connectTo())
                {
                    socket.connect(options.connectTo());
                }
                sockets.put(socket);
            }
            catch (final RuntimeException ex)
            {
                socket.markClosed();
                publication.close();
                subscription.close();
                for (final AtomicCounter counter : sendCounters)
                {
                    counters.free(counter);
                }
                throw ex;
            }
            final SocketReceiver receiver = new SocketReceiver(socket, options.handler(), options.target(),
                config.rxBurst(), counters);
            final ActorRef<?> actor = spawn(system, guardian, "socket-" + id, PollingActor.create(
                new RingDutyCycle(doorbell, receiver::poll, config.socketSpinPolls(), config.spinNanos()), wake,
                receiver::recover, sendCounters[3]), cpus[cpu]);
            socketActors.put(id, new SocketResources(actor, receiver, sendCounters));
            return socket;
        }
    }

    private record SocketResources(ActorRef<?> actor, SocketReceiver receiver, AtomicCounter[] sendCounters)
    {
    }

    private synchronized void closeSocket(final UdpSocketImpl socket)
    {
        checkControlThread("closing a socket");
        socket.markClosed();
        if (closed)
        {
            return;
        }
        // What the socket sent moves to its port's retired count, in one step for the books (read under this lock).
        socket.sender().awaitOutside();
        retiredSent[socket.port()].getAndAddRelease(socket.sentCount());
        sockets.remove(socket);
        final SocketResources resources = socketActors.remove(socket.id());
        if (null == resources)
        {
            return;
        }
        await(AskPattern.ask(guardian,
            (ActorRef<Boolean> replyTo) -> new PipelineGuardian.StopChild(resources.actor(), replyTo),
            CONTROL_TIMEOUT, system.scheduler()), "stopping socket " + socket.id());
        socket.receiveRing().close();
        socket.receiveSubscription().close();
        resources.receiver().close();
        for (final AtomicCounter counter : resources.sendCounters())
        {
            counters.free(counter);
        }
    }

    /** Writes {@code xps_cpus} of TX queue {@code txq} on {@code port} (a hex mask, as sysfs takes it). */
    public XpsChange setXpsCpus(final int port, final int txq, final String mask)
    {
        return askMapping(port, "setting xps_cpus",
            replyTo -> new MappingActor.SetXpsCpus(txq, mask, replyTo));
    }

    /** Writes {@code xps_rxqs} of TX queue {@code txq} on {@code port}. */
    public XpsChange setXpsRxqs(final int port, final int txq, final String mask)
    {
        return askMapping(port, "setting xps_rxqs",
            replyTo -> new MappingActor.SetXpsRxqs(txq, mask, replyTo));
    }

    /** Sets the real TX queue count of {@code port}, 1..the device's TX queues. */
    public XpsChange setTxQueueCount(final int port, final int count)
    {
        return askMapping(port, "setting the TX queue count",
            replyTo -> new MappingActor.SetTxQueueCount(count, replyTo));
    }

    /** Which TX queue a connected socket of {@code flow} on {@code port} would get now, and why. */
    public QueueExplanation explain(final int port, final FlowKey flow, final int cpu, final int rxQueue)
    {
        portContext(port);
        checkControlThread("explain");
        checkOpen();
        return await(AskPattern.ask(mappings.get(port),
            (ActorRef<QueueExplanation> replyTo) -> new MappingActor.Explain(flow, cpu, rxQueue, replyTo),
            CONTROL_TIMEOUT, system.scheduler()), "explaining a flow");
    }

    private XpsChange askMapping(final int port, final String what,
        final Function<ActorRef<XpsChange>, MappingActor.Command> command)
    {
        portContext(port);
        checkControlThread(what);
        checkOpen();
        return await(AskPattern.ask(mappings.get(port), command::apply, CONTROL_TIMEOUT, system.scheduler()), what);
    }

    /** The packets in the backlog of the qdisc of TX queue {@code txq} on {@code port}, read on its own thread. */
    public int qdiscBacklog(final int port, final int txq)
    {
        checkControlThread("qdiscBacklog");
        checkOpen();
        return await(AskPattern.ask(qdiscs[portContext(port).port()][txq],
            (ActorRef<Integer> replyTo) -> new QdiscActor.GetBacklog(replyTo), CONTROL_TIMEOUT, system.scheduler()),
            "reading a qdisc backlog");
    }

    /**
     * Changes which packets are traced from now on (message-level tracing; {@link TraceSelector#OFF} stops it). The
     * events go to the file and log the configuration's {@code xmit.trace} names.
     */
    public void trace(final TraceSelector selector)
    {
        tracer.select(selector);
    }

    /** The pipeline's tracer: its selector, the events written and dropped, and a flush for readers of the file. */
    public Tracer tracer()
    {
        return tracer;
    }

    /** The counters file, which {@code CountersFile.open} (or {@code xmit stat}) reads from another process. */
    public java.nio.file.Path countersPath()
    {
        return counters.path();
    }

    /**
     * The value of counter {@code type} for {@code scope} ({@code "port=0 txq=3"}, {@code "port=1 rxq=0"},
     * {@code "port=0 socket=7"}), or -1 if there is no such counter.
     */
    public long counter(final CounterType type, final String scope)
    {
        return counters.value(type, scope);
    }

    /** The sum of counter {@code type} over all queues (or sockets) of {@code port}. */
    public long total(final CounterType type, final int port)
    {
        final String prefix = type.label() + " port=" + port + " ";
        final CountersReader reader = counters.reader();
        final long[] sum = {0};
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeId == type.typeId() && label.startsWith(prefix) && !label.contains(" side="))
            {
                sum[0] += reader.getCounterValue(counterId);
            }
        });
        return sum[0];
    }

    /** Every counter, label → value, in allocation order. */
    public Map<String, Long> counters()
    {
        final CountersReader reader = counters.reader();
        final Map<String, Long> values = new LinkedHashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) -> values.put(label, reader.getCounterValue(counterId)));
        return values;
    }

    /** The open sockets. */
    public List<UdpSocket> sockets()
    {
        return List.copyOf(sockets.sockets());
    }

    /** Completes with null when the pipeline's actors have stopped normally, or with the failure that stopped them. */
    public CompletionStage<Throwable> whenTerminated()
    {
        return terminated;
    }

    /**
     * Fault injection, for tests of supervision: makes a packet stage's actor throw at its {@code point}-th crash
     * point from its next turn on (1 = the first), where a failure is hardest to recover from — an RX queue after
     * delivering a frame of a burst it has not released, a socket after delivering a datagram, a qdisc after a
     * {@code tx_burst} whose result it has not booked or before taking a ring frame into its backlog, a TX queue after
     * reclaiming completions it has not booked, a host after taking a frame it has not handled. The actor restarts
     * under its supervision ({@link Supervision}) and must repeat nothing and lose nothing uncounted: the one frame
     * whose own handling threw is dropped under a reason ({@code rx_drop_failed}, {@code host_drop_failed},
     * {@code neigh_drop_failed}), never retried.
     *
     * @param index the RX or TX queue, for {@link Stage#SOCKET} the socket's id, for {@link Stage#HOST} 0.
     * @throws IllegalArgumentException for a port, queue, socket or host that does not exist.
     */
    public void injectCrash(final Stage stage, final int port, final int index, final int point)
    {
        portContext(port);
        switch (stage)
        {
            case RX_QUEUE -> engine(engines.rxqs()[port], index, "RX queue").armCrash(point);
            case QDISC -> engine(engines.qdiscs()[port], index, "TX queue").armCrash(point);
            case TX_QUEUE -> engine(engines.txqs()[port], index, "TX queue").armCrash(point);
            case HOST ->
            {
                if (null == engines.hosts()[port])
                {
                    throw new IllegalArgumentException("port " + port + " has no host (it has no IPv4 address)");
                }
                if (0 != index)
                {
                    throw new IllegalArgumentException("a port has one host: index must be 0, was " + index);
                }
                engines.hosts()[port].armCrash(point);
            }
            case SOCKET ->
            {
                final SocketResources resources;
                synchronized (this)
                {
                    resources = socketActors.get(index);
                }
                if (null == resources || resources.receiver().socket().port() != port)
                {
                    throw new IllegalArgumentException("no open socket " + index + " on port " + port);
                }
                resources.receiver().armCrash(point);
            }
        }
    }

    private static <T> T engine(final T[] engines, final int index, final String what)
    {
        if (index < 0 || index >= engines.length)
        {
            throw new IllegalArgumentException(what + " " + index + " is not in 0.." + (engines.length - 1));
        }
        return engines[index];
    }

    /**
     * The pipeline's books now ({@link Accounting}): each TX queue's part read on its own thread, then what the
     * sockets accepted. After a stop, the final books.
     */
    public Accounting accounting()
    {
        checkControlThread("accounting");
        synchronized (this)
        {
            if (closed)
            {
                final StopReport report = stopped.getNow(null);
                if (null == report)
                {
                    throw new IllegalStateException("pipeline '" + config.name() + "' is closed");
                }
                return report.books();
            }
        }
        if (terminated.isDone())
        {
            // A failure stopped the actors: their engines stand still, and are read directly.
            final List<QueueBooks> books = new ArrayList<>();
            for (int p = 0; p < qdiscs.length; p++)
            {
                for (int q = 0; q < qdiscs[p].length; q++)
                {
                    books.add(engines.qdiscs()[p][q].books(engines.txqs()[p][q]));
                }
            }
            return new Accounting(accepted(), books);
        }
        // The books first, what the sockets accepted after them (Accounting's contract).
        final List<QueueBooks> books = askBooks(System.nanoTime() + CONTROL_TIMEOUT.toNanos());
        return new Accounting(accepted(), books);
    }

    /** Each TX queue's books, read on its qdisc's thread; all of them by {@code deadlineNanos} or an exception. */
    private List<QueueBooks> askBooks(final long deadlineNanos)
    {
        final List<QueueBooks> books = new ArrayList<>();
        for (final ActorRef<QdiscActor.Command>[] port : qdiscs)
        {
            for (final ActorRef<QdiscActor.Command> qdisc : port)
            {
                final Duration left = Duration.ofNanos(Math.max(MIN_ASK_NANOS, deadlineNanos - System.nanoTime()));
                books.add(await(AskPattern.ask(qdisc, QdiscActor.GetBooks::new, left, system.scheduler()),
                    "reading the books of " + qdisc.path().name()));
            }
        }
        return books;
    }

    /**
     * Checks the books ({@link Accounting#balances()}).
     *
     * @return the books, if they balance.
     * @throws IllegalStateException naming what does not balance.
     */
    public Accounting verify()
    {
        final Accounting books = accounting();
        if (!books.balances())
        {
            throw new IllegalStateException("xmit: pipeline '" + config.name() + "' books do not balance: " +
                books.line());
        }
        return books;
    }

    /** What every socket, open or closed, has sent; under the lock that moves a closing socket's count. */
    private synchronized long accepted()
    {
        long accepted = 0;
        for (final AtomicCounter retired : retiredSent)
        {
            accepted += retired.get();
        }
        for (final UdpSocketImpl socket : sockets.sockets())
        {
            accepted += socket.sentCount();
        }
        for (final HostEngine host : engines.hosts())
        {
            accepted += null == host ? 0 : host.sent();
        }
        return accepted;
    }

    /**
     * Stops the pipeline gracefully:
     * <ol>
     * <li>sends are refused from now on ({@link SendResult#STOPPED}), and the stop waits for sends in progress;</li>
     * <li>the pipeline drains: every qdisc empties its ring and backlog into the driver, the driver completes, and
     * every frame received is delivered to its socket — until done or until {@code deadline};</li>
     * <li>the actors stop; what is still in a ring, a backlog or the driver is dropped, counted
     * ({@code qdisc_drop_shutdown}, {@code txq_drop_shutdown}) and reported;</li>
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
        checkControlThread("stop");
        final boolean first;
        synchronized (this)
        {
            first = !closed;
            closed = true;
        }
        if (!first)
        {
            // Another stop runs or ran: its report, once it is done (a stop on shutdown must not end early). Waited
            // for outside the lock, which the running stop needs.
            return awaitStop();
        }
        try
        {
            final StopReport report = stopOnce(deadline);
            stopped.complete(report);
            return report;
        }
        catch (final RuntimeException ex)
        {
            stopped.completeExceptionally(ex);
            throw ex;
        }
    }

    private StopReport awaitStop()
    {
        try
        {
            return stopped.get();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("xmit: interrupted while waiting for the pipeline to stop", ex);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("xmit: the pipeline's stop failed: " + ex.getCause(), ex.getCause());
        }
    }

    private StopReport stopOnce(final Duration deadline)
    {
        final long start = System.nanoTime();
        final List<SendGate.Sender> senders = new ArrayList<>();
        for (final UdpSocketImpl socket : sockets.sockets())
        {
            senders.add(socket.sender());
        }
        gate.closeAndWait(senders);
        final boolean drained = !terminated.isDone() && awaitDrained(start + deadline.toNanos());

        RuntimeException failure = null;
        try
        {
            stopGuardian(guardian, terminated);
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
        }
        long droppedQueued = 0;
        long droppedInDriver = 0;
        long droppedAwaitingArp = 0;
        final List<QueueBooks> books = new ArrayList<>();
        if (null != failure)
        {
            // Some actor did not stop: it may still be in a ring or a burst, so nothing is taken over or released
            // under it (the device, rings and counters stay mapped: a leak, not a crash).
            LOG.error("xmit: pipeline '{}' stopped without releasing its device and rings: {}", config.name(),
                failure.getMessage());
            throw failure;
        }
        try
        {
            // The actors have stopped: their engines are this thread's now. A stage stopped in the middle of a step
            // (a failure past its restart limit, or in back-off when the stop came) finishes it first.
            for (int p = 0; p < qdiscs.length; p++)
            {
                for (int q = 0; q < qdiscs[p].length; q++)
                {
                    engines.qdiscs()[p][q].recover();
                    engines.txqs()[p][q].recover();
                    droppedQueued += engines.qdiscs()[p][q].dropLeftovers();
                    droppedInDriver += engines.txqs()[p][q].dropLeftovers();
                    books.add(engines.qdiscs()[p][q].books(engines.txqs()[p][q]));
                }
                if (null != engines.hosts()[p])
                {
                    engines.hosts()[p].recover();
                    droppedAwaitingArp += engines.hosts()[p].dropLeftovers();
                }
            }
            synchronized (this)
            {
                for (final SocketResources resources : socketActors.values())
                {
                    resources.receiver().recover();
                }
            }
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
        }
        final Accounting finalBooks = new Accounting(accepted(), books);
        if (null != shutdownTask)
        {
            shutdownTask.cancel();
        }
        // The tracer drains its ring and completes its file before the counters it reports from go.
        for (final AutoCloseable resource : List.<AutoCloseable>of(device, rings, tracer, counters))
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                if (null == failure)
                {
                    failure = new IllegalStateException("xmit: closing " + resource + " failed: " + ex, ex);
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        final StopReport report = new StopReport(drained, Duration.ofNanos(System.nanoTime() - start), droppedQueued,
            droppedInDriver, droppedAwaitingArp, finalBooks);
        if (null != failure)
        {
            throw failure;
        }
        if (!drained || !finalBooks.balances())
        {
            LOG.warn("xmit: pipeline '{}' stopped: {}", config.name(), report.line());
        }
        return report;
    }

    /**
     * Waits until nothing accepted is still on its way: every TX queue's books show its ring, backlog and driver
     * empty, every RX queue has handed over all the device received, and every socket's ring is read.
     */
    private boolean awaitDrained(final long deadlineNanos)
    {
        while (true)
        {
            try
            {
                if (drained(deadlineNanos))
                {
                    return true;
                }
            }
            catch (final IllegalStateException ex)
            {
                // An actor that does not answer (failed past its limit, say): nothing more will drain.
                return false;
            }
            if (System.nanoTime() - deadlineNanos >= 0)
            {
                return false;
            }
            LockSupport.parkNanos(DRAIN_POLL_NANOS);
        }
    }

    private boolean drained(final long deadlineNanos)
    {
        final List<QueueBooks> books = askBooks(deadlineNanos);
        if (!new Accounting(accepted(), books).atRest())
        {
            return false;
        }
        for (int p = 0; p < ports.length; p++)
        {
            final NicDriver driver = device.port(p);
            for (int q = 0; q < driver.rxQueueCount(); q++)
            {
                if (driver.stats(q).rxPackets() != counters.value(CounterType.RX_PACKETS, "port=" + p + " rxq=" + q))
                {
                    return false;
                }
            }
        }
        for (final UdpSocketImpl socket : sockets.sockets())
        {
            if (socket.receiveRing().position() != socket.receiveSubscription().position())
            {
                return false;
            }
        }
        for (int p = 0; p < ports.length; p++)
        {
            final HostEngine host = engines.hosts()[p];
            if (null != host && ports[p].host().ringPosition() != host.ringPosition())
            {
                return false;
            }
        }
        return true;
    }

    /** CoordinatedShutdown's task: the stop runs on a thread of its own (it blocks, and must not run on a CPU). */
    private CompletionStage<Done> stopOnShutdown()
    {
        final CompletableFuture<Done> done = new CompletableFuture<>();
        final Thread stopper = new Thread(() ->
        {
            try
            {
                stop(config.stopDeadline());
                done.complete(Done.getInstance());
            }
            catch (final RuntimeException ex)
            {
                done.completeExceptionally(ex);
            }
        }, "xmit-stop-" + config.name());
        stopper.start();
        return done;
    }

    /** {@link #stop} with the configured {@code stop.deadline}. */
    @Override
    public void close()
    {
        stop(config.stopDeadline());
    }

    /** Control calls block on the pipeline's actors, so they must not run on the CPUs those actors run on. */
    private static void checkControlThread(final String what)
    {
        if (CpuThread.NO_CPU != CpuThread.currentCpu())
        {
            throw new IllegalStateException("xmit: " + what + " blocks until the pipeline's actors answer, so it " +
                "cannot run on xmit CPU " + CpuThread.currentCpu() + " (call it from another thread)");
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("pipeline '" + config.name() + "' is closed");
        }
    }

    private PortContext portContext(final int port)
    {
        if (port < 0 || port >= ports.length)
        {
            throw new IllegalArgumentException("device port " + port + " is not in 0.." + (ports.length - 1));
        }
        return ports[port];
    }

    private FlowKey localKey(final PortContext port, final SocketOptions options)
    {
        final PortAddress address = port.address();
        final FlowKey local = new FlowKey();
        final String text = options.address();
        final boolean own = null == text || "*".equals(text);
        final int localPort = options.localPort();
        if (FlowKey.FAMILY_IPV4 == options.family())
        {
            final int ipv4 = own ? address.ipv4() : ByteBuffer.wrap(literal(text, 4)).getInt();
            local.setIpv4(FlowKey.PROTO_UDP, ipv4, 0, localPort, 0);
        }
        else
        {
            long hi = address.ipv6Hi();
            long lo = address.ipv6Lo();
            if (!own)
            {
                final ByteBuffer bytes = ByteBuffer.wrap(literal(text, 16));
                hi = bytes.getLong();
                lo = bytes.getLong();
            }
            local.setIpv6(FlowKey.PROTO_UDP, hi, lo, 0, 0, localPort, 0);
        }
        return local;
    }

    private static byte[] literal(final String text, final int length)
    {
        try
        {
            final byte[] bytes = InetAddress.ofLiteral(text).getAddress();
            if (bytes.length == length)
            {
                return bytes;
            }
        }
        catch (final IllegalArgumentException ignored)
        {
            // Reported below.
        }
        throw new IllegalArgumentException("socket address '" + text + "' is not an IPv" + (length == 4 ? 4 : 6) +
            " address literal (or '*' for any)");
    }

    /**
     * Each CPU's dispatcher, with the allocation-free {@link PipelineMailbox} when the system's configuration has it
     * (the actors module's {@code reference.conf} does, unless the application built its configuration without
     * the reference files).
     */
    private static Props[] placement(final ActorSystem<?> system, final DispatcherSelector[] dispatchers)
    {
        final boolean mailbox = system.settings().config().hasPath(PipelineMailbox.CONFIG_PATH);
        final Props[] placement = new Props[dispatchers.length];
        for (int i = 0; i < dispatchers.length; i++)
        {
            placement[i] = mailbox ?
                dispatchers[i].withNext(MailboxSelector.fromConfig(PipelineMailbox.CONFIG_PATH)) : dispatchers[i];
        }
        return placement;
    }

    /** The configured address, with the interface's MAC where the port is to take it (afpacket's default). */
    private static PortAddress portAddress(final PortAddress configured,
        final NicDriver driver, final int port)
    {
        if (PortAddress.LINK_MAC != configured.mac())
        {
            return configured;
        }
        return configured.withMac(driver.link().orElseThrow(() -> new IllegalArgumentException("xmit.ports[" + port +
            "].mac: device port " + port + " drives no kernel interface, so it has no MAC to take; give one"))
            .mac());
    }

    private static int qdiscStream(final int port, final int txq)
    {
        return QDISC_STREAM_BASE + port * 256 + txq;
    }

    private static QueueMap initialMap(final PipelineConfig config, final int port, final int txCount,
        final int rxCount)
    {
        QueueMap map = QueueMap.create(txCount, config.cpus(), rxCount);
        if (txCount > 1)
        {
            for (int q = 0; q < txCount; q++)
            {
                switch (config.xpsPreset())
                {
                    case CPUS -> map = map.withXpsCpus(q, XpsMask.of(config.cpus(), q % config.cpus()));
                    case RXQS -> map = map.withXpsRxqs(q, XpsMask.of(rxCount, rxqsOf(q, txCount, rxCount)));
                    case NONE ->
                    {
                    }
                }
            }
        }
        for (final XpsEntry entry : config.xps())
        {
            if (entry.port() != port)
            {
                continue;
            }
            if (null != entry.cpus())
            {
                map = map.withXpsCpus(entry.txq(), XpsMask.parseCpus(entry.cpus(), config.cpus(), entry.txq()));
            }
            if (null != entry.rxqs())
            {
                map = map.withXpsRxqs(entry.txq(), XpsMask.parseRxqs(entry.rxqs(), rxCount, entry.txq()));
            }
        }
        return map;
    }

    /** The RX queues whose replies TX queue {@code txq} serves: {@code txq}, {@code txq + txCount}, … */
    private static int[] rxqsOf(final int txq, final int txCount, final int rxCount)
    {
        final List<Integer> rxqs = new ArrayList<>();
        for (int r = txq; r < rxCount; r += txCount)
        {
            rxqs.add(r);
        }
        return rxqs.stream().mapToInt(Integer::intValue).toArray();
    }
}
