package io.xmit.tests.pipebench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Argument parsing, the summary arithmetic, and one tiny end-to-end run. */
class PipelineBenchTest
{
    @Test
    void defaultsToFiveRoundsOfTwoSecondsOverEveryRegisteredVariant()
    {
        final PipelineBench.Options options = PipelineBench.Options.parse();
        assertEquals(5, options.rounds());
        assertEquals(2_000, options.millis());
        assertEquals(List.copyOf(PipelineBench.VARIANTS.keySet()), options.variants());
    }

    @Test
    void parsesRoundsMillisAndVariantsInTheGivenOrder()
    {
        final PipelineBench.Options options =
            PipelineBench.Options.parse("--variants", "driver-raw,akka-naive", "--rounds", "3", "--millis", "100");
        assertEquals(3, options.rounds());
        assertEquals(100, options.millis());
        assertEquals(List.of("driver-raw", "akka-naive"), options.variants());
    }

    @Test
    void rejectsUnknownVariantsAndOptions()
    {
        assertThrows(IllegalArgumentException.class, () -> PipelineBench.Options.parse("--variants", "nope"));
        assertThrows(IllegalArgumentException.class, () -> PipelineBench.Options.parse("--speed", "1"));
        assertThrows(IllegalArgumentException.class, () -> PipelineBench.Options.parse("--rounds"));
    }

    @Test
    void ratiosAreMediansOfPerRoundRatiosToTheFirstVariant()
    {
        final long second = 1_000_000_000L;
        final List<List<PipelineVariant.Result>> results = List.of(
            List.of(result(1_000_000, second), result(2_000_000, second), result(4_000_000, second)),
            List.of(result(3_000_000, second), result(4_000_000, second), result(20_000_000, second)));

        final List<PipelineBench.Summary> summaries = PipelineBench.summarise(List.of("a", "b"), results);

        assertEquals(2.0, summaries.get(0).medianMpps());
        assertEquals(1.0, summaries.get(0).ratioToReference());
        assertEquals(4.0, summaries.get(1).medianMpps());
        assertEquals(3.0, summaries.get(1).minMpps());
        assertEquals(20.0, summaries.get(1).maxMpps());
        // Per round: 3, 2, 5; their median, not 4 / 2.
        assertEquals(3.0, summaries.get(1).ratioToReference());
    }

    @Test
    void runsEveryVariantAndPrintsASummaryLineForEach()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<PipelineBench.Summary> summaries;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8))
        {
            summaries = PipelineBench.run(PipelineBench.Options.parse("--rounds", "1", "--millis", "100"), out);
        }
        assertEquals(PipelineBench.VARIANTS.size(), summaries.size());
        for (final PipelineBench.Summary summary : summaries)
        {
            assertTrue(summary.medianMpps() > 0, summary.toString());
        }
        final String text = bytes.toString(StandardCharsets.UTF_8);
        for (final String name : PipelineBench.VARIANTS.keySet())
        {
            assertTrue(text.contains(name), text);
        }
    }

    private static PipelineVariant.Result result(final long packets, final long nanos)
    {
        return new PipelineVariant.Result(packets, nanos, 0);
    }
}
