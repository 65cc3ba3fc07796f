package io.xmit.deploy;

import io.xmit.deploy.bench.ScenarioResult;
import io.xmit.deploy.bench.Stat;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchTableTest
{
    private static final List<String> FIGURES = List.of("rtt_mean_us", "rtt_p50_us", "rtt_p90_us", "rtt_p99_us",
        "rtt_p99_9_us", "rtt_max_us", "cross_cpu_share", "replies_per_s");

    /** An rr result: three variants of eight figures, the table the issue found ~220 columns wide. */
    private static ScenarioResult rr()
    {
        final List<ScenarioResult.Variant> variants = List.of(variant("hash"), variant("xps-cpus"),
            variant("xps-rxqs"));
        return new ScenarioResult("rr", "request/response over loop", 2, variants, Map.of(), List.of());
    }

    private static ScenarioResult.Variant variant(final String name)
    {
        final Map<String, Stat> figures = new LinkedHashMap<>();
        for (final String figure : FIGURES)
        {
            figures.put(figure, figure.endsWith("_us") ? new Stat(850, 812, 2_400, List.of()) : new Stat(20_000, 19_500,
                20_100, List.of()));
        }
        figures.put("rtt_max_us", new Stat(105_000, 104_000, 108_000, List.of()));
        return new ScenarioResult.Variant(name, figures, List.of());
    }

    private static List<String> printed(final Terminal terminal)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BenchCommand.print(rr(), new PrintStream(bytes, true, StandardCharsets.UTF_8), terminal);
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void onANarrowTerminalTheTableHasARowPerFigureWithinItsWidth()
    {
        final List<String> lines = printed(new Terminal(true, 100));
        final int header = lines.indexOf(lines.stream().filter(line -> line.startsWith("variant")).findFirst()
            .orElseThrow());
        assertEquals("variant                            hash                xps-cpus                xps-rxqs",
            lines.get(header).stripTrailing());
        assertEquals("rtt_p99_us       850 µs (812 µs–2.4 ms)  850 µs (812 µs–2.4 ms)  850 µs (812 µs–2.4 ms)",
            lines.get(header + 4));
        assertEquals(FIGURES.size() + 1, lines.size() - header);
        assertEquals("rtt_max_us             105 (104–108) ms        105 (104–108) ms        105 (104–108) ms",
            lines.get(header + 6), "one unit for the three that share it");
        assertTrue(lines.stream().skip(header).allMatch(line -> line.length() <= 100), String.join("\n", lines));
    }

    @Test
    void pipedTheTableHasARowPerVariantWithEveryFigure()
    {
        final List<String> lines = printed(Terminal.PIPED);
        final List<String> rows = lines.subList(lines.indexOf(lines.stream()
            .filter(line -> line.startsWith("variant")).findFirst().orElseThrow()), lines.size());
        assertEquals(4, rows.size(), String.join("\n", lines));
        assertTrue(rows.get(0).endsWith("rtt_max_us      cross_cpu_share        replies_per_s"), rows.get(0));
        assertTrue(rows.get(3).startsWith("xps-rxqs  850 µs (812 µs–2.4 ms)  850 µs"), rows.get(3));
        assertTrue(rows.get(3).length() > 100, rows.get(3));
    }

    /**
     * A variant none of whose rounds was complete has no RTT figures (NaN: rr records RTT only from complete rounds);
     * its cells read "n/a" and the table prints. The time cell's unit was read from the text of NaN, which has none,
     * and the whole summary failed with StringIndexOutOfBoundsException after the rounds had run.
     */
    @Test
    void aTimeNotMeasuredInAnyRoundReadsNotAvailable()
    {
        assertEquals("n/a (n/a–n/a)", BenchCommand.cell("rtt_p50_us", new Stat(Double.NaN, Double.NaN, Double.NaN,
            List.of())));
    }

    /** A round that measured no RTT (a stalled flow) made the median n/a, and printing the table failed on it. */
    @Test
    void aTimeThatIsNotANumberPrintsAsNotAvailable()
    {
        assertEquals("n/a (120 µs–n/a)", BenchCommand.cell("rtt_p50_us", new Stat(Double.NaN, 120, Double.NaN,
            List.of(120.0, Double.NaN))));
        assertEquals("1.5 (1.2–2.0) ms", BenchCommand.cell("rtt_p50_us", new Stat(1_500, 1_200, 2_000,
            List.of(1_200.0, 1_500.0, 2_000.0))));
    }
}
