package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.Props;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.cpu.Cpus;
import io.xmit.actors.cpu.PipelineMailbox;
import io.xmit.actors.internal.channel.Channel;
import io.xmit.actors.internal.host.HostActor;
import io.xmit.actors.internal.host.HostEngine;
import io.xmit.actors.internal.host.HostPath;
import io.xmit.actors.internal.qdisc.QdiscActor;
import io.xmit.actors.internal.qdisc.QdiscEngine;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.rxq.DeviceRxCounters;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.actors.internal.stage.PollingActor;
import io.xmit.actors.internal.txq.InFlightFifo;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.actors.internal.txq.TxWatchdog;
import io.xmit.actors.internal.xps.MappingActor;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope.Stage;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.actors.trace.Tracer;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.Jiffies;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.pipeline.xps.QueueMap;
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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds a pipeline from its configuration: the counters file, the device, the rings, the XPS maps file and the
 * tracer, the CPUs, and per port its context and mapping actor, per TX queue its qdisc actor, its host, its watchdog,
 * per channel (RX queue i and TX queue i's completions, kernel-semantics §9.1) its run token and the RX queue and
 * completion actors that own it. Placement: RX queue i and TX queue i of every port run on CPU {@code i mod cpus}, a
 * port's host on CPU 0. If anything fails, whatever was already made is released.
 */
public final class PipelineAssembly
{
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final ActorSystem<?> system;
    private final PipelineConfig config;
    private final List<AutoCloseable> made = new ArrayList<>();
    private final SocketTable sockets = new SocketTable();
    private final SendGate gate = new SendGate();
    private final FlowHasher hasher = FlowHasher.random();
    private CountersFile counters;
    private XpsMapsFile xpsMaps;
    private Rings rings;
    private Tracer tracer;
    private Props[] cpus;
    private ActorRef<PipelineGuardian.Command> guardian;
    private StageEngines engines;
    /** Per port and TX queue, the completion actor's doorbell and wake-up, for its channel. */
    private RingDoorbell[][] completionDoorbells;
    private ActorWake<PollingActor.Poll>[][] completionWakes;

    private PipelineAssembly(final ActorSystem<?> system, final PipelineConfig config)
    {
        this.system = system;
        this.config = config;
    }

    /**
     * Builds and starts a pipeline in {@code system}.
     *
     * @throws IllegalArgumentException if the configuration does not fit the device (an XPS mask, say).
     * @throws IllegalStateException    if a resource cannot be had (the device, the rings, the counters file).
     */
    public static PipelineParts assemble(final ActorSystem<?> system, final PipelineConfig config)
    {
        final PipelineAssembly assembly = new PipelineAssembly(system, config);
        try
        {
            return assembly.build();
        }
        catch (final RuntimeException ex)
        {
            releaseAll(assembly.made, ex);
            throw ex;
        }
    }

    /**
     * Releases a pipeline that was built but could not be started: its actors are stopped, then the tracer, rings,
     * device and counters closed; what fails is added to {@code failure}.
     */
    public static void release(final PipelineParts parts, final RuntimeException failure)
    {
        final List<AutoCloseable> made = new ArrayList<>(parts.resources().reversed());
        made.add(() -> ControlCalls.stopGuardian(parts.guardian(), parts.terminated()));
        releaseAll(made, failure);
    }

    /** Closes {@code made} last first, each even if another failed; what fails is added to {@code failure}. */
    private static void releaseAll(final List<AutoCloseable> made, final RuntimeException failure)
    {
        for (int i = made.size() - 1; i >= 0; i--)
        {
            try
            {
                made.get(i).close();
            }
            catch (final Exception suppressed)
            {
                failure.addSuppressed(suppressed);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private PipelineParts build()
    {
        final NicSpec spec = config.deviceSpec();
        counters = CountersFile.create(config.name(), config.countersDir(), CountersFile.DEFAULT_CAPACITY);
        made.add(counters);
        final NicDevice device = NicDevice.open(spec);
        made.add(device);
        rings = Rings.launch(config.name(), RingsConfig.defaults()
            .withMaxFrameLength(Math.max(spec.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
            .withIpcTermLength(config.qdiscRingTerm()));
        made.add(rings);
        final int portCount = device.portCount();
        final int[] rxQueues = new int[portCount];
        final int[] txQueues = new int[portCount];
        final QueueMap[] queueMaps = new QueueMap[portCount];
        for (int p = 0; p < portCount; p++)
        {
            rxQueues[p] = device.port(p).rxQueueCount();
            txQueues[p] = device.port(p).txQueueCount();
            queueMaps[p] = InitialQueueMap.of(config, p, txQueues[p], rxQueues[p]);
        }
        xpsMaps = XpsMapsFile.create(counters.path(), hasher, config.txqReselection(), queueMaps);
        made.add(xpsMaps);
        tracer = new Tracer(config.trace(), config.name(), spec.backend().label(), rxQueues, txQueues, counters);
        made.add(tracer);

        cpus = placement(system, Cpus.register(system, config.cpus(),
            config.cores().stream().mapToInt(Integer::intValue).toArray(), config.throughput()));
        final CompletableFuture<Throwable> terminated = new CompletableFuture<>();
        guardian = system.systemActorOf(PipelineGuardian.create(terminated),
            "xmit-" + config.name() + "-" + INSTANCES.incrementAndGet(), Props.empty());
        made.add(() -> ControlCalls.stopGuardian(guardian, terminated));

        final Jiffies jiffies = new Jiffies();
        spawn("jiffies", JiffiesTicker.create(jiffies), Props.empty());
        engines = StageEngines.forPorts(portCount);
        completionDoorbells = new RingDoorbell[portCount][];
        completionWakes = new ActorWake[portCount][];
        final PortContext[] ports = new PortContext[portCount];
        final AtomicCounter[] retiredSent = new AtomicCounter[portCount];
        final AtomicCounter[] retiredDelivered = new AtomicCounter[portCount];
        final AtomicCounter[] closedDrops = new AtomicCounter[portCount];
        final DeviceRxCounters[] deviceRx = new DeviceRxCounters[portCount];
        final List<ActorRef<MappingActor.Command>> mappings = new ArrayList<>();
        final ActorRef<QdiscActor.Command>[][] qdiscs = new ActorRef[portCount][];
        final RingDoorbell[][] rxDoorbells = new RingDoorbell[portCount][];
        final AtomicCounter[] interrupts = new AtomicCounter[portCount];
        for (int p = 0; p < portCount; p++)
        {
            final NicDriver driver = device.port(p);
            final TxQueueRings txRings = txQueueRings(p, driver.txQueueCount());
            final HostParts host = hostParts(p, driver);
            retiredSent[p] = counters.allocate(CounterType.SOCKET_SENT_RETIRED, CounterScope.port(p));
            retiredDelivered[p] = counters.allocate(CounterType.SOCKET_DELIVERED_RETIRED, CounterScope.port(p));
            closedDrops[p] = counters.allocate(CounterType.SOCKET_DROP_CLOSED, CounterScope.port(p));
            deviceRx[p] = new DeviceRxCounters(driver, counters);
            // The qdiscs first: the port's senders run them (the sender bypass) through its context.
            qdiscs[p] = txQueues(p, driver, txRings, deviceRx[p]);
            ports[p] = new PortContext(p, host.address(), txRings.publications(), engines.qdiscs()[p], hasher,
                driver.maxFrame(), queueMaps[p], gate, host.path());
            mappings.add((ActorRef<MappingActor.Command>)spawn("mapping-" + p,
                MappingActor.create(ports[p], driver.txQueueCount(), xpsMaps), Props.empty()));
            if (null != host.path())
            {
                hostActor(ports[p], host, driver.txQueueCount());
            }
            rxDoorbells[p] = channels(p, driver, host.path());
            interrupts[p] = counters.allocate(CounterType.RX_INTERRUPTS, CounterScope.port(p));
        }
        device.startInterrupts((port, queue) ->
        {
            interrupts[port].incrementRelease();
            rxDoorbells[port][queue].ring();
        });
        return new PipelineParts(system, config, device, rings, counters, xpsMaps, tracer, cpus, ports, mappings,
            qdiscs, engines, sockets, gate, retiredSent, retiredDelivered, closedDrops, deviceRx, jiffies, guardian,
            terminated);
    }

    /**
     * Each TX queue's rings, one per band (senders write, its qdisc reads), with the doorbell and wake-up of its qdisc
     * actor, which the three rings share.
     */
    private record TxQueueRings(PacketPublication[][] publications, RingDoorbell[] doorbells,
        ActorWake<QdiscActor.Command>[] wakes)
    {
    }

    @SuppressWarnings("unchecked")
    private TxQueueRings txQueueRings(final int port, final int txCount)
    {
        final TxQueueRings txRings = new TxQueueRings(new PacketPublication[txCount][PfifoFast.BANDS],
            new RingDoorbell[txCount], new ActorWake[txCount]);
        for (int q = 0; q < txCount; q++)
        {
            txRings.wakes()[q] = new ActorWake<>(QdiscActor.Poll.INSTANCE);
            txRings.doorbells()[q] = new RingDoorbell(txRings.wakes()[q]);
            for (int band = 0; band < PfifoFast.BANDS; band++)
            {
                txRings.publications()[q][band] =
                    rings.addPublication(StreamIds.qdisc(port, q, band), txRings.doorbells()[q]);
            }
        }
        return txRings;
    }

    /** A port's address and, when it has ARP or ICMP, its host path: the host ring and the hold ring. */
    private record HostParts(PortAddress address, HostPath path, RingDoorbell doorbell,
        ActorWake<HostActor.Command> wake)
    {
    }

    private HostParts hostParts(final int port, final NicDriver driver)
    {
        final PortAddress address = portAddress(config.ports().get(port), driver, port);
        final ActorWake<HostActor.Command> wake = new ActorWake<>(HostActor.Poll.INSTANCE);
        final RingDoorbell doorbell = new RingDoorbell(wake);
        final HostPath path = address.hostBasics() ? new HostPath(address,
            rings.addPublication(StreamIds.host(port), doorbell, config.socketRingTerm()),
            rings.addPublication(StreamIds.hostHold(port), doorbell, config.socketRingTerm()),
            counters.allocate(CounterType.HOST_DROP_RING_FULL, CounterScope.port(port)),
            counters.allocate(CounterType.HOST_RX_QUEUED, CounterScope.port(port))) : null;
        return new HostParts(address, path, doorbell, wake);
    }

    /**
     * Per TX queue: its state and BQL, the qdisc engine and its runner (the run token), the completion engine, their
     * actors; then the watchdog.
     */
    @SuppressWarnings("unchecked")
    private ActorRef<QdiscActor.Command>[] txQueues(final int port, final NicDriver driver, final TxQueueRings txRings,
        final DeviceRxCounters deviceRx)
    {
        final int txCount = driver.txQueueCount();
        final ActorRef<QdiscActor.Command>[] qdiscs = new ActorRef[txCount];
        engines.qdiscs()[port] = new QdiscRunner[txCount];
        engines.txqs()[port] = new TxQueueEngine[txCount];
        completionDoorbells[port] = new RingDoorbell[txCount];
        completionWakes[port] = new ActorWake[txCount];
        final TxQueueState[] states = new TxQueueState[txCount];
        for (int q = 0; q < txCount; q++)
        {
            final TxQueueState state = new TxQueueState(System::nanoTime);
            states[q] = state;
            final ByteQueueLimits bql = new ByteQueueLimits(state);
            final InFlightFifo inFlight = new InFlightFifo(driver.ringSize());
            final ActorWake<PollingActor.Poll> txqWake = new ActorWake<>(PollingActor.Poll.INSTANCE);
            final RingDoorbell txqDoorbell = new RingDoorbell(txqWake);
            final RingDoorbell qdiscDoorbell = txRings.doorbells()[q];
            final PacketSubscription[] bandRings = new PacketSubscription[PfifoFast.BANDS];
            for (int band = 0; band < PfifoFast.BANDS; band++)
            {
                bandRings[band] = rings.addSubscription(StreamIds.qdisc(port, q, band), qdiscDoorbell);
            }
            // A sender's burst reaps through channel q (kernel-semantics §7.7), assembled after the TX queues.
            final Channel[][] channels = engines.channels();
            final int queue = q;
            final QdiscEngine qdisc = new QdiscEngine(port, q, driver, bandRings, state, bql, inFlight, sockets, config,
                counters, txqDoorbell::ring, () -> channels[port][queue].reapCompletions());
            final TxQueueEngine txq = new TxQueueEngine(port, q, driver, state, bql, inFlight, sockets,
                config.bulkLimit(), counters, qdiscDoorbell::ring, txqDoorbell::ring);
            qdisc.trace(tracer.point(port, q));
            txq.trace(tracer.point(port, q));
            final CounterScope scope = CounterScope.txq(port, q);
            final AtomicCounter qdiscRestarts = counters.allocate(CounterType.STAGE_RESTARTS,
                scope.withStage(Stage.QDISC));
            final QdiscRunner runner = new QdiscRunner(qdisc, txRings.publications()[q], qdiscDoorbell, state,
                config.quota(), config.qdiscSenderBypass(), qdiscRestarts,
                counters.allocate(CounterType.QDISC_SENDER_RUNS, scope));
            engines.qdiscs()[port][q] = runner;
            engines.txqs()[port][q] = txq;
            completionDoorbells[port][q] = txqDoorbell;
            completionWakes[port][q] = txqWake;
            final Props on = cpus[q % cpus.length];
            qdiscs[q] = (ActorRef<QdiscActor.Command>)spawn("qdisc-" + port + "-" + q,
                QdiscActor.create(runner, txq, dutyCycle(qdiscDoorbell, runner::poll), txRings.wakes()[q],
                    qdiscRestarts), on);
        }
        spawn("watchdog-" + port, TxWatchdog.create(port, states, engines.txqs()[port], config.txWatchdogTimeout(),
            deviceRx), Props.empty());
        return qdiscs;
    }

    private void hostActor(final PortContext port, final HostParts host, final int txCount)
    {
        final int p = port.port();
        final HostEngine engine = new HostEngine(port, host.path(),
            rings.addSubscription(StreamIds.host(p), host.doorbell()),
            rings.addSubscription(StreamIds.hostHold(p), host.doorbell()), sockets, txCount, counters);
        engines.hosts()[p] = engine;
        spawn("host-" + p, HostActor.create(new RingDutyCycle(host.doorbell(), engine::poll, 0, 0), host.wake(),
            engine::recover, counters.allocate(CounterType.STAGE_RESTARTS, CounterScope.port(p).withStage(Stage.HOST))),
            cpus[0]);
    }

    /**
     * Per channel (kernel-semantics §9.1): RX queue q's engine, the channel over it and TX queue q's completion engine,
     * and the two actors that own it, on CPU {@code q mod cpus}; a TX queue without an RX queue of its number gets a
     * channel of completions only. Returns the RX queues' doorbells, which the device's interrupts ring.
     */
    private RingDoorbell[] channels(final int port, final NicDriver driver, final HostPath host)
    {
        final int rxCount = driver.rxQueueCount();
        final int txCount = driver.txQueueCount();
        final RingDoorbell[] doorbells = new RingDoorbell[rxCount];
        engines.rxqs()[port] = new RxQueueEngine[rxCount];
        engines.channels()[port] = new Channel[Math.max(rxCount, txCount)];
        for (int q = 0; q < engines.channels()[port].length; q++)
        {
            final ActorWake<PollingActor.Poll> wake = q < rxCount ? new ActorWake<>(PollingActor.Poll.INSTANCE) : null;
            RxQueueEngine rx = null;
            if (null != wake)
            {
                doorbells[q] = new RingDoorbell(wake);
                rx = new RxQueueEngine(port, q, driver, sockets, doorbells[q], config.rxBurst(), counters, host);
                rx.trace(tracer.point(port, q));
                engines.rxqs()[port][q] = rx;
            }
            final boolean completes = q < txCount;
            final AtomicCounter completionsRestarts = completes ? counters.allocate(CounterType.STAGE_RESTARTS,
                CounterScope.txq(port, q).withStage(Stage.TXQ)) : null;
            final Channel channel = new Channel(port, q, driver, rx, q < rxCount ? doorbells[q] : null,
                completes ? engines.txqs()[port][q] : null, completes ? completionDoorbells[port][q] : null,
                completionsRestarts, counters);
            engines.channels()[port][q] = channel;
            final Props on = cpus[q % cpus.length];
            if (null != rx)
            {
                spawn("rxq-" + port + "-" + q, PollingActor.create(dutyCycle(doorbells[q], channel::pollRx), wake,
                    channel::recoverRx, counters.allocate(CounterType.STAGE_RESTARTS,
                    CounterScope.rxq(port, q).withStage(Stage.RXQ))), on);
            }
            if (completes)
            {
                spawn("txq-" + port + "-" + q, PollingActor.create(dutyCycle(completionDoorbells[port][q],
                    channel::pollCompletions), completionWakes[port][q], channel::recoverCompletions,
                    completionsRestarts), on);
            }
        }
        return doorbells;
    }

    /** The duty cycle of a queue actor: {@code spin-polls} empty polls, at most {@code spin-time} long. */
    private RingDutyCycle dutyCycle(final RingDoorbell doorbell, final RingPoller poller)
    {
        return new RingDutyCycle(doorbell, poller, config.spinPolls(), config.spinNanos());
    }

    private ActorRef<?> spawn(final String name, final Behavior<?> behavior, final Props props)
    {
        return ControlCalls.spawn(system, guardian, name, behavior, props);
    }

    /**
     * Each CPU's dispatcher, with the allocation-free {@link PipelineMailbox} when the system's configuration has it
     * (the actors module's {@code reference.conf} does, unless the application built its configuration without
     * the reference files).
     */
    private static Props[] placement(final ActorSystem<?> system, final DispatcherSelector[] dispatchers)
    {
        final Props[] placement = new Props[dispatchers.length];
        for (int i = 0; i < dispatchers.length; i++)
        {
            placement[i] = PipelineMailbox.selectIn(system, dispatchers[i]);
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
}
