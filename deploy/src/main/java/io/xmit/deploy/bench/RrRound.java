package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.ReceiveBooks;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.cpu.Cpus;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.XpsMapsFile;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One round of one {@code rr} variant, closed loop: a pipeline of its own on the {@code loop} device (4 TX and 4 RX
 * queues per port, 2 CPUs) with the variant's keys, and {@code flows} flows of one transaction in flight each
 * ({@link RrFlow}). Port B runs one connected client socket per flow, port A one connected server socket per flow;
 * both of flow f's sockets run on CPU f mod 2. Where the flow's queues sit is chosen, not drawn: flow f is in the
 * placement class {@link RrPlacement#classOf(int, int)} under the round's shift, and its client port is the first that
 * lands it there under the pipeline's own flow-hash key ({@link RrPlacement}), read from the pipeline's XPS maps file
 * once it has started. An actor on each CPU sends that CPU's flows'
 * first requests; from then on the clients' handlers keep the loop going, and the actor's timer, every quarter of the
 * timeout ({@link RrFlow#TIMEOUT_NANOS} in the bench), gives up on the transactions that got no reply in the timeout,
 * so that a dropped request or reply costs its flow one lost transaction, not the rest of the round.
 * <p>
 * A round either runs for a time ({@link #run(long, long)}: a warm-up, then the measured window) or until every flow
 * completed a number of transactions ({@link #runTransactions}). Either way it then lets the last transactions
 * finish, stops the pipeline and checks its books. A round runs once.
 */
final class RrRound
{
    /** TX and RX queues per port. */
    static final int QUEUES = 4;
    static final String DEVICE = "loop:tx=" + QUEUES + ",rx=" + QUEUES + ",ring=1024";
    static final int CPUS = 2;
    static final String SERVER_ADDRESS = "10.0.0.1";
    static final String CLIENT_ADDRESS = "10.0.0.2";
    static final int SERVICE_PORT_BASE = 20000;

    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long IDLE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(3);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final long MIN_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The per-CPU actor's only message: its timer's tick. */
    private enum Tick
    {
        TICK
    }

    /**
     * What one round saw.
     *
     * @param rtt     RTT in ns of the transactions completed in the window.
     * @param tally   what the flows counted in the window.
     * @param cpu     the threads' CPU time in the window.
     * @param nanos   the window's length.
     * @param stalled flows with a transaction in flight after the round: neither answered nor given up on.
     * @param refused the flows that had a send refused, by the last refusal's {@code SendResult} name.
     * @param stop    the pipeline's stop, with its final books (balanced: a round whose books do not balance throws).
     * @param interrupts the RX interrupts the device raised in the window, both ports: each one a wake-up of the
     *                   device's interrupt thread and a Poll it sends to an RX queue's actor.
     * @param placed  per placement class, in {@link RrPlacement#CLASSES}' order: its flows' share of the above.
     */
    record Result(Histogram rtt, RrTally tally, ThreadCpu.Usage cpu, long nanos, int stalled,
        Map<String, Long> refused, StopReport stop, long interrupts, List<Placed> placed)
    {
        Result
        {
            placed = List.copyOf(placed);
        }

        /** Datagrams the pipeline dropped in the round, transmit and receive, by their counted reason. */
        Map<String, Long> drops()
        {
            final Map<String, Long> drops = new TreeMap<>(stop.books().dropsByReason());
            for (final ReceiveBooks port : stop.books().received())
            {
                port.dropsByReason().forEach((reason, count) -> drops.merge(reason, count, Long::sum));
            }
            return drops;
        }

        long dropped()
        {
            return drops().values().stream().mapToLong(Long::longValue).sum();
        }

        double transactionsPerSecond()
        {
            return tally.transactions() * 1e9 / nanos;
        }

        /**
         * True if the window's RTTs are the whole load's: some transactions answered, none lost, no send refused, no
         * flow stalled. Otherwise some flows sat out part of the window, and the RTTs of the rest would flatter it.
         */
        boolean complete()
        {
            return rtt.getTotalCount() > 0 && 0 == tally.lost() && 0 == tally.refused() && 0 == stalled;
        }
    }

    /**
     * The flows of one placement class in a round.
     *
     * @param placement the class.
     * @param flows     how many of the round's flows were in it; 0 if none, and then the rest is empty.
     * @param rtt       their RTTs in the window, ns.
     * @param tally     what they counted in the window.
     */
    record Placed(RrPlacement.Placement placement, int flows, Histogram rtt, RrTally tally)
    {
    }

    /** What a round measured, before the stop: per class, in {@link RrPlacement#CLASSES}' order. */
    private record Window(List<Histogram> rtt, List<RrTally> tally, ThreadCpu.Usage cpu, long nanos,
        long interrupts)
    {
    }

    private final RrVariant variant;
    private final int flows;
    private final int shift;
    private final long timeoutNanos;
    private final UnaryOperator<DatagramHandler> server;
    private final String systemName;
    private final List<Recorder> rtt = RrPlacement.CLASSES.stream().map(placement -> new Recorder(3)).toList();
    private final AtomicReferenceArray<Thread> cpuThreads = new AtomicReferenceArray<>(CPUS);
    private final CountDownLatch started = new CountDownLatch(CPUS);
    private final List<RrFlow> loop = new ArrayList<>();
    private final List<UdpSocket> clients = new ArrayList<>();
    private volatile boolean running = true;

    /** A round of the bench: flow f in placement class {@link RrPlacement#classOf}{@code (f, shift)}. */
    RrRound(final RrVariant variant, final int flows, final int shift)
    {
        this(variant, flows, shift, RrFlow.TIMEOUT_NANOS, UnaryOperator.identity());
    }

    /**
     * @param shift        shifts every flow's placement class by this many ({@link RrPlacement#classOf}).
     * @param timeoutNanos how long a client waits for a reply before it counts the transaction lost.
     * @param server wraps each flow's echo before it becomes the server socket's handler: the network between the
     *               flows' ends, e.g. one that loses or delays a datagram.
     */
    RrRound(final RrVariant variant, final int flows, final int shift, final long timeoutNanos,
        final UnaryOperator<DatagramHandler> server)
    {
        if (flows < 1)
        {
            throw new IllegalArgumentException("rr flows " + flows + " is not >= 1");
        }
        if (shift < 0)
        {
            throw new IllegalArgumentException("rr placement shift " + shift + " is not >= 0");
        }
        if (timeoutNanos < MIN_TIMEOUT_NANOS)
        {
            throw new IllegalArgumentException("rr reply timeout " + timeoutNanos + " ns is not >= 1 ms");
        }
        this.timeoutNanos = timeoutNanos;
        this.variant = variant;
        this.flows = flows;
        this.shift = shift;
        this.server = server;
        this.systemName = "bench-rr-" + INSTANCES.incrementAndGet();
    }

    /**
     * The pipeline's configuration: the round's base keys, then the variant's; the rest the pipeline's defaults. Not
     * smaller rings: they overflow although a closed loop has one datagram per flow in flight (a socket's 64 KiB ring
     * was measured full after 363 datagrams, {@code rx_drop_socket_ring_full}; docs/benchmarks.md).
     */
    static PipelineConfig config(final String name, final RrVariant variant)
    {
        return PipelineConfig.fromConfig(ConfigFactory.parseString("xmit {\n" +
            "name = \"" + name + "\"\n" +
            "device = \"" + DEVICE + "\"\n" +
            "cpus = " + CPUS + "\n" +
            variant.keys() + "\n}"));
    }

    /** Runs the loop for {@code warmNanos}, measures {@code windowNanos}, then stops. */
    Result run(final long warmNanos, final long windowNanos)
    {
        return run(Long.MAX_VALUE, pipeline ->
        {
            sleep(warmNanos);
            rtt.forEach(Recorder::reset);
            final List<RrTally> before = tallies();
            final long interruptsBefore = interrupts(pipeline);
            final ThreadCpu.Sample cpuBefore = ThreadCpu.sample(threads(), systemName);
            final long start = System.nanoTime();
            sleep(windowNanos);
            final List<Histogram> window = intervals();
            final List<RrTally> after = tallies();
            final long interruptsAfter = interrupts(pipeline);
            final ThreadCpu.Sample cpuAfter = ThreadCpu.sample(threads(), systemName);
            final long nanos = System.nanoTime() - start;
            final List<RrTally> tally = new ArrayList<>();
            for (int c = 0; c < after.size(); c++)
            {
                tally.add(after.get(c).minus(before.get(c)));
            }
            return new Window(window, tally, ThreadCpu.between(cpuBefore, cpuAfter, nanos), nanos,
                interruptsAfter - interruptsBefore);
        }, false);
    }

    /**
     * Runs until every flow completed {@code perFlow} transactions, waiting at most {@code timeoutNanos}; the window
     * is the whole run.
     *
     * @throws IllegalStateException naming the flows that did not finish in time, or stopped at a refused send.
     */
    Result runTransactions(final long perFlow, final long timeoutNanos)
    {
        if (perFlow < 1)
        {
            throw new IllegalArgumentException("rr transactions per flow " + perFlow + " is not >= 1");
        }
        return run(perFlow, pipeline ->
        {
            final long interruptsBefore = interrupts(pipeline);
            final ThreadCpu.Sample cpuBefore = ThreadCpu.sample(threads(), systemName);
            final long start = System.nanoTime();
            awaitEvery(RrFlow::finished, timeoutNanos);
            final long nanos = System.nanoTime() - start;
            return new Window(intervals(), tallies(),
                ThreadCpu.between(cpuBefore, ThreadCpu.sample(threads(), systemName), nanos), nanos,
                interrupts(pipeline) - interruptsBefore);
        }, true);
    }

    /**
     * Starts the pipeline and the flows, measures, lets the last transactions finish (a bounded wait), stops the
     * pipeline and checks its books; with {@code exact}, also that every flow completed its transactions. What fails
     * is an {@link IllegalStateException} with the flows behind, the refused sends and the stop's books.
     */
    private Result run(final long perFlow, final Function<Pipeline, Window> measure, final boolean exact)
    {
        if (!loop.isEmpty())
        {
            throw new IllegalStateException(variant.name() + ": a round runs once; make another");
        }
        final ActorSystem<Void> system =
            ActorSystem.create(Behaviors.empty(), systemName, BenchSystems.quietConfig());
        try
        {
            final Pipeline pipeline = Pipeline.start(system, config(systemName, variant));
            final Window window;
            final StopReport stop;
            try
            {
                openFlows(pipeline, perFlow);
                startFlows(system);
                window = measure.apply(pipeline);
                running = false;
                awaitEvery(RrFlow::idle, IDLE_TIMEOUT_NANOS);
            }
            finally
            {
                running = false;
                stop = pipeline.stop(STOP_DEADLINE);
            }
            final List<Integer> behind = new ArrayList<>();
            for (int f = 0; f < loop.size(); f++)
            {
                final RrFlow flow = loop.get(f);
                if (!flow.idle() || exact && (!flow.finished() || null != flow.refusal()))
                {
                    behind.add(f);
                }
            }
            if (exact && !behind.isEmpty() || !stop.books().balances())
            {
                throw new IllegalStateException(variant.name() + ": " + (behind.isEmpty() ? "" : "flows " + behind +
                    " did not finish (refused sends: " + refusals() + "); ") + tally() + "; stop: " + stop.line());
            }
            final int stalled = (int)loop.stream().filter(flow -> !flow.idle()).count();
            final Map<String, Long> refused = new TreeMap<>();
            refusals().values().forEach(result -> refused.merge(result, 1L, Long::sum));
            return result(window, stalled, refused, stop);
        }
        finally
        {
            BenchSystems.terminate(system);
        }
    }

    /** The round's result: the classes' windows, and their sums. */
    private Result result(final Window window, final int stalled, final Map<String, Long> refused,
        final StopReport stop)
    {
        final Histogram rttAll = new Histogram(3);
        RrTally tallyAll = RrTally.ZERO;
        final List<Placed> placed = new ArrayList<>();
        for (int c = 0; c < RrPlacement.CLASSES.size(); c++)
        {
            final RrPlacement.Placement placement = RrPlacement.CLASSES.get(c);
            rttAll.add(window.rtt().get(c));
            tallyAll = tallyAll.plus(window.tally().get(c));
            placed.add(new Placed(placement, (int)IntStream.range(0, flows)
                .filter(f -> RrPlacement.classOf(f, shift).equals(placement)).count(), window.rtt().get(c),
                window.tally().get(c)));
        }
        return new Result(rttAll, tallyAll, window.cpu(), window.nanos(), stalled, refused, stop, window.interrupts(),
            placed);
    }

    /** Each class's RTTs since the last call, in {@link RrPlacement#CLASSES}' order. */
    private List<Histogram> intervals()
    {
        return rtt.stream().map(Recorder::getIntervalHistogram).toList();
    }

    /** The RX interrupts the device has raised so far, both ports. */
    private static long interrupts(final Pipeline pipeline)
    {
        long interrupts = 0;
        for (int port = 0; port < pipeline.portCount(); port++)
        {
            interrupts += pipeline.total(CounterType.RX_INTERRUPTS, port);
        }
        return interrupts;
    }

    /**
     * Opens each flow's sockets, the client's port chosen to land the flow in its class under this pipeline's flow-hash
     * key (kernel-semantics §3.4: drawn per pipeline, so the ports are chosen after the start).
     */
    private void openFlows(final Pipeline pipeline, final long perFlow)
    {
        final RrPlacement placement = placement(pipeline);
        final Set<Integer> taken = new HashSet<>();
        for (int f = 0; f < flows; f++)
        {
            final RrPlacement.Placement placed = RrPlacement.classOf(f, shift);
            final int clientPort = placement.clientPort(CLIENT_ADDRESS, SERVER_ADDRESS, SERVICE_PORT_BASE + f,
                f % CPUS, placed, taken);
            taken.add(clientPort);
            final RrFlow flow = new RrFlow(CPUS, perFlow, () -> running, rtt.get(RrPlacement.CLASSES.indexOf(placed)),
                timeoutNanos);
            loop.add(flow);
            pipeline.openUdp(SocketOptions.udp4(SERVICE_PORT_BASE + f).onCpu(f % CPUS)
                .connect(Endpoint.of(CLIENT_ADDRESS, clientPort)).handler(server.apply(flow.server())));
            clients.add(pipeline.openUdp(SocketOptions.udp4(clientPort).onPort(1).onCpu(f % CPUS)
                .connect(Endpoint.of(SERVER_ADDRESS, SERVICE_PORT_BASE + f)).handler(flow.client())));
        }
    }

    /** The placement under {@code pipeline}'s flow-hash key, read from its XPS maps file. */
    static RrPlacement placement(final Pipeline pipeline)
    {
        final XpsMapsFile.Maps maps = XpsMapsFile.read(XpsMapsFile.beside(pipeline.countersPath()));
        return new RrPlacement(maps.hasher(), CPUS, QUEUES, QUEUES);
    }

    /**
     * Sends each flow's first request from its CPU's thread, learns the CPUs' threads for their CPU time, and keeps
     * expiring that CPU's flows' transactions until the ActorSystem ends.
     */
    private void startFlows(final ActorSystem<Void> system)
    {
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            final int on = cpu;
            system.systemActorOf(Behaviors.<Tick>setup(context ->
            {
                cpuThreads.set(on, Thread.currentThread());
                for (int f = on; f < flows; f += CPUS)
                {
                    loop.get(f).start(clients.get(f));
                }
                started.countDown();
                return Behaviors.withTimers(timers ->
                {
                    timers.startTimerWithFixedDelay(Tick.TICK, Duration.ofNanos(timeoutNanos / 4));
                    return Behaviors.receiveMessage(tick ->
                    {
                        final long now = System.nanoTime();
                        for (int f = on; f < flows; f += CPUS)
                        {
                            loop.get(f).expire(now);
                        }
                        return Behaviors.same();
                    });
                });
            }), "rr-flows-" + cpu, DispatcherSelector.fromConfig(Cpus.dispatcherId(cpu)));
        }
        try
        {
            if (!started.await(START_TIMEOUT_NANOS, TimeUnit.NANOSECONDS))
            {
                throw new IllegalStateException(variant.name() + ": the flows did not start on their CPUs within " +
                    TimeUnit.NANOSECONDS.toSeconds(START_TIMEOUT_NANOS) + " s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(variant.name() + ": interrupted while the flows started", ex);
        }
    }

    /** Flow → the last refused send's result, for the flows that had one. */
    private Map<Integer, String> refusals()
    {
        final Map<Integer, String> refusals = new TreeMap<>();
        for (int f = 0; f < loop.size(); f++)
        {
            if (null != loop.get(f).refusal())
            {
                refusals.put(f, loop.get(f).refusal());
            }
        }
        return refusals;
    }

    private Thread[] threads()
    {
        final Thread[] threads = new Thread[CPUS];
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            threads[cpu] = cpuThreads.get(cpu);
        }
        return threads;
    }

    private RrTally tally()
    {
        return tallies().stream().reduce(RrTally.ZERO, RrTally::plus);
    }

    /** What each class's flows counted so far, in {@link RrPlacement#CLASSES}' order. */
    private List<RrTally> tallies()
    {
        final List<RrTally> sums = new ArrayList<>();
        for (final RrPlacement.Placement placement : RrPlacement.CLASSES)
        {
            RrTally sum = RrTally.ZERO;
            for (int f = 0; f < loop.size(); f++)
            {
                if (RrPlacement.classOf(f, shift).equals(placement))
                {
                    sum = sum.plus(loop.get(f).tally());
                }
            }
            sums.add(sum);
        }
        return sums;
    }

    /** Waits until every flow meets {@code condition}, or {@code timeoutNanos} have passed. */
    private void awaitEvery(final Predicate<RrFlow> condition, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!loop.stream().allMatch(condition) && System.nanoTime() < deadline)
        {
            sleep(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void sleep(final long nanos)
    {
        try
        {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the loop ran", ex);
        }
    }
}
