package io.xmit.deploy;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunSummaryTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A 10 s run: a warm-up second with a 53 ms stall, then steady seconds of 2 to 6 ms. */
    private static RunSummary summary(final Histogram steady, final long warmup)
    {
        final Histogram whole = new Histogram(3);
        whole.add(steady);
        whole.recordValueWithCount(53 * MS, 20);
        return new RunSummary("xmit", "loop", 2, "cpus", 10.0, 1000, 4, "duration", 1000, 1000, 0, whole, steady,
            warmup, new long[][] {{500, 500}}, new long[][] {{500, 500}}, 0.5, 1.0, Map.of());
    }

    private static Histogram steadyMillis()
    {
        final Histogram steady = new Histogram(3);
        steady.recordValueWithCount(2 * MS, 970);
        steady.recordValueWithCount(6 * MS, 10);
        return steady;
    }

    private static List<String> printed(final RunSummary summary)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void theSummaryGivesTheSteadyStateAfterItsWarmUpBesideTheWholeRunInAdaptiveUnits()
    {
        final List<String> lines = printed(summary(steadyMillis(), 2));
        final int at = lines.indexOf("RTT p50 / p99 / p99.9 / max");
        assertTrue(at > 0, String.join("\n", lines));
        assertEquals("  steady (after 2 s)             2.0 ms / 6.0 ms / 6.0 ms / 6.0 ms", lines.get(at + 1));
        assertEquals("  whole run                      2.0 ms / 53 ms / 53 ms / 53 ms", lines.get(at + 2));
    }

    @Test
    void theJsonHoldsTheWarmUpAndBothRtts()
    {
        final String json = summary(steadyMillis(), 2).json();
        assertTrue(json.contains("\"warmup_seconds\":2,\"rtt_us\":{\"replies\":1000,\"p50\":2000.895,\"p99\":53018.623,"), json);
        assertTrue(json.contains("\"rtt_steady_us\":{\"replies\":980,\"p50\":2000.895,\"p99\":6000.639,"), json);
    }

    @Test
    void aRunTooShortForAWarmUpOrStoppedWithinItSaysSoInPlaceOfSteadyFigures()
    {
        assertEquals("  steady                         n/a: a run shorter than 5 s has no warm-up to leave out",
            printed(summary(new Histogram(3), 0)).stream().filter(line -> line.startsWith("  steady")).findFirst()
                .orElseThrow());
        assertEquals("  steady (after 2 s)             n/a: no replies after the warm-up",
            printed(summary(new Histogram(3), 2)).stream().filter(line -> line.startsWith("  steady")).findFirst()
                .orElseThrow());
    }

    @Test
    void theWarmUpIsTwoSecondsOrAFifthOfAShorterRunInWholeSeconds()
    {
        assertEquals(2, RunSummary.warmupSeconds(Duration.ofMinutes(1)));
        assertEquals(2, RunSummary.warmupSeconds(Duration.ofSeconds(10)));
        assertEquals(1, RunSummary.warmupSeconds(Duration.ofSeconds(9)));
        assertEquals(1, RunSummary.warmupSeconds(Duration.ofSeconds(5)));
        assertEquals(0, RunSummary.warmupSeconds(Duration.ofSeconds(4)));
    }

    @Test
    void theLoadsSteadyStateLeavesOutTheIntervalsOfTheWarmUp()
    {
        final RunScenario.Load load = new RunScenario.Load(1000, 1);
        load.replied(System.nanoTime() - 53 * MS);
        load.interval(false);
        load.replied(System.nanoTime());
        load.replied(System.nanoTime());
        load.interval(true);
        assertEquals(3, load.total().getTotalCount());
        assertEquals(2, load.steady().getTotalCount());
        assertTrue(load.total().getMaxValue() >= 53 * MS, () -> "the warm-up's reply: " + load.total().getMaxValue());
        assertTrue(load.steady().getMaxValue() < 53 * MS, () -> "no warm-up reply: " + load.steady().getMaxValue());
    }
}
