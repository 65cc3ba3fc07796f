package io.xmit.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code xmit bench compare A.json B.json}: the exact table for two small files of one scenario, the same for
 * {@code all}'s files as {@code xmit bench --json} writes them, and a one-line error naming the file for files of
 * other scenarios or that are not bench JSON.
 */
class BenchCompareCommandTest
{
    private static final String A = """
        {"scenario":"tx","date":"2026-12-01T19:00:00Z","commit":"aaaaaaaaaaaa","cpu":"Xeon","cpus":2,
         "jdk":"25","command":"xmit bench tx --json a.json","setup":"s","rounds":2,
         "variants":[{"name":"xmit","mpps":{"median":10.000,"min":9.000,"max":11.000,"rounds":[9.000,11.000]},
                      "bytes_per_packet":{"median":0.000,"min":0.000,"max":0.000,"rounds":[0.000,0.000]}},
                     {"name":"akka-naive","mpps":{"median":5.000,"min":4.000,"max":6.000,"rounds":[4.000,6.000]},
                      "bytes_per_packet":{"median":256.000,"min":250.000,"max":262.000,"rounds":[250.000,262.000]}}],
         "ratios":{"xmit/akka-naive":{"median":2.000,"min":1.833,"max":2.250,"rounds":[2.250,1.833]}},
         "targets":[]}
        """;
    private static final String B = """
        {"scenario":"tx","date":"2026-12-01T20:00:00Z","commit":"bbbbbbbbbbbb","cpu":"Xeon","cpus":2,
         "jdk":"25","command":"xmit bench tx --json b.json","setup":"s","rounds":1,
         "variants":[{"name":"xmit","mpps":{"median":12.500,"min":12.500,"max":12.500,"rounds":[12.500]},
                      "bytes_per_packet":{"median":0.000,"min":0.000,"max":0.000,"rounds":[0.000]}},
                     {"name":"akka-naive","mpps":{"median":5.000,"min":5.000,"max":5.000,"rounds":[5.000]},
                      "bytes_per_packet":{"median":128.000,"min":128.000,"max":128.000,"rounds":[128.000]}}],
         "ratios":{"xmit/akka-naive":{"median":2.500,"min":2.500,"max":2.500,"rounds":[2.500]}},
         "targets":[]}
        """;

    @TempDir
    Path dir;

    @Test
    void printsEachFiguresMedianInAAndBAndBOverA() throws Exception
    {
        final RunCommandTest.Result result = xmit("bench", "compare", file("a.json", A), file("b.json", B));
        assertEquals(new RunCommandTest.Result(Main.EXIT_OK, String.join("\n",
            "A: " + dir.resolve("a.json") + ": commit aaaaaaaaaaaa, 2026-12-01T19:00:00Z, Xeon, xmit bench tx --json a.json",
            "B: " + dir.resolve("b.json") + ": commit bbbbbbbbbbbb, 2026-12-01T20:00:00Z, Xeon, xmit bench tx --json b.json",
            "",
            "tx",
            "variant       figure                              A          B     B/A",
            "xmit          mpps                             10.0       12.5    1.25",
            "xmit          bytes_per_packet                 0.00       0.00     n/a",
            "akka-naive    mpps                             5.00       5.00    1.00",
            "akka-naive    bytes_per_packet                  256        128    0.50",
            "ratio         xmit/akka-naive                  2.00       2.50    1.25",
            ""), ""), result);
    }

    @Test
    void comparesAllsFilesScenarioByScenario() throws Exception
    {
        final String all = "{\"commit\":\"cccccccccccc\",\"scenarios\":[" + A + "," + A.replace("\"tx\"", "\"rr\"") +
            "]}";
        final RunCommandTest.Result result = xmit("bench", "compare", file("a.json", all), file("b.json", all));
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        assertEquals(List.of("tx", "rr"), result.out().lines().filter(line -> line.matches("[a-z]+")).toList());
        assertEquals(10, result.out().lines().filter(line -> line.endsWith(" 1.00") || line.endsWith(" n/a")).count());
        assertEquals("A: " + dir.resolve("a.json") + ": commit cccccccccccc, 2026-12-01T19:00:00Z, Xeon, " +
            "xmit bench tx --json a.json", result.out().lines().findFirst().orElseThrow());
    }

    @Test
    void filesOfOtherScenariosOrNotBenchJsonAreOneLineNamingTheFile() throws Exception
    {
        final String a = file("a.json", A);
        final String rr = file("rr.json", A.replace("\"tx\"", "\"rr\""));
        assertError("xmit bench compare: " + a + " holds tx but " + rr + " holds rr: compare runs of the same scenarios",
            "bench", "compare", a, rr);
        final String counters = file("stat.json", "{\"queues\":[{\"tx_packets\":3}]}");
        assertError("xmit bench compare: " + counters + " is not bench JSON: no \"scenario\" with \"variants\" " +
            "(write one with xmit bench … --json FILE)", "bench", "compare", a, counters);
        final String text = file("notes.txt", "tx 12 Mpps\n");
        assertError("xmit bench compare: " + text + " is not bench JSON: expected a value at character 1",
            "bench", "compare", text, a);
        final String cut = file("cut.json", A.substring(0, 80));
        assertError("xmit bench compare: " + cut + " is not bench JSON: expected '\"' at character 81 (the end)",
            "bench", "compare", a, cut);
        assertError("xmit bench compare: " + dir.resolve("none.json") + ": no such file",
            "bench", "compare", a, dir.resolve("none.json").toString());
        assertError("xmit bench compare: compare needs B.json", "bench", "compare", a);
    }

    private String file(final String name, final String text) throws Exception
    {
        return Files.writeString(dir.resolve(name), text).toString();
    }

    private static void assertError(final String line, final String... args)
    {
        assertEquals(new RunCommandTest.Result(Main.EXIT_USAGE, "", line + "\n"), xmit(args));
    }
}
