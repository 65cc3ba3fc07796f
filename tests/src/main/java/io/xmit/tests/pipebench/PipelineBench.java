package io.xmit.tests.pipebench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Compares pipeline variants in one process, because throughput on these machines drifts and is sometimes bimodal
 * between runs: after one warm-up round, R rounds each run every variant once in the given order, and the report
 * gives per variant the median, min and max Mpps, the median bytes allocated per packet, and the median of the
 * per-round throughput ratios to the first variant.
 * <p>
 * Each variant is started, left to settle, measured for one window and closed within its round, so only one
 * variant's threads exist at a time and none competes with another for the two cores.
 * <pre>
 *   PipelineBench [--rounds 5] [--millis 2000] [--variants akka-naive,driver-raw]
 * </pre>
 */
public final class PipelineBench
{
    /** Every variant the bench knows, by name; the default list runs them in this order. */
    static final Map<String, Supplier<PipelineVariant>> VARIANTS = new LinkedHashMap<>();

    static
    {
        VARIANTS.put(XmitPipelineVariant.NAME, XmitPipelineVariant::new);
        VARIANTS.put(NaivePipeline.NAME, NaivePipeline::new);
        VARIANTS.put(NaivePipeline.CROSS_CPU_NAME, NaivePipeline::crossCpu);
        VARIANTS.put(RawDriverVariant.NAME, RawDriverVariant::new);
    }

    private static final long MAX_SETTLE_MILLIS = 500;

    /**
     * @param rounds   measured rounds after the warm-up round.
     * @param millis   the measured window per variant and round.
     * @param variants names from {@link #VARIANTS}; the first is the reference of the ratios.
     */
    record Options(int rounds, long millis, List<String> variants)
    {
        Options
        {
            if (rounds < 1)
            {
                throw new IllegalArgumentException("--rounds " + rounds + " is not >= 1");
            }
            if (millis < 1)
            {
                throw new IllegalArgumentException("--millis " + millis + " is not >= 1");
            }
            if (variants.isEmpty())
            {
                throw new IllegalArgumentException("--variants is empty");
            }
            for (final String name : variants)
            {
                if (!VARIANTS.containsKey(name))
                {
                    throw new IllegalArgumentException("variant '" + name + "' is unknown; known: " +
                        String.join(",", VARIANTS.keySet()));
                }
            }
            variants = List.copyOf(variants);
        }

        static Options parse(final String... args)
        {
            int rounds = 5;
            long millis = 2_000;
            List<String> variants = List.copyOf(VARIANTS.keySet());
            for (int i = 0; i < args.length; i += 2)
            {
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                final String value = args[i + 1];
                switch (args[i])
                {
                    case "--rounds" -> rounds = Integer.parseInt(value);
                    case "--millis" -> millis = Long.parseLong(value);
                    case "--variants" -> variants = Arrays.asList(value.split(","));
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] +
                        "'; usage: [--rounds N] [--millis T] [--variants a,b,c]");
                }
            }
            return new Options(rounds, millis, variants);
        }
    }

    /**
     * One variant's summary.
     *
     * @param ratioToReference median over rounds of this variant's Mpps divided by the reference's, same round.
     */
    record Summary(
        String name, double medianMpps, double minMpps, double maxMpps, double medianBytesPerPacket,
        double ratioToReference)
    {
    }

    private PipelineBench()
    {
    }

    public static void main(final String[] args)
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("PipelineBench: " + ex.getMessage());
            System.exit(2);
            return;
        }
        run(options, System.out);
    }

    /** Runs the warm-up and measured rounds, prints each window and the summary, and returns the summary. */
    static List<Summary> run(final Options options, final PrintStream out)
    {
        final List<String> names = options.variants();
        final long windowNanos = TimeUnit.MILLISECONDS.toNanos(options.millis());
        final long settleMillis = Math.min(MAX_SETTLE_MILLIS, options.millis() / 4);
        out.printf(Locale.ROOT, "variants %s, %d rounds of %d ms after 1 warm-up round, %d ms settle per start%n",
            String.join(",", names), options.rounds(), options.millis(), settleMillis);

        final List<List<PipelineVariant.Result>> results = new ArrayList<>();
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
                final PipelineVariant.Result result = measureOnce(names.get(v), settleMillis, windowNanos, detail);
                out.printf(Locale.ROOT, "%-8s %-15s %8.3f Mpps %8.1f B/packet  %s%n", label, names.get(v),
                    result.mpps(), result.bytesPerPacket(), detail[0]);
                if (round > 0)
                {
                    results.get(v).add(result);
                }
            }
        }

        final List<Summary> summaries = summarise(names, results);
        out.printf(Locale.ROOT, "%n%-15s %10s %10s %10s %10s %10s%n", "variant", "median", "min", "max", "B/packet",
            "x " + names.getFirst());
        for (final Summary s : summaries)
        {
            out.printf(Locale.ROOT, "%-15s %10.3f %10.3f %10.3f %10.1f %10.2f%n", s.name(), s.medianMpps(),
                s.minMpps(), s.maxMpps(), s.medianBytesPerPacket(), s.ratioToReference());
        }
        out.println("(Mpps: millions of packets per second that reached the driver)");
        return summaries;
    }

    /** @param detail receives the variant's {@link PipelineVariant#detail()} of the window, in slot 0. */
    private static PipelineVariant.Result measureOnce(
        final String name, final long settleMillis, final long nanos, final String[] detail)
    {
        try (PipelineVariant variant = VARIANTS.get(name).get())
        {
            variant.start();
            sleep(settleMillis);
            final PipelineVariant.Result result = variant.runFor(nanos);
            detail[0] = variant.detail();
            return result;
        }
    }

    static List<Summary> summarise(final List<String> names, final List<List<PipelineVariant.Result>> results)
    {
        final List<PipelineVariant.Result> reference = results.getFirst();
        final List<Summary> summaries = new ArrayList<>();
        for (int v = 0; v < names.size(); v++)
        {
            final List<PipelineVariant.Result> rounds = results.get(v);
            final List<Double> mpps = new ArrayList<>();
            final List<Double> bytes = new ArrayList<>();
            final List<Double> ratios = new ArrayList<>();
            for (int r = 0; r < rounds.size(); r++)
            {
                mpps.add(rounds.get(r).mpps());
                bytes.add(rounds.get(r).bytesPerPacket());
                ratios.add(rounds.get(r).mpps() / reference.get(r).mpps());
            }
            summaries.add(new Summary(names.get(v), median(mpps), Collections.min(mpps), Collections.max(mpps),
                median(bytes), median(ratios)));
        }
        return summaries;
    }

    static double median(final List<Double> values)
    {
        final List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        final int middle = sorted.size() / 2;
        return 0 == sorted.size() % 2 ? (sorted.get(middle - 1) + sorted.get(middle)) / 2 : sorted.get(middle);
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
