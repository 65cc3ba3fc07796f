package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

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
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One round of one {@code rr} variant, closed loop: a pipeline of its own on the {@code loop} device (4 TX and 4 RX
 * queues per port, 2 CPUs) with the variant's keys, and {@code flows} flows of one transaction in flight each
 * ({@link RrFlow}). Port B runs one connected client socket per flow, port A one connected server socket per flow;
 * both of flow f's sockets run on CPU f mod 2, whatever RX queue the flow's traffic hashes to: sockets placed
 * independently of their RX queues, as threads that are not pinned are. An actor on each CPU sends that CPU's flows'
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
    static final String DEVICE = "loop:tx=4,rx=4,ring=1024";
    static final int CPUS = 2;

    private static final int SERVICE_PORT_BASE = 20000;
    private static final int CLIENT_PORT_BASE = 40000;
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
     */
    record Result(Histogram rtt, RrTally tally, ThreadCpu.Usage cpu, long nanos, int stalled,
        Map<String, Long> refused, StopReport stop, long interrupts)
    {
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

    /** What a round measured, before the stop. */
    private record Window(Histogram rtt, RrTally tally, ThreadCpu.Usage cpu, long nanos, long interrupts)
    {
    }

    private final RrVariant variant;
    private final int flows;
    private final long timeoutNanos;
    private final UnaryOperator<DatagramHandler> server;
    private final String systemName;
    private final Recorder rtt = new Recorder(3);
    private final AtomicReferenceArray<Thread> cpuThreads = new AtomicReferenceArray<>(CPUS);
    private final CountDownLatch started = new CountDownLatch(CPUS);
    private final List<RrFlow> loop = new ArrayList<>();
    private final List<UdpSocket> clients = new ArrayList<>();
    private volatile boolean running = true;

    RrRound(final RrVariant variant, final int flows)
    {
        this(variant, flows, RrFlow.TIMEOUT_NANOS, UnaryOperator.identity());
    }

    /**
     * @param timeoutNanos how long a client waits for a reply before it counts the transaction lost.
     * @param server wraps each flow's echo before it becomes the server socket's handler: the network between the
     *               flows' ends, e.g. one that loses or delays a datagram.
     */
    RrRound(final RrVariant variant, final int flows, final long timeoutNanos,
        final UnaryOperator<DatagramHandler> server)
    {
        if (flows < 1)
        {
            throw new IllegalArgumentException("rr flows " + flows + " is not >= 1");
        }
        if (timeoutNanos < MIN_TIMEOUT_NANOS)
        {
            throw new IllegalArgumentException("rr reply timeout " + timeoutNanos + " ns is not >= 1 ms");
        }
        this.timeoutNanos = timeoutNanos;
        this.variant = variant;
        this.flows = flows;
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
            rtt.reset();
            final RrTally before = tally();
            final long interruptsBefore = interrupts(pipeline);
            final ThreadCpu.Sample cpuBefore = ThreadCpu.sample(threads(), systemName);
            final long start = System.nanoTime();
            sleep(windowNanos);
            final Histogram window = rtt.getIntervalHistogram();
            final RrTally after = tally();
            final long interruptsAfter = interrupts(pipeline);
            final ThreadCpu.Sample cpuAfter = ThreadCpu.sample(threads(), systemName);
            final long nanos = System.nanoTime() - start;
            return new Window(window, after.minus(before), ThreadCpu.between(cpuBefore, cpuAfter, nanos), nanos,
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
            return new Window(rtt.getIntervalHistogram(), tally(),
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
            return new Result(window.rtt(), window.tally(), window.cpu(), window.nanos(), stalled, refused, stop,
                window.interrupts());
        }
        finally
        {
            BenchSystems.terminate(system);
        }
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

    private void openFlows(final Pipeline pipeline, final long perFlow)
    {
        for (int f = 0; f < flows; f++)
        {
            final RrFlow flow = new RrFlow(CPUS, perFlow, () -> running, rtt, timeoutNanos);
            loop.add(flow);
            pipeline.openUdp(SocketOptions.udp4(SERVICE_PORT_BASE + f).onCpu(f % CPUS)
                .connect(Endpoint.of("10.0.0.2", CLIENT_PORT_BASE + f)).handler(server.apply(flow.server())));
            clients.add(pipeline.openUdp(SocketOptions.udp4(CLIENT_PORT_BASE + f).onPort(1).onCpu(f % CPUS)
                .connect(Endpoint.of("10.0.0.1", SERVICE_PORT_BASE + f)).handler(flow.client())));
        }
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
        RrTally sum = RrTally.ZERO;
        for (final RrFlow flow : loop)
        {
            sum = sum.plus(flow.tally());
        }
        return sum;
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
