package io.xmit.deploy.bench;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Endpoint;
import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.cpu.Cpus;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.transport.nic.QueueStats;

/**
 * The xmit pipeline itself: {@link Pipeline#start} on a {@code null} device with two TX queues and two CPUs, XPS by
 * CPU (CPU i → TX queue i, kernel-semantics §2), and per CPU one {@link XmitSender} on that CPU's dispatcher sending
 * on its own connected socket. So, as in {@link NaivePipeline}, each packet stays on one thread from the socket to
 * the driver, but it crosses the stages through a ring, the qdisc bypasses or bulk-dequeues up to {@link #BULK} per
 * {@code tx_burst}, and nothing is allocated per packet. Delivered packets are the TX queues' completions
 * ({@code txq_completed_packets}), the same point the naive pipeline counts at.
 * <p>
 * Three knobs make the ablations: {@link #NO_BYPASS_NAME} turns the qdisc's bypass off ({@code qdisc.bypass = off}),
 * so every packet is enqueued into pfifo_fast and dequeued; {@link #BULK_1_NAME} bounds every {@code tx_burst} to
 * one packet ({@code qdisc.bulk-limit = 1}), the design before bulk dequeue. {@link #SENDER_BYPASS_NAME} is not an
 * ablation but the bypass in the sender's context turned on ({@code qdisc.sender-bypass = on}): a sender that finds
 * the qdisc's actor idle runs the qdisc itself, once per burst.
 */
public final class XmitTxVariant implements TxVariant
{
    public static final String NAME = "xmit";
    public static final String NO_BYPASS_NAME = "no-bypass";
    public static final String BULK_1_NAME = "bulk-1";
    public static final String SENDER_BYPASS_NAME = "sender-bypass";
    public static final String TRACE_MISS_NAME = "trace-miss";
    public static final String TRACE_1K_NAME = "trace-1k";
    /** A flow filter no packet of this bench matches (its frames go to 10.0.0.2:11211). */
    static final String TRACE_MISS = "flow=udp:*:*-10.9.9.9:1";
    public static final int CPUS = 2;
    public static final int BULK = 64;
    /**
     * Measured on the bench, 5 rounds each: 0, 16 and 256 gave medians of 7.0, 6.0 and 6.8 Mpps within a spread of
     * 3–8.5 Mpps, so no measurable difference; 0 spends no CPU on empty polls.
     */
    public static final int DEFAULT_SPIN_POLLS = 0;
    /** The pipeline's own default, for every variant but {@link #SENDER_BYPASS_NAME}. */
    public static final boolean DEFAULT_SENDER_BYPASS = PipelineConfig.DEFAULT_SENDER_BYPASS;

    private static final String NULL_DEVICE = "null:tx=" + CPUS + ",rx=1,ring=1024";
    private static final int QUOTA = 64;
    private static final int BAND_LIMIT = 1000;
    private static final int QDISC_RING_TERM = 1 << 23;
    private static final int SOCKET_RING_TERM = 1 << 16;
    private static final String PEER_ADDRESS = "10.0.0.2";
    private static final int PEER_PORT = 11211;
    private static final int LOCAL_PORT_BASE = 5000;
    private static final long START_TIMEOUT_SECONDS = 10;
    private static final long STOP_TIMEOUT_SECONDS = 10;
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final String name;
    private final boolean bypass;
    private final boolean senderBypass;
    private final int bulk;
    private final long packetsPerQueue;
    private final int spinPolls;
    private final TraceConfig trace;
    private final String device;
    private final String systemName;
    private final AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(CPUS);
    private final CountDownLatch sendersStopped = new CountDownLatch(CPUS);
    private final QueueStats[] closingStats = new QueueStats[CPUS];
    private final UdpSocket[] sockets = new UdpSocket[CPUS];
    private volatile boolean running;
    private int spawned;
    private ActorSystem<Void> system;
    private Pipeline pipeline;
    private Map<String, Long> closingCounters;
    private String detail = "";
    private boolean closed;

    /** The pipeline as configured by default (bypass, bulk {@link #BULK}), sending until closed. */
    public static XmitTxVariant xmit()
    {
        return new XmitTxVariant(NAME, true, DEFAULT_SENDER_BYPASS, BULK, Long.MAX_VALUE, DEFAULT_SPIN_POLLS,
            TraceConfig.OFF);
    }

    /** The pipeline with the qdisc's bypass off, sending until closed. */
    public static XmitTxVariant noBypass()
    {
        return new XmitTxVariant(NO_BYPASS_NAME, false, DEFAULT_SENDER_BYPASS, BULK, Long.MAX_VALUE,
            DEFAULT_SPIN_POLLS, TraceConfig.OFF);
    }

    /** The pipeline with the bypass in the sender's context on, sending until closed. */
    public static XmitTxVariant senderBypass()
    {
        return new XmitTxVariant(SENDER_BYPASS_NAME, true, true, BULK, Long.MAX_VALUE, DEFAULT_SPIN_POLLS,
            TraceConfig.OFF);
    }

    /** The pipeline with one packet per {@code tx_burst}, sending until closed. */
    public static XmitTxVariant bulkOne()
    {
        return new XmitTxVariant(BULK_1_NAME, true, DEFAULT_SENDER_BYPASS, 1, Long.MAX_VALUE, DEFAULT_SPIN_POLLS,
            TraceConfig.OFF);
    }

    /** The pipeline with tracing configured by a flow filter that matches none of its packets. */
    public static XmitTxVariant traceMiss()
    {
        return new XmitTxVariant(TRACE_MISS_NAME, true, DEFAULT_SENDER_BYPASS, BULK, Long.MAX_VALUE, DEFAULT_SPIN_POLLS,
            TraceConfig.OFF.withSelector(TraceSelector.parse(TRACE_MISS)));
    }

    /** The pipeline tracing 1 in 1,000 packets (events into the trace ring, drained by the tracer; no file). */
    public static XmitTxVariant traceOneInThousand()
    {
        return new XmitTxVariant(TRACE_1K_NAME, true, DEFAULT_SENDER_BYPASS, BULK, Long.MAX_VALUE, DEFAULT_SPIN_POLLS,
            TraceConfig.OFF.withSelector(TraceSelector.parse("sample=1000")));
    }

    /**
     * The default pipeline on another device, e.g. {@code afpacket:if=xb0,queues=2}: with afpacket the port is the
     * interface's default (10.0.0.1/24, ARP on), sending to 10.0.0.2:11211 on the link.
     */
    public static XmitTxVariant onDevice(final String name, final String device)
    {
        return new XmitTxVariant(name, true, DEFAULT_SENDER_BYPASS, BULK, Long.MAX_VALUE,
            DEFAULT_SPIN_POLLS, TraceConfig.OFF, device);
    }

    /**
     * @param name            the variant's name, also the prefix of its ActorSystem's name.
     * @param bypass          the pipeline's {@link PipelineConfig#qdiscBypass()}.
     * @param senderBypass    the pipeline's {@link PipelineConfig#qdiscSenderBypass()}.
     * @param bulk            the pipeline's {@link PipelineConfig#bulkLimit()}.
     * @param packetsPerQueue each sender stops after its socket accepted this many packets.
     * @param spinPolls       the pipeline's {@link PipelineConfig#spinPolls()}.
     * @param trace           the pipeline's {@link PipelineConfig#trace()}.
     */
    public XmitTxVariant(final String name, final boolean bypass, final boolean senderBypass, final int bulk,
        final long packetsPerQueue, final int spinPolls, final TraceConfig trace)
    {
        this(name, bypass, senderBypass, bulk, packetsPerQueue, spinPolls, trace, NULL_DEVICE);
    }

    private XmitTxVariant(final String name, final boolean bypass, final boolean senderBypass, final int bulk,
        final long packetsPerQueue, final int spinPolls, final TraceConfig trace, final String device)
    {
        if (packetsPerQueue < 1)
        {
            throw new IllegalArgumentException("packetsPerQueue " + packetsPerQueue + " is not >= 1");
        }
        this.name = name;
        this.bypass = bypass;
        this.senderBypass = senderBypass;
        this.bulk = bulk;
        this.packetsPerQueue = packetsPerQueue;
        this.spinPolls = spinPolls;
        this.trace = trace;
        this.device = device;
        this.systemName = "bench-" + name + "-" + INSTANCES.incrementAndGet();
    }

    @Override
    public String name()
    {
        return name;
    }

    /**
     * Starts the ActorSystem and the pipeline, opens one socket per CPU, and returns once both senders run on
     * their CPUs (their threads known).
     *
     * @throws IllegalStateException if already started, or if the senders did not start within 10 s.
     */
    @Override
    public void start()
    {
        if (null != system)
        {
            throw new IllegalStateException(systemName + " was already started");
        }
        system = ActorSystem.create(Behaviors.empty(), systemName, BenchSystems.quietConfig());
        try
        {
            pipeline = Pipeline.start(system, PipelineConfig.builder()
                .name(systemName)
                .device(device)
                .cpus(CPUS)
                .quota(QUOTA)
                .bulkLimit(bulk)
                .bandLimit(BAND_LIMIT)
                .overflow(OverflowPolicy.BACKPRESSURE)
                .qdiscBypass(bypass)
                .qdiscSenderBypass(senderBypass)
                .spinPolls(spinPolls)
                .qdiscRingTerm(QDISC_RING_TERM)
                .socketRingTerm(SOCKET_RING_TERM)
                .xpsPreset(XpsPreset.CPUS)
                .trace(trace)
                .build());
            running = true;
            for (int cpu = 0; cpu < CPUS; cpu++)
            {
                sockets[cpu] = pipeline.openUdp(SocketOptions.udp4(LOCAL_PORT_BASE + cpu).onCpu(cpu)
                    .connect(Endpoint.of(PEER_ADDRESS, PEER_PORT)));
            }
            for (int cpu = 0; cpu < CPUS; cpu++)
            {
                system.systemActorOf(
                    XmitSender.create(cpu, sockets[cpu], packetsPerQueue, () -> running, threads, sendersStopped),
                    "sender-" + cpu,
                    DispatcherSelector.fromConfig(Cpus.dispatcherId(cpu)).withNext(XmitSender.PLACEMENT));
                spawned++;
            }
            awaitSenderThreads();
        }
        catch (final RuntimeException ex)
        {
            try
            {
                close();
            }
            catch (final RuntimeException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    private void awaitSenderThreads()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            while (null == threads.get(cpu))
            {
                if (System.nanoTime() > deadline || 0 == sendersStopped.getCount())
                {
                    throw new IllegalStateException(systemName + ": sender " + cpu + " did not start on its CPU " +
                        "within " + START_TIMEOUT_SECONDS + " s");
                }
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Measures the window and keeps, for {@link #detail()}, what the qdiscs did in it: the bypass share
     * (qdisc_bypassed / qdisc_packets), the direct path's share (qdisc_direct / qdisc_packets), the mean bulk
     * (qdisc_packets / qdisc_bulks), the sends refused with BACK_PRESSURED per packet, TX queue stops and the BQL
     * limits at the end.
     */
    @Override
    public Result runFor(final long nanos)
    {
        final long[] ids = new long[CPUS];
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            ids[cpu] = threads.get(cpu).threadId();
        }
        final long packets = pipeline.total(CounterType.QDISC_PACKETS, 0);
        final long bypassed = pipeline.total(CounterType.QDISC_BYPASSED, 0);
        final long direct = pipeline.total(CounterType.QDISC_DIRECT, 0);
        final long bulks = pipeline.total(CounterType.QDISC_BULKS, 0);
        final long stops = pipeline.total(CounterType.TXQ_STOPS, 0);
        final long pressured = pipeline.total(CounterType.SOCKET_SEND_BACKPRESSURED, 0);
        final Result result = WindowMeter.measure(this::delivered, ids, nanos);
        final long dPackets = pipeline.total(CounterType.QDISC_PACKETS, 0) - packets;
        final long dBypassed = pipeline.total(CounterType.QDISC_BYPASSED, 0) - bypassed;
        final long dDirect = pipeline.total(CounterType.QDISC_DIRECT, 0) - direct;
        final long dBulks = pipeline.total(CounterType.QDISC_BULKS, 0) - bulks;
        final long dStops = pipeline.total(CounterType.TXQ_STOPS, 0) - stops;
        final long dPressured = pipeline.total(CounterType.SOCKET_SEND_BACKPRESSURED, 0) - pressured;
        detail = String.format(Locale.ROOT,
            "bypass %5.1f%%  direct %5.1f%%  bulk %5.1f  back-pressured sends/packet %.3f  stops %d  bql %d/%d",
            dPackets > 0 ? 100.0 * dBypassed / dPackets : 0.0, dPackets > 0 ? 100.0 * dDirect / dPackets : 0.0,
            dBulks > 0 ? (double)dPackets / dBulks : 0.0,
            dPackets > 0 ? (double)dPressured / dPackets : 0.0, dStops,
            pipeline.counter(CounterType.TXQ_BQL_LIMIT, CounterScope.txq(0, 0)),
            pipeline.counter(CounterType.TXQ_BQL_LIMIT, CounterScope.txq(0, 1)));
        return result;
    }

    @Override
    public String detail()
    {
        return detail;
    }

    /** TX completions over both queues. */
    @Override
    public long delivered()
    {
        long total = 0;
        for (int queue = 0; queue < CPUS; queue++)
        {
            total += delivered(queue);
        }
        return total;
    }

    /** TX completions of {@code queue}: its {@code txq_completed_packets}. */
    public long delivered(final int queue)
    {
        return counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, queue));
    }

    /** Packets the socket of CPU {@code cpu} accepted: its {@code socket_sent}. */
    public long sent(final int cpu)
    {
        return counter(CounterType.SOCKET_SENT, CounterScope.socket(0, sockets[cpu].id()));
    }

    /**
     * A counter of the pipeline ({@link Pipeline#counter}): live while running, and after {@link #close()} as it
     * was once the senders had stopped, just before the pipeline closed; -1 if there is no such counter.
     */
    public long counter(final CounterType type, final CounterScope scope)
    {
        if (closed)
        {
            return closingCounters.getOrDefault(type.label() + " " + scope.label(), -1L);
        }
        return pipeline.counter(type, scope);
    }

    /** The driver's counters for TX queue {@code queue}, live or, after {@link #close()}, as they were then. */
    public QueueStats driverStats(final int queue)
    {
        return closed ? closingStats[queue] : pipeline.driver(0).stats(queue);
    }

    /** True once the ActorSystem has terminated. */
    public boolean isTerminated()
    {
        return null != system && system.getWhenTerminated().toCompletableFuture().isDone();
    }

    /**
     * Stops the senders and waits up to 10 s for them, so no send runs into a closing ring; then closes the
     * pipeline (its actors, device, rings and counters) and terminates the ActorSystem, waiting up to 10 s.
     *
     * @throws IllegalStateException if the senders or the ActorSystem did not stop in time; the pipeline is left
     *                               open if the senders did not stop.
     */
    @Override
    public void close()
    {
        if (closed || null == system)
        {
            return;
        }
        running = false;
        for (; spawned < CPUS; spawned++)
        {
            sendersStopped.countDown();
        }
        if (null != pipeline)
        {
            if (!await(sendersStopped))
            {
                throw new IllegalStateException(systemName + ": senders did not stop within " + STOP_TIMEOUT_SECONDS +
                    " s; the pipeline stays open");
            }
            for (int queue = 0; queue < CPUS; queue++)
            {
                closingStats[queue] = pipeline.driver(0).stats(queue);
            }
            closingCounters = pipeline.counters();
            pipeline.close();
        }
        closed = true;
        BenchSystems.terminate(system);
    }

    private boolean await(final CountDownLatch latch)
    {
        try
        {
            return latch.await(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(systemName + ": interrupted while stopping the senders", ex);
        }
    }
}
