package io.xmit.deploy.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.xmit.deploy.LiveOutput;
import io.xmit.deploy.Units;
import org.HdrHistogram.Histogram;

/**
 * The {@code cluster} scenario (issue 16): one service answered by a single node, by an edge and two app nodes over
 * the cluster's data path (Aeron UDP on 127.0.0.1), and by bare Aeron UDP between two processes, the ceiling of one
 * hop. Every variant runs in child JVMs of its own ({@link BenchProcess}, {@link ClusterBenchChild}), started afresh
 * for each round and stopped after it, so no variant shares a process or a JIT with another; the order rotates by
 * one each round (A B C, B C A …). Each round offers a fixed rate of requests ({@link PacedLoad}), lets it run
 * {@code warmMillis}, then measures a window: replies per second, their RTT, the CPU time of all the variant's
 * processes per 1,000 replies, and the bytes the data path's threads allocated per request; then a window at a
 * quarter of the rate and one at the full rate again give the bytes per packet that grow with the load
 * ({@link AllocationWindow}); then the load stops and every request sent must be answered, or is counted lost under a
 * reason. The target is the issue's: the cluster's replies per CPU-second at least half those of bare Aeron UDP,
 * round by round.
 */
public final class ClusterBench
{
    public static final String SCENARIO = "cluster";
    public static final String SINGLE = "single";
    public static final String CLUSTER = "cluster";
    public static final String AERON_UDP = "aeron-udp";
    public static final List<String> VARIANTS = List.of(SINGLE, CLUSTER, AERON_UDP);
    /** Two app nodes with two sockets of the service each; the single node has as many, locally. */
    static final int APP_NODES = 2;
    static final int SOCKETS_PER_NODE = 2;
    /** The target: the cluster's hop at least this times bare Aeron UDP, in replies per CPU-second. */
    static final double HOP_TARGET = 0.5;
    static final String HOP_RATIO = "replies_per_cpu_s " + CLUSTER + "/" + AERON_UDP;
    static final double[] CURVE_PERCENTILES = RrBench.CURVE_PERCENTILES;
    /** The slow window, for the marginal bytes per packet, offers the rate divided by this. */
    static final long SLOW = 4;
    /** After the rate changes, the replies to the requests of the old rate come before the next window opens. */
    private static final long SETTLE_MILLIS = 500;
    /** A node's start: a JVM, and for the cluster's nodes an ActorSystem that joins, rings and bound sockets. */
    private static final Duration READY = Duration.ofSeconds(90);
    private static final Duration COMMAND = Duration.ofSeconds(30);
    /** {@code load} waits on the edge for every app node's sockets to be steered to. */
    private static final Duration LOAD = Duration.ofSeconds(90);

    /**
     * @param rounds     measured rounds; every round starts its processes afresh, so there is no warm-up round.
     * @param warmMillis the load runs this long before the window opens (the JIT, the rings, Aeron's images).
     * @param millis     the measured window per variant and round.
     * @param rate       requests offered per second, whatever comes back.
     * @param flows      client sockets the requests go round-robin over (the bare Aeron variant has one stream).
     */
    public record Options(int rounds, long warmMillis, long millis, long rate, int flows)
    {
        /**
         * A rate every variant keeps up with on a loaded 2-core machine: the cluster's three JVMs fell behind at
         * 10,000/s there (replies 5,300/s, RTT in seconds), which would measure queues, not the hop.
         */
        public static final long DEFAULT_RATE = 3_000;
        public static final Options FULL = new Options(3, 2_000, 5_000, DEFAULT_RATE, 16);
        public static final Options QUICK = new Options(1, 500, 1_000, 1_000, 16);

        public Options
        {
            if (rounds < 1 || warmMillis < 0 || millis < 1 || rate < 1 || flows < 1)
            {
                throw new IllegalArgumentException("cluster options out of range: " + rounds + " rounds, " +
                    warmMillis + " ms warm, " + millis + " ms, " + rate + " requests/s, " + flows + " flows");
            }
        }

        /** Roughly: per round, the three variants' windows and warm-ups, and some 25 s of starting and stopping. */
        public long estimatedSeconds()
        {
            return rounds * (VARIANTS.size() * (warmMillis + 3 * millis + 2 * SETTLE_MILLIS) / 1000 + 25);
        }

        public Options withRounds(final int measured)
        {
            return new Options(measured, warmMillis, millis, rate, flows);
        }

        public Options withMillis(final long window)
        {
            return new Options(rounds, warmMillis, window, rate, flows);
        }

        public Options withRate(final long offered)
        {
            return new Options(rounds, warmMillis, millis, offered, flows);
        }
    }

    /**
     * One variant's round.
     *
     * @param replies       replies in the window.
     * @param windowNanos   the window, as the load's process measured it.
     * @param rtt           the RTT of the window's replies, ns.
     * @param cpuNanos      CPU time of all the variant's processes over the window.
     * @param window        each process's allocation over the window, the load's process first.
     * @param slow          the same over a window at {@link #SLOW} of the rate after it, in the same processes.
     * @param fast          the same over a window at the full rate again after that: the JIT still compiled in
     *                      the first window's processes, and code not compiled yet allocates what compiled code does
     *                      not.
     * @param sent          requests sent over the whole round.
     * @param answered      replies received over the whole round, once the load stopped and the last came.
     * @param replyBackPressured requests whose reply an echo gave up on still back-pressured, over the processes.
     * @param replyRefused  requests whose reply an echo had refused otherwise (not connected, stopped).
     * @param backPressured sends the pacer retried.
     * @param processes     the variant's JVMs.
     */
    record Round(long replies, long windowNanos, Histogram rtt, long cpuNanos, List<AllocationWindow> window,
        List<AllocationWindow> slow, List<AllocationWindow> fast, long sent, long answered,
        long replyBackPressured, long replyRefused, long backPressured, int processes)
    {
        /** An upper bound: all the data-path threads allocated over the window, per reply. */
        double bytesPerRequest()
        {
            return (double)AllocationWindow.bytes(window) / Math.max(1, replies);
        }

        double bytesPerPacketMarginal()
        {
            return AllocationWindow.marginalBytesPerPacket(fast, slow);
        }

        double repliesPerSecond()
        {
            return replies * 1e9 / windowNanos;
        }

        double cpuMillisPer1k()
        {
            return replies > 0 ? cpuNanos / 1e6 / replies * 1000 : Double.NaN;
        }

        double repliesPerCpuSecond()
        {
            return cpuNanos > 0 ? replies * 1e9 / cpuNanos : Double.NaN;
        }
    }

    private ClusterBench()
    {
    }

    public static ScenarioResult run(final Options options, final LiveOutput out)
    {
        out.println(String.format(Locale.ROOT, "cluster: %s, each in JVMs of its own; %,d requests/s offered over " +
            "%d flows; %d rounds of %d ms after %d ms of load, the order rotated each round",
            String.join(", ", VARIANTS), options.rate(), options.flows(), options.rounds(), options.millis(),
            options.warmMillis()));
        final int count = VARIANTS.size();
        final List<List<Round>> results = new ArrayList<>();
        for (int v = 0; v < count; v++)
        {
            results.add(new ArrayList<>());
        }
        for (int round = 1; round <= options.rounds(); round++)
        {
            for (int i = 0; i < count; i++)
            {
                final int v = RrBench.runsAt(round - 1, i, count);
                final Round result = round(VARIANTS.get(v), options);
                results.get(v).add(result);
                out.println(String.format(Locale.ROOT, "  %d/%d round %d %-9s %,8.0f replies/s  RTT p50 %s p99 %s  " +
                    "CPU %.1f ms/1k replies  %.2f B/request  %.2f B/packet marginal  lost %d (replies " +
                    "back-pressured %d, refused %d)", (round - 1) * count + i + 1, options.rounds() * count, round,
                    VARIANTS.get(v), result.repliesPerSecond(),
                    Units.nanos(result.rtt().getValueAtPercentile(50)), Units.nanos(result.rtt().getValueAtPercentile(99)),
                    result.cpuMillisPer1k(), result.bytesPerRequest(), result.bytesPerPacketMarginal(),
                    result.sent() - result.answered(), result.replyBackPressured(), result.replyRefused()));
            }
        }
        out.finish();
        return summarise(results, String.format(Locale.ROOT, "one echo service: %s on %s with %d local sockets; " +
            "%s: an edge and %d app nodes of %d sockets over Aeron UDP on 127.0.0.1 (3 JVMs); %s: a ping-pong of " +
            "%d-byte messages between 2 JVMs; %,d requests/s offered over %d flows; each JVM %s; %d rounds of %d ms " +
            "after %d ms of load", SINGLE, BenchPipeline.DEVICE, APP_NODES * SOCKETS_PER_NODE, CLUSTER, APP_NODES,
            SOCKETS_PER_NODE, AERON_UDP, BareAeron.MESSAGE, options.rate(), options.flows(), BenchProcess.HEAP,
            options.rounds(), options.millis(), options.warmMillis()));
    }

    /**
     * Starts the variant's processes, runs the load, measures one window, and stops them all at once, even on
     * failure (each killed if it has not exited in time).
     */
    static Round round(final String variant, final Options options)
    {
        final List<BenchProcess> processes = new ArrayList<>();
        try
        {
            final BenchProcess driver = start(variant, processes);
            driver.call("load " + options.rate() + " " + options.flows(), LOAD);
            sleep(options.warmMillis());
            final long cpuBefore = cpu(processes);
            for (final BenchProcess process : processes)
            {
                process.call("mark", COMMAND);
            }
            driver.call("window", COMMAND);
            sleep(options.millis());
            final String[] end = driver.call("end", COMMAND).split(" ");
            final List<AllocationWindow> window = allocation(processes);
            final long cpuNanos = cpu(processes) - cpuBefore;
            final List<AllocationWindow> slow = allocationAt(Math.max(1, options.rate() / SLOW), options.millis(),
                processes);
            final List<AllocationWindow> fast = allocationAt(options.rate(), options.millis(), processes);
            final String[] rest = driver.call("stop", COMMAND).split(" ");
            if (rest.length > 3)
            {
                throw new IllegalStateException(variant + ": a request was refused (not back-pressure): the " +
                    "pipeline stopped; sent " + rest[0] + ", answered " + rest[1]);
            }
            long replyBackPressured = 0;
            long replyRefused = 0;
            for (final BenchProcess process : processes)
            {
                final String[] lost = process.call("refused", COMMAND).split(" ");
                replyBackPressured += Long.parseLong(lost[0]);
                replyRefused += Long.parseLong(lost[1]);
            }
            return new Round(Long.parseLong(end[0]), Long.parseLong(end[1]), PacedLoad.histogram(end[2]), cpuNanos,
                window, slow, fast, Long.parseLong(rest[0]), Long.parseLong(rest[1]),
                replyBackPressured, replyRefused, Long.parseLong(rest[2]), processes.size());
        }
        finally
        {
            processes.forEach(BenchProcess::quit);
            processes.forEach(BenchProcess::close);
        }
    }

    /**
     * Starts {@code variant}'s processes into {@code processes}, the load's first, all at once (an app node's join
     * waits for the edge by itself), and waits until each is in place; returns the load's.
     */
    private static BenchProcess start(final String variant, final List<BenchProcess> processes)
    {
        switch (variant)
        {
            case SINGLE -> processes.add(BenchProcess.start(SINGLE, "single",
                Integer.toString(APP_NODES * SOCKETS_PER_NODE)));
            case CLUSTER ->
            {
                final String port = Integer.toString(freePort(false));
                processes.add(BenchProcess.start("edge", "edge", port, Integer.toString(APP_NODES * SOCKETS_PER_NODE)));
                for (int n = 1; n <= APP_NODES; n++)
                {
                    processes.add(BenchProcess.start("app-" + n, "app", port, Integer.toString(SOCKETS_PER_NODE)));
                }
            }
            case AERON_UDP ->
            {
                final String ping = Integer.toString(freePort(true));
                final String pong = Integer.toString(freePort(true));
                processes.add(BenchProcess.start("ping", "ping", ping, pong));
                processes.add(BenchProcess.start("pong", "pong", pong, ping));
            }
            default -> throw new IllegalArgumentException("unknown cluster variant '" + variant + "'");
        }
        for (final BenchProcess process : processes)
        {
            process.awaitReady(READY);
        }
        return processes.getFirst();
    }

    /** The load set to {@code rate}, each process's allocation over a window of {@code millis} once it settled. */
    private static List<AllocationWindow> allocationAt(final long rate, final long millis,
        final List<BenchProcess> processes)
    {
        processes.getFirst().call("rate " + rate, COMMAND);
        sleep(SETTLE_MILLIS);
        for (final BenchProcess process : processes)
        {
            process.call("mark", COMMAND);
        }
        sleep(millis);
        return allocation(processes);
    }

    /** Each process's allocation since its last {@code mark}, in the processes' order. */
    private static List<AllocationWindow> allocation(final List<BenchProcess> processes)
    {
        final List<AllocationWindow> windows = new ArrayList<>();
        for (final BenchProcess process : processes)
        {
            windows.add(AllocationWindow.parse(process.call("alloc", COMMAND)));
        }
        return windows;
    }

    private static long cpu(final List<BenchProcess> processes)
    {
        long sum = 0;
        for (final BenchProcess process : processes)
        {
            sum += process.cpuNanos();
        }
        return sum;
    }

    /** The figures per variant, the per-round ratios of the cluster to the other two, and the target. */
    static ScenarioResult summarise(final List<List<Round>> results, final String setup)
    {
        final List<ScenarioResult.Variant> variants = new ArrayList<>();
        for (int v = 0; v < VARIANTS.size(); v++)
        {
            variants.add(figures(VARIANTS.get(v), results.get(v)));
        }
        final List<Round> cluster = results.get(VARIANTS.indexOf(CLUSTER));
        final Map<String, Stat> ratios = new LinkedHashMap<>();
        for (final String other : List.of(AERON_UDP, SINGLE))
        {
            final List<Round> reference = results.get(VARIANTS.indexOf(other));
            final List<Double> efficiency = new ArrayList<>();
            final List<Double> p50 = new ArrayList<>();
            for (int r = 0; r < cluster.size(); r++)
            {
                efficiency.add(cluster.get(r).repliesPerCpuSecond() / reference.get(r).repliesPerCpuSecond());
                p50.add((double)cluster.get(r).rtt().getValueAtPercentile(50) /
                    reference.get(r).rtt().getValueAtPercentile(50));
            }
            ratios.put("replies_per_cpu_s " + CLUSTER + "/" + other, Stat.of(efficiency));
            ratios.put("rtt_p50 " + CLUSTER + "/" + other, Stat.of(p50));
        }
        return new ScenarioResult(SCENARIO, setup, cluster.size(), variants, ratios,
            List.of(new Target(HOP_RATIO, true, HOP_TARGET, ratios.get(HOP_RATIO).median())));
    }

    private static ScenarioResult.Variant figures(final String name, final List<Round> rounds)
    {
        final Map<String, List<Double>> values = new LinkedHashMap<>();
        final Histogram merged = new Histogram(3);
        for (final Round round : rounds)
        {
            final Histogram rtt = round.rtt();
            merged.add(rtt);
            add(values, "replies_per_s", round.repliesPerSecond());
            add(values, "rtt_mean_us", rtt.getMean() / 1000);
            add(values, "rtt_p50_us", rtt.getValueAtPercentile(50) / 1000.0);
            add(values, "rtt_p90_us", rtt.getValueAtPercentile(90) / 1000.0);
            add(values, "rtt_p99_us", rtt.getValueAtPercentile(99) / 1000.0);
            add(values, "rtt_p99_9_us", rtt.getValueAtPercentile(99.9) / 1000.0);
            add(values, "rtt_max_us", rtt.getMaxValue() / 1000.0);
            add(values, "cpu_ms_per_1k_replies", round.cpuMillisPer1k());
            add(values, "cpu_cores", (double)round.cpuNanos() / round.windowNanos());
            add(values, "bytes_per_request_upper_bound", round.bytesPerRequest());
            add(values, "bytes_per_packet_marginal", round.bytesPerPacketMarginal());
            add(values, "requests_lost", round.sent() - round.answered());
            add(values, "requests_lost_reply_back_pressured", round.replyBackPressured());
            add(values, "requests_lost_reply_refused", round.replyRefused());
            add(values, "requests_lost_no_reply", round.sent() - round.answered() - round.replyBackPressured() -
                round.replyRefused());
            add(values, "sends_back_pressured", round.backPressured());
            add(values, "processes", round.processes());
        }
        final Map<String, Stat> figures = new LinkedHashMap<>();
        values.forEach((figure, perRound) -> figures.put(figure, Stat.of(perRound)));
        final List<double[]> curve = new ArrayList<>();
        for (final double percentile : CURVE_PERCENTILES)
        {
            curve.add(new double[] {percentile, merged.getValueAtPercentile(percentile) / 1000.0});
        }
        return new ScenarioResult.Variant(name, figures, curve);
    }

    private static void add(final Map<String, List<Double>> values, final String figure, final double value)
    {
        values.computeIfAbsent(figure, key -> new ArrayList<>()).add(value);
    }

    /** A port of 127.0.0.1 that was free a moment ago: UDP, or TCP (Artery's). */
    static int freePort(final boolean udp)
    {
        try
        {
            if (udp)
            {
                try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
                {
                    return socket.getLocalPort();
                }
            }
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                return socket.getLocalPort();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the load ran", ex);
        }
    }
}
