package io.xmit.deploy.bench;

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
 * The {@code rr} scenario, netperf's {@code UDP_RR} over the {@code loop} device: closed-loop request/response
 * ({@link RrRound}, {@link RrFlow}), one transaction in flight per flow, the clients' handlers sending the next
 * request. The variants are the product of two axes of pipeline keys ({@link RrVariant}): the XPS mode — TX queues
 * picked by the flow hash ({@code hash}), by the sending CPU ({@code xps-cpus}) or by the RX queue the socket's
 * traffic arrives on ({@code xps-rxqs}) — and busy polling. After one warm-up run of each variant, every round
 * runs each variant once per sub-round on a fresh pipeline, the order rotated by one each time (A B C, B C A, C A B …)
 * so that no variant always follows the same one. Each flow has a placement class ({@link RrPlacement}): where its RX
 * queues and {@code hash}'s TX queue sit against its sockets' CPU, chosen by the client's port; the classes shift from
 * one sub-round to the next ({@link RrPlacement#shift}), and a round has as many sub-rounds as it takes for each class
 * to be measured equally (4 with one flow, 1 with a multiple of 4). Per variant the report gives transactions per
 * second, the RTT mean and percentiles, the cross-CPU hops per transaction and the threads' CPU share, over all classes
 * and per class; ratios of mean RTT to each variant's counterpart on the first setting of an axis ({@code hash}, busy
 * polling off), over all classes and per class; and the targets, which need busy polling, held against the
 * worst class.
 */
public final class RrBench
{
    public static final String SCENARIO = "rr";
    public static final String REFERENCE = "hash";
    /** The label of busy polling on, in the variants' names; the targets are about the variants that have it. */
    public static final String BUSY_POLLING = "busy-poll";

    /** The XPS axis. */
    public static final List<RrVariant.Setting> XPS_MODES = List.of(
        new RrVariant.Setting(REFERENCE, "xps.preset = none"),
        new RrVariant.Setting("xps-cpus", "xps.preset = cpus"),
        new RrVariant.Setting("xps-rxqs", "xps.preset = rxqs"));

    /**
     * The busy-polling axis: off, as the pipeline's defaults, and the kernel's whole low-latency path on
     * ({@link #BUSY_POLLING}): every socket busy-polls its channel for up to 50 µs, preferring busy polling (the
     * channel's interrupt stays off while the socket keeps coming back), and runs its idle qdisc itself (the bypass in
     * the sender's context, which the kernel always takes); every XPS mode runs both ways.
     */
    public static final List<RrVariant.Setting> POLLING = List.of(new RrVariant.Setting("", ""),
        new RrVariant.Setting(BUSY_POLLING, "busy-poll = 50us\nprefer-busy-poll = on\nqdisc.sender-bypass = on"));

    /** Every variant, in the order of the first measured round. */
    public static final List<RrVariant> VARIANTS = RrVariant.product(List.of(XPS_MODES, POLLING));

    /** The points of each variant's RTT curve in the report. */
    static final double[] CURVE_PERCENTILES = {1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};

    /** The targets: RTT under busy polling on {@code loop} with 2 CPUs, µs, p50 and p99. */
    static final double P50_TARGET_US = 10;
    static final double P99_TARGET_US = 50;
    /** The seed's experiment: under busy polling, xps-rxqs mean RTT at most this times hash's. */
    static final double RXQS_TARGET = 0.7;

    /**
     * @param rounds     measured rounds after the warm-up round.
     * @param warmMillis the loop runs this long after each start before the window opens.
     * @param millis     the measured window per variant and round.
     * @param flows      flows, each a connected client socket answered by a connected server socket.
     */
    public record Options(int rounds, long warmMillis, long millis, int flows)
    {
        public static final int DEFAULT_FLOWS = 16;
        public static final Options FULL = new Options(5, 500, 3_000, DEFAULT_FLOWS);
        public static final Options QUICK = new Options(2, 200, 800, DEFAULT_FLOWS);

        public Options
        {
            if (rounds < 1 || warmMillis < 0 || millis < 1 || flows < 1)
            {
                throw new IllegalArgumentException("rr options out of range: " + rounds + " rounds, " + warmMillis +
                    " ms warm, " + millis + " ms, " + flows + " flows");
            }
        }

        /**
         * The run's length in seconds, roughly: warm-up, window and a start and stop per variant and round (about
         * 2 s: the pipeline's start and drain, the ActorSystem's termination).
         */
        public long estimatedSeconds()
        {
            return (rounds * RrPlacement.subRounds(flows) + 1) * VARIANTS.size() * (warmMillis + millis + 2_000) / 1000;
        }

        public Options withRounds(final int measured)
        {
            return new Options(measured, warmMillis, millis, flows);
        }

        public Options withFlows(final int count)
        {
            return new Options(rounds, warmMillis, millis, count);
        }
    }

    private RrBench()
    {
    }

    /** The variants' names, in order. */
    public static List<String> names()
    {
        return VARIANTS.stream().map(RrVariant::name).toList();
    }

    /**
     * Runs the warm-up and measured rounds, showing each variant's round as the progress line (redrawn on a
     * terminal, a line each when piped); returns the figures.
     */
    public static ScenarioResult run(final Options options, final LiveOutput out)
    {
        final int subRounds = RrPlacement.subRounds(options.flows());
        out.println(String.format(Locale.ROOT, "rr: %s; closed loop, %d flows of one transaction in flight; " +
            "1 warm-up and %d measured rounds of %d sub-rounds (placement classes %s, shifted each time) of " +
            "%d ms after %d ms of load, the order rotated each time", String.join(", ", names()), options.flows(),
            options.rounds(), subRounds, classLabels(), options.millis(), options.warmMillis()));
        final int count = VARIANTS.size();
        final int runs = (options.rounds() * subRounds + 1) * count;
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < count; v++)
        {
            results.add(new ArrayList<>());
        }
        int done = 0;
        for (int block = 0; block <= options.rounds() * subRounds; block++)
        {
            final int round = 0 == block ? 0 : (block - 1) / subRounds + 1;
            final int subRound = 0 == block ? 0 : (block - 1) % subRounds;
            final int shift = 0 == block ? 0 : RrPlacement.shift(options.flows(), round - 1, subRound);
            final String label = 0 == block ? "warm-up" : "round " + round + "." + subRound;
            for (int i = 0; i < count; i++)
            {
                final int v = runsAt(block, i, count);
                final RrVariant variant = VARIANTS.get(v);
                final RrRound.Result result = new RrRound(variant, options.flows(), shift).run(TimeUnit.MILLISECONDS
                    .toNanos(options.warmMillis()), TimeUnit.MILLISECONDS.toNanos(options.millis()));
                final Histogram rtt = result.rtt();
                out.status(List.of(String.format(Locale.ROOT, "  %d/%d %-10s %-18s %-9s %,9.0f txn/s  RTT mean %s " +
                    "p50 %s p99 %s", ++done, runs, label, placed(result), variant.name(),
                    result.transactionsPerSecond(), Units.nanos(rtt.getMean()),
                    Units.nanos(rtt.getValueAtPercentile(50)), Units.nanos(rtt.getValueAtPercentile(99))),
                    String.format(Locale.ROOT, "hops/txn %.2f", result.tally().hopsPerTransaction()),
                    String.format(Locale.ROOT, "CPU %.2f", result.cpu().total()),
                    String.format(Locale.ROOT, "dropped %d%s, lost %d, late %d, stalled %d%s", result.dropped(),
                        result.drops().isEmpty() ? "" : " " + result.drops(), result.tally().lost(),
                        result.tally().late(), result.stalled(),
                        result.refused().isEmpty() ? "" : ", flows refused " + result.refused())));
                if (block > 0)
                {
                    results.get(v).add(result);
                }
            }
        }
        out.finish();
        return summarise(VARIANTS, results, String.format(Locale.ROOT,
            "closed-loop request/response over %s, %d CPUs, %d flows of one transaction in flight; %d rounds of " +
            "%d sub-rounds, each a run per variant of %d ms after %d ms of load, after 1 warm-up run; every " +
            "placement class (%s) has as many flow-runs as the others; the figures' rounds are the runs",
            RrRound.DEVICE, RrRound.CPUS, options.flows(), options.rounds(), subRounds, options.millis(),
            options.warmMillis(),
            classLabels()));
    }

    private static String classLabels()
    {
        return String.join(", ", RrPlacement.CLASSES.stream().map(RrPlacement.Placement::label).toList());
    }

    /** The classes a run's flows were in, for its progress line: the one class, or how many flows each had. */
    static String placed(final RrRound.Result result)
    {
        final List<RrRound.Placed> present = result.placed().stream().filter(placed -> placed.flows() > 0).toList();
        return 1 == present.size() ? present.getFirst().placement().label() :
            String.join(" ", present.stream().map(placed -> String.valueOf(placed.flows())).toList()) + " flows";
    }

    /** Which variant runs {@code position}th in {@code round}: the order rotated by one each round. */
    static int runsAt(final int round, final int position, final int count)
    {
        return (round + position) % count;
    }

    /** The figures per variant, the ratios to each variant's counterparts, and the targets. */
    static ScenarioResult summarise(final List<RrVariant> names, final List<List<RrRound.Result>> results,
        final String setup)
    {
        final List<ScenarioResult.Variant> variants = new ArrayList<>();
        for (int v = 0; v < names.size(); v++)
        {
            variants.add(figures(names.get(v).name(), results.get(v)));
        }
        final Map<String, Stat> ratios = new LinkedHashMap<>();
        final List<List<RrVariant.Setting>> axes = List.of(XPS_MODES, POLLING);
        for (int v = 0; v < names.size(); v++)
        {
            for (int axis = 0; axis < axes.size() && axis < names.get(v).settings().size(); axis++)
            {
                final RrVariant counterpart = names.get(v).with(axis, axes.get(axis).getFirst());
                final int reference = names.indexOf(counterpart);
                if (reference >= 0 && reference != v)
                {
                    final List<Double> perRound = new ArrayList<>();
                    for (int r = 0; r < results.get(v).size(); r++)
                    {
                        final RrRound.Result result = results.get(v).get(r);
                        final RrRound.Result against = results.get(reference).get(r);
                        perRound.add(result.complete() && against.complete() ?
                            result.rtt().getMean() / against.rtt().getMean() : Double.NaN);
                    }
                    ratios.put("rtt_mean " + names.get(v).name() + "/" + counterpart.name(), completeRounds(perRound));
                    for (int c = 0; c < RrPlacement.CLASSES.size(); c++)
                    {
                        final List<Double> perClass = new ArrayList<>();
                        for (int r = 0; r < results.get(v).size(); r++)
                        {
                            perClass.add(classMean(results.get(v).get(r), c) /
                                classMean(results.get(reference).get(r), c));
                        }
                        ratios.put("rtt_mean " + names.get(v).name() + "/" + counterpart.name() + " " +
                            bracket(RrPlacement.CLASSES.get(c)), completeRounds(perClass));
                    }
                }
            }
        }
        return new ScenarioResult(SCENARIO, setup, results.getFirst().size(), variants, ratios,
            targets(variants, ratios));
    }

    /** {@code [rx-near+hash-far]}: what a figure or ratio of one placement class is suffixed with. */
    static String bracket(final RrPlacement.Placement placement)
    {
        return "[" + placement.label() + "]";
    }

    /** The mean RTT, ns, of class {@code c}'s flows in a complete round; NaN if it had none or is incomplete. */
    private static double classMean(final RrRound.Result result, final int c)
    {
        final Histogram rtt = result.placed().get(c).rtt();
        return result.complete() && rtt.getTotalCount() > 0 ? rtt.getMean() : Double.NaN;
    }

    private static ScenarioResult.Variant figures(final String name, final List<RrRound.Result> rounds)
    {
        final Map<String, List<Double>> values = new LinkedHashMap<>();
        final Histogram merged = new Histogram(3);
        for (final RrRound.Result result : rounds)
        {
            final Histogram rtt = result.rtt();
            final RrTally tally = result.tally();
            final boolean complete = result.complete();
            if (complete)
            {
                merged.add(rtt);
            }
            add(values, "transactions_per_s", result.transactionsPerSecond());
            add(values, "rtt_mean_us", complete ? rtt.getMean() / 1000 : Double.NaN);
            add(values, "rtt_p50_us", complete ? rtt.getValueAtPercentile(50) / 1000.0 : Double.NaN);
            add(values, "rtt_p90_us", complete ? rtt.getValueAtPercentile(90) / 1000.0 : Double.NaN);
            add(values, "rtt_p99_us", complete ? rtt.getValueAtPercentile(99) / 1000.0 : Double.NaN);
            add(values, "rtt_p99_9_us", complete ? rtt.getValueAtPercentile(99.9) / 1000.0 : Double.NaN);
            add(values, "rtt_max_us", complete ? rtt.getMaxValue() / 1000.0 : Double.NaN);
            add(values, "hops_per_transaction", tally.hopsPerTransaction());
            add(values, "request_tx_hops", tally.perTransaction(tally.requestTxHops()));
            add(values, "request_rx_hops", tally.perTransaction(tally.requestRxHops()));
            add(values, "reply_tx_hops", tally.perTransaction(tally.replyTxHops()));
            add(values, "reply_rx_hops", tally.perTransaction(tally.replyRxHops()));
            add(values, "cross_cpu_share", tally.perTransaction(tally.crossCpu()));
            add(values, "interrupts_per_transaction", tally.perTransaction(result.interrupts()));
            add(values, "cpu_share_xmit", result.cpu().xmit());
            add(values, "cpu_share_busiest", result.cpu().busiest());
            result.cpu().roles().forEach((role, share) -> add(values, "cpu_share_" + role, share));
            add(values, "cpu_us_per_transaction", tally.perTransaction(result.cpu().nanos()) / 1000);
            add(values, "sends_refused", tally.refused());
            add(values, "transactions_lost", tally.lost());
            add(values, "late_replies", tally.late());
            add(values, "flows_stalled", result.stalled());
            add(values, "datagrams_dropped", result.dropped());
            for (final RrRound.Placed placed : result.placed())
            {
                final String suffix = " " + bracket(placed.placement());
                final Histogram classRtt = placed.rtt();
                final boolean measured = complete && classRtt.getTotalCount() > 0;
                add(values, "flows" + suffix, placed.flows());
                add(values, "hops_per_transaction" + suffix,
                    placed.flows() > 0 ? placed.tally().hopsPerTransaction() : Double.NaN);
                add(values, "rtt_mean_us" + suffix, measured ? classRtt.getMean() / 1000 : Double.NaN);
                add(values, "rtt_p50_us" + suffix, measured ? classRtt.getValueAtPercentile(50) / 1000.0 : Double.NaN);
                add(values, "rtt_p99_us" + suffix, measured ? classRtt.getValueAtPercentile(99) / 1000.0 : Double.NaN);
            }
        }
        final Map<String, Stat> figures = new LinkedHashMap<>();
        values.forEach((figure, perRound) -> figures.put(figure, completeRounds(perRound)));
        final List<double[]> curve = new ArrayList<>();
        for (final double percentile : CURVE_PERCENTILES)
        {
            curve.add(new double[] {percentile, 0 == merged.getTotalCount() ? Double.NaN :
                merged.getValueAtPercentile(percentile) / 1000.0});
        }
        return new ScenarioResult.Variant(name, figures, curve);
    }

    /**
     * The targets, all about busy polling: each busy-polling variant's RTT p50 and p99 in each placement class
     * (the worst class of the worst variant is held against the bound: every class must meet it), and xps-rxqs against
     * hash under busy polling over all classes, which are measured equally (the per-class ratios are in the ratios).
     * Without busy-polling variants they are not measured, and say so; nor are they if a busy-polling variant has a
     * class with no round without lost transactions (its figure is NaN, and so is the worst).
     */
    static List<Target> targets(final List<ScenarioResult.Variant> variants, final Map<String, Stat> ratios)
    {
        final List<ScenarioResult.Variant> busy = variants.stream()
            .filter(variant -> List.of(variant.name().split("\\" + RrVariant.JOIN)).contains(BUSY_POLLING)).toList();
        final List<Target> targets = new ArrayList<>();
        for (final String figure : List.of("rtt_p50_us", "rtt_p99_us"))
        {
            final String name = figure + " " + BUSY_POLLING + " (worst XPS mode and placement class)";
            final double bound = "rtt_p50_us".equals(figure) ? P50_TARGET_US : P99_TARGET_US;
            targets.add(busy.isEmpty() ? Target.notMeasured(name, false, bound) : new Target(name, false, bound,
                busy.stream().flatMap(variant -> RrPlacement.CLASSES.stream()
                        .map(placement -> variant.figures().get(figure + " " + bracket(placement)).median()))
                    .mapToDouble(Double::doubleValue).max().orElseThrow()));
        }
        final String rxqs = "rtt_mean xps-rxqs" + RrVariant.JOIN + BUSY_POLLING + "/" + REFERENCE + RrVariant.JOIN +
            BUSY_POLLING;
        targets.add(ratios.containsKey(rxqs) ? new Target(rxqs, false, RXQS_TARGET, ratios.get(rxqs).median()) :
            Target.notMeasured(rxqs, false, RXQS_TARGET));
        return targets;
    }

    /**
     * A figure over the rounds that have it: a round that lost transactions has NaN for its RTT figures (kept in the
     * rounds, so that the JSON shows which), and the median, min and max are of the others; NaN if none has it.
     */
    static Stat completeRounds(final List<Double> perRound)
    {
        final List<Double> measured = perRound.stream().filter(Double::isFinite).toList();
        if (measured.isEmpty())
        {
            return new Stat(Double.NaN, Double.NaN, Double.NaN, perRound);
        }
        final Stat stat = Stat.of(measured);
        return new Stat(stat.median(), stat.min(), stat.max(), perRound);
    }

    private static void add(final Map<String, List<Double>> values, final String figure, final double value)
    {
        values.computeIfAbsent(figure, key -> new ArrayList<>()).add(value);
    }
}
