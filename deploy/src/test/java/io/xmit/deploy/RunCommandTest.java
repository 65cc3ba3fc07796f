package io.xmit.deploy;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandTest
{
    private record Result(int code, String out, String err)
    {
    }

    private static Result xmit(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static long figure(final String out, final String label)
    {
        final Matcher matcher = Pattern.compile(Pattern.quote(label) + "\\s+([0-9,]+)").matcher(out);
        assertTrue(matcher.find(), () -> "no '" + label + "' in:\n" + out);
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    @Test
    void runsTheScenarioAndEndsWithASummary()
    {
        final Result result = xmit("run", "--duration", "2", "--rate", "2000", "--flows", "16");
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        assertEquals(2, result.out().lines().filter(line -> line.startsWith("[")).count(), result.out());
        final long requests = figure(result.out(), "requests sent");
        final long replies = figure(result.out(), "replies received");
        assertTrue(requests > 0 && replies > 0 && replies <= requests, result.out());
        assertEquals(0, figure(result.out(), "drops (all reasons)"), result.out());
        for (int q = 0; q < 4; q++)
        {
            // XPS by RX queue: every reply leaves on the TX queue of the RX queue its request came in on.
            final Matcher matcher = Pattern.compile("port A tx queue " + q + "\\s+([0-9,]+) packets \\(rx queue " + q +
                " delivered ([0-9,]+)\\)").matcher(result.out());
            assertTrue(matcher.find(), result.out());
        }
    }

    @Test
    void badOptionsAreUsageErrors()
    {
        assertEquals(Main.EXIT_USAGE, xmit("run", "--xps", "sideways").code());
        assertTrue(xmit("run", "--xps", "sideways").err().contains("--xps = 'sideways' is not an XPS preset"));
        assertEquals(Main.EXIT_USAGE, xmit("run", "--duration", "0").code());
        assertEquals(Main.EXIT_USAGE, xmit("run", "--frobnicate").code());
    }
}
