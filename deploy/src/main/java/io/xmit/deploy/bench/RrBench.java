package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.xmit.actors.XpsPreset;
import io.xmit.deploy.LiveOutput;
import io.xmit.deploy.Units;
import org.HdrHistogram.Histogram;

/**
 * The {@code rr} scenario, the symmetric-queues experiment: request/response over the {@code loop} device at a fixed
 * offered load ({@link RrRound}), with TX queues picked by the flow hash ({@code hash}), by the sending CPU
 * ({@code xps-cpus}) or by the RX queue the socket's traffic arrives on ({@code xps-rxqs}). After one warm-up round,
 * every round runs each variant once in the same order, each on a fresh pipeline; per variant the report gives the
 * RTT mean and percentiles (the median over rounds, with min and max), the share of replies sent from another CPU
 * than the request arrived on, and the per-round ratio of each variant's mean RTT to {@code hash}'s.
 */
public final class RrBench
{
    public static final String SCENARIO = "rr";
    public static final String REFERENCE = "hash";

    /** Every variant, by name, in the order each round runs them. */
    public static final Map<String, XpsPreset> VARIANTS = new LinkedHashMap<>();

    static
    {
        VARIANTS.put(REFERENCE, XpsPreset.NONE);
        VARIANTS.put("xps-cpus", XpsPreset.CPUS);
        VARIANTS.put("xps-rxqs", XpsPreset.RXQS);
    }

    /** The points of each variant's RTT curve in the report. */
    static final double[] CURVE_PERCENTILES = {1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};

    /**
     * @param rounds      measured rounds after the warm-up round.
     * @param warmMillis  load offered after each start before the window opens.
     * @param millis      the measured window per variant and round.
     * @param rate        requests per second offered.
     * @param flows       client flows, each a connected socket answered by one of its own.
     */
    public record Options(int rounds, long warmMillis, long millis, int rate, int flows)
    {
        public static final Options FULL = new Options(5, 1_000, 3_000, 20_000, 64);
        public static final Options QUICK = new Options(2, 200, 800, 20_000, 64);

        public Options
        {
            if (rounds < 1 || warmMillis < 0 || millis < 1 || rate < 1 || flows < 1)
            {
                throw new IllegalArgumentException("rr options out of range: " + rounds + " rounds, " + warmMillis +
                    " ms warm, " + millis + " ms, " + rate + " req/s, " + flows + " flows");
            }
        }

        /** The run's length in seconds, roughly: warm-up, window and a start and stop per variant and round. */
        public long estimatedSeconds()
        {
            return (rounds + 1) * VARIANTS.size() * (warmMillis + millis + 700) / 1000;
        }
    }

    private RrBench()
    {
    }

    /**
     * Runs the warm-up and measured rounds, showing each variant's round as the progress line (redrawn on a
     * terminal, a line each when piped); returns the figures.
     */
    public static ScenarioResult run(final Options options, final LiveOutput out)
    {
        final List<String> names = List.copyOf(VARIANTS.keySet());
        out.println(String.format(Locale.ROOT, "rr: %s; %,d requests/s over %d flows; 1 warm-up and %d measured " +
            "rounds of %d ms after %d ms of load", String.join(", ", names), options.rate(), options.flows(),
            options.rounds(), options.millis(), options.warmMillis()));
        final int runs = (options.rounds() + 1) * names.size();
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < names.size(); v++)
        {
            results.add(new ArrayList<>());
        }
        for (int round = 0; round <= options.rounds(); round++)
        {
            final String label = 0 == round ? "warm-up" : "round " + round;
            for (int v = 0; v < names.size(); v++)
            {
                final RrRound.Result result = new RrRound(names.get(v), VARIANTS.get(names.get(v)), options.rate(),
                    options.flows()).run(TimeUnit.MILLISECONDS.toNanos(options.warmMillis()),
                    TimeUnit.MILLISECONDS.toNanos(options.millis()));
                final Histogram rtt = result.rtt();
                out.status(List.of(String.format(Locale.ROOT, "  %d/%d %-8s %-9s %,8d replies  RTT mean %s p50 %s " +
                    "p99 %s", round * names.size() + v + 1, runs, label, names.get(v), rtt.getTotalCount(),
                    Units.nanos(rtt.getMean()), Units.nanos(rtt.getValueAtPercentile(50)),
                    Units.nanos(rtt.getValueAtPercentile(99))), "max " + Units.nanos(rtt.getMaxValue()),
                    String.format(Locale.ROOT, "cross-CPU %.1f%%", 100 * result.crossCpuShare()),
                    String.format(Locale.ROOT, "back-pressured %,d", result.backPressured())));
                if (round > 0)
                {
                    results.get(v).add(result);
                }
            }
        }
        out.finish();
        return summarise(names, results, String.format(Locale.ROOT,
            "request/response over %s, 2 CPUs, %,d requests/s over %d flows; %d rounds of %d ms after 1 warm-up " +
            "round", RrRound.DEVICE, options.rate(), options.flows(), options.rounds(), options.millis()));
    }

    static ScenarioResult summarise(final List<String> names, final List<List<RrRound.Result>> results,
        final String setup)
    {
        final int reference = Math.max(0, names.indexOf(REFERENCE));
        final List<ScenarioResult.Variant> variants = new ArrayList<>();
        final Map<String, Stat> ratios = new LinkedHashMap<>();
        for (int v = 0; v < names.size(); v++)
        {
            final Map<String, List<Double>> rounds = new LinkedHashMap<>();
            final List<Double> toReference = new ArrayList<>();
            final Histogram merged = new Histogram(3);
            for (int r = 0; r < results.get(v).size(); r++)
            {
                final RrRound.Result result = results.get(v).get(r);
                final Histogram rtt = result.rtt();
                merged.add(rtt);
                add(rounds, "rtt_mean_us", rtt.getMean() / 1000);
                add(rounds, "rtt_p50_us", rtt.getValueAtPercentile(50) / 1000.0);
                add(rounds, "rtt_p90_us", rtt.getValueAtPercentile(90) / 1000.0);
                add(rounds, "rtt_p99_us", rtt.getValueAtPercentile(99) / 1000.0);
                add(rounds, "rtt_p99_9_us", rtt.getValueAtPercentile(99.9) / 1000.0);
                add(rounds, "rtt_max_us", rtt.getMaxValue() / 1000.0);
                add(rounds, "cross_cpu_share", result.crossCpuShare());
                add(rounds, "sends_back_pressured", result.backPressured());
                add(rounds, "replies_per_s", rtt.getTotalCount() * 1e9 / result.nanos());
                toReference.add(rtt.getMean() / results.get(reference).get(r).rtt().getMean());
            }
            final Map<String, Stat> figures = new LinkedHashMap<>();
            rounds.forEach((figure, values) -> figures.put(figure, Stat.of(values)));
            final List<double[]> curve = new ArrayList<>();
            for (final double percentile : CURVE_PERCENTILES)
            {
                curve.add(new double[] {percentile, merged.getValueAtPercentile(percentile) / 1000.0});
            }
            variants.add(new ScenarioResult.Variant(names.get(v), figures, curve));
            if (v != reference)
            {
                ratios.put("rtt_mean " + names.get(v) + "/" + names.get(reference), Stat.of(toReference));
            }
        }
        final List<Target> targets = new ArrayList<>();
        final String rxqs = "rtt_mean xps-rxqs/" + REFERENCE;
        if (ratios.containsKey(rxqs))
        {
            targets.add(new Target(rxqs, false, 0.7, ratios.get(rxqs).median()));
        }
        return new ScenarioResult(SCENARIO, setup, results.get(reference).size(), variants, ratios, targets);
    }

    private static void add(final Map<String, List<Double>> rounds, final String figure, final double value)
    {
        rounds.computeIfAbsent(figure, key -> new ArrayList<>()).add(value);
    }
}
