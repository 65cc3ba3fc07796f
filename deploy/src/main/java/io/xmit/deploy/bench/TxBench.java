package io.xmit.deploy.bench;

import io.xmit.deploy.LiveOutput;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@code tx} scenario: 64-byte UDP frames from two CPUs to the {@code null} device through each variant,
 * compared in one process because throughput on these machines drifts and is sometimes bimodal between runs. After
 * one warm-up round, every round runs each variant once in the same order (A B C … A B C …); per variant the report
 * gives the median Mpps with min and max, the median bytes allocated per packet, and the medians of the per-round
 * ratios of {@code xmit} to each other variant.
 * <p>
 * Each variant is started, left to settle, measured for one window and closed within its round, so only one
 * variant's threads exist at a time and none competes with another for the two cores.
 */
public final class TxBench
{
    public static final String SCENARIO = "tx";
    /** The same bench with tracing configured: the cost of a filter that matches nothing, and of 1 in 1,000. */
    public static final String TRACE_SCENARIO = "trace";
    public static final String REFERENCE = XmitTxVariant.NAME;

    /** Every variant, by name, in the order each round runs them. */
    public static final Map<String, Supplier<TxVariant>> VARIANTS = new LinkedHashMap<>();

    static
    {
        VARIANTS.put(XmitTxVariant.NAME, XmitTxVariant::xmit);
        VARIANTS.put(XmitTxVariant.SENDER_BYPASS_NAME, XmitTxVariant::senderBypass);
        VARIANTS.put(XmitTxVariant.NO_BYPASS_NAME, XmitTxVariant::noBypass);
        VARIANTS.put(XmitTxVariant.BULK_1_NAME, XmitTxVariant::bulkOne);
        VARIANTS.put(LockedQdiscVariant.NAME, LockedQdiscVariant::new);
        VARIANTS.put(NaivePipeline.NAME, NaivePipeline::new);
        VARIANTS.put(AeronRawVariant.NAME, AeronRawVariant::new);
        VARIANTS.put(XmitTxVariant.TRACE_MISS_NAME, XmitTxVariant::traceMiss);
        VARIANTS.put(XmitTxVariant.TRACE_1K_NAME, XmitTxVariant::traceOneInThousand);
    }

    /** The tx scenario's variants. */
    public static final List<String> TX_VARIANTS = List.of(XmitTxVariant.NAME, XmitTxVariant.SENDER_BYPASS_NAME,
        XmitTxVariant.NO_BYPASS_NAME, XmitTxVariant.BULK_1_NAME, LockedQdiscVariant.NAME, NaivePipeline.NAME,
        AeronRawVariant.NAME);
    /** The trace scenario's variants. */
    public static final List<String> TRACE_VARIANTS = List.of(XmitTxVariant.NAME, XmitTxVariant.TRACE_MISS_NAME,
        XmitTxVariant.TRACE_1K_NAME);

    private static final long MAX_SETTLE_MILLIS = 500;

    /**
     * @param rounds   measured rounds after the warm-up round.
     * @param millis   the measured window per variant and round.
     * @param variants names from {@link #VARIANTS}; ratios are taken to {@link #REFERENCE} if it is among them.
     */
    public record Options(int rounds, long millis, List<String> variants)
    {
        public static final Options FULL = new Options(5, 2_000, TX_VARIANTS);
        public static final Options QUICK = new Options(3, 300, TX_VARIANTS);

        public Options
        {
            if (rounds < 1)
            {
                throw new IllegalArgumentException("rounds " + rounds + " is not >= 1");
            }
            if (millis < 1)
            {
                throw new IllegalArgumentException("millis " + millis + " is not >= 1");
            }
            if (variants.isEmpty())
            {
                throw new IllegalArgumentException("no variants");
            }
            for (final String name : variants)
            {
                if (!VARIANTS.containsKey(name))
                {
                    throw new IllegalArgumentException("tx variant '" + name + "' is unknown; known: " +
                        String.join(",", VARIANTS.keySet()));
                }
            }
            variants = List.copyOf(variants);
        }

        /** The full run's length in seconds, roughly: settle, window and a start and stop per variant and round. */
        public long estimatedSeconds()
        {
            return (rounds + 1) * variants.size() * (millis + settleMillis(millis) + 400) / 1000;
        }
    }

    private TxBench()
    {
    }

    /**
     * Runs the warm-up and measured rounds of {@code scenario} ({@link #SCENARIO} or {@link #TRACE_SCENARIO}),
     * showing each variant's round as the progress line (redrawn on a terminal, a line each when piped); returns
     * the figures.
     */
    public static ScenarioResult run(final String scenario, final Options options, final LiveOutput out)
    {
        final List<String> names = options.variants();
        final long windowNanos = TimeUnit.MILLISECONDS.toNanos(options.millis());
        final long settleMillis = settleMillis(options.millis());
        out.println(String.format(Locale.ROOT, "%s: %s; 1 warm-up and %d measured rounds of %d ms, %d ms settle " +
            "per start", scenario, String.join(", ", names), options.rounds(), options.millis(), settleMillis));
        final int runs = (options.rounds() + 1) * names.size();

        final List<List<TxVariant.Result>> results = new ArrayList<>();
        for (int v = 0; v < names.size(); v++)
        {
            results.add(new ArrayList<>());
        }
        for (int round = 0; round <= options.rounds(); round++)
        {
            final String label = 0 == round ? "warm-up" : "round " + round;
            for (int v = 0; v < names.size(); v++)
            {
                final String[] detail = new String[1];
                final TxVariant.Result result = measureOnce(names.get(v), settleMillis, windowNanos, detail);
                out.status(List.of(String.format(Locale.ROOT, "  %d/%d %-8s %-13s %8.3f Mpps %8.1f B/packet",
                    round * names.size() + v + 1, runs, label, names.get(v), result.mpps(), result.bytesPerPacket()),
                    detail[0]));
                if (round > 0)
                {
                    results.get(v).add(result);
                }
            }
        }
        out.finish();
        return summarise(scenario, names, results, String.format(Locale.ROOT,
            "64-byte UDP frames from 2 CPUs to null:tx=2; %d rounds of %d ms after 1 warm-up round",
            options.rounds(), options.millis()));
    }

    /** The figures of each variant, the ratios of the reference to each other variant, and the targets. */
    static ScenarioResult summarise(final String scenario, final List<String> names,
        final List<List<TxVariant.Result>> results, final String setup)
    {
        final int reference = Math.max(0, names.indexOf(REFERENCE));
        final List<ScenarioResult.Variant> variants = new ArrayList<>();
        final Map<String, Stat> ratios = new LinkedHashMap<>();
        for (int v = 0; v < names.size(); v++)
        {
            final List<TxVariant.Result> rounds = results.get(v);
            final List<Double> mpps = new ArrayList<>();
            final List<Double> bytes = new ArrayList<>();
            final List<Double> toReference = new ArrayList<>();
            final List<Double> referenceTo = new ArrayList<>();
            for (int r = 0; r < rounds.size(); r++)
            {
                final double own = rounds.get(r).mpps();
                final double ref = results.get(reference).get(r).mpps();
                mpps.add(own);
                bytes.add(rounds.get(r).bytesPerPacket());
                toReference.add(own / ref);
                referenceTo.add(ref / own);
            }
            final Map<String, Stat> figures = new LinkedHashMap<>();
            figures.put("mpps", Stat.of(mpps));
            figures.put("bytes_per_packet", Stat.of(bytes));
            figures.put("ratio_to_" + names.get(reference), Stat.of(toReference));
            variants.add(new ScenarioResult.Variant(names.get(v), figures, List.of()));
            if (v != reference)
            {
                ratios.put(names.get(reference) + "/" + names.get(v), Stat.of(referenceTo));
            }
        }
        final List<Target> targets = new ArrayList<>();
        if (REFERENCE.equals(names.get(reference)))
        {
            target(targets, ratios, NaivePipeline.NAME, 5.0);
            target(targets, ratios, AeronRawVariant.NAME, 0.5);
            target(targets, ratios, XmitTxVariant.BULK_1_NAME, 1.2);
            target(targets, ratios, LockedQdiscVariant.NAME, 1.2);
            // Tracing's budget: within 2 % of untraced with a filter that matches nothing, at most 5 % at 1 in 1,000.
            targetAtMost(targets, ratios, XmitTxVariant.TRACE_MISS_NAME, 1 / 0.98);
            targetAtMost(targets, ratios, XmitTxVariant.TRACE_1K_NAME, 1 / 0.95);
            targets.add(new Target(REFERENCE + " bytes_per_packet", false, 0,
                variants.get(reference).figures().get("bytes_per_packet").median()));
        }
        // The bypass in the sender's context removes the ring hop that separates xmit from bare Aeron IPC (issue 17).
        final int senderBypass = names.indexOf(XmitTxVariant.SENDER_BYPASS_NAME);
        final int aeron = names.indexOf(AeronRawVariant.NAME);
        if (senderBypass >= 0 && aeron >= 0)
        {
            final String ratio = XmitTxVariant.SENDER_BYPASS_NAME + "/" + AeronRawVariant.NAME;
            ratios.put(ratio, roundRatios(results.get(senderBypass), results.get(aeron)));
            targets.add(new Target(ratio, true, 0.8, ratios.get(ratio).median()));
            targets.add(new Target(XmitTxVariant.SENDER_BYPASS_NAME + " bytes_per_packet", false, 0,
                variants.get(senderBypass).figures().get("bytes_per_packet").median()));
        }
        return new ScenarioResult(scenario, setup, results.get(reference).size(), variants, ratios, targets);
    }

    /** The per-round ratios of {@code a}'s Mpps to {@code b}'s. */
    private static Stat roundRatios(final List<TxVariant.Result> a, final List<TxVariant.Result> b)
    {
        final List<Double> ratios = new ArrayList<>();
        for (int r = 0; r < a.size(); r++)
        {
            ratios.add(a.get(r).mpps() / b.get(r).mpps());
        }
        return Stat.of(ratios);
    }

    private static void target(
        final List<Target> targets, final Map<String, Stat> ratios, final String variant, final double bound)
    {
        final String ratio = REFERENCE + "/" + variant;
        if (ratios.containsKey(ratio))
        {
            targets.add(new Target(ratio, true, bound, ratios.get(ratio).median()));
        }
    }

    private static void targetAtMost(
        final List<Target> targets, final Map<String, Stat> ratios, final String variant, final double bound)
    {
        final String ratio = REFERENCE + "/" + variant;
        if (ratios.containsKey(ratio))
        {
            targets.add(new Target(ratio, false, bound, ratios.get(ratio).median()));
        }
    }

    private static long settleMillis(final long windowMillis)
    {
        return Math.min(MAX_SETTLE_MILLIS, windowMillis / 4);
    }

    /** @param detail receives the variant's {@link TxVariant#detail()} of the window, in slot 0. */
    private static TxVariant.Result measureOnce(
        final String name, final long settleMillis, final long nanos, final String[] detail)
    {
        try (TxVariant variant = VARIANTS.get(name).get())
        {
            variant.start();
            sleep(settleMillis);
            final TxVariant.Result result = variant.runFor(nanos);
            detail[0] = variant.detail();
            return result;
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a variant settled", ex);
        }
    }
}
