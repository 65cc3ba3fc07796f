package io.xmit.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.xmit.deploy.bench.RrBench;
import io.xmit.deploy.bench.Target;
import io.xmit.deploy.bench.TxBench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit bench}: the shape of what it writes, never its speed. One quick run of both scenarios writes valid
 * JSON with every variant and positive figures, and an HTML report that parses and holds every variant's figures.
 */
class BenchCommandTest
{
    @TempDir
    Path dir;

    @Test
    void quickAllWritesJsonWithEveryVariantAndAReportThatHoldsThem() throws Exception
    {
        final Path json = dir.resolve("bench.json");
        final Path html = dir.resolve("bench.html");
        final RunCommandTest.Result result = RunCommandTest.xmit("bench", "all", "--quick", "--json", json.toString(),
            "--report", html.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());

        final Config root = ConfigFactory.parseString(Files.readString(json),
            ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        assertEquals(Runtime.getRuntime().availableProcessors(), root.getInt("cpus"));
        assertEquals(Runtime.version().toString(), root.getString("jdk"));
        assertEquals(Version.commit(), root.getString("commit"));
        assertEquals("xmit bench all --quick --json " + json + " --report " + html, root.getString("command"));
        final List<? extends Config> scenarios = root.getConfigList("scenarios");
        assertEquals(List.of("tx", "rr"), scenarios.stream().map(s -> s.getString("scenario")).toList());

        final Config tx = scenarios.get(0);
        assertEquals(TxBench.TX_VARIANTS, names(tx));
        for (final Config variant : tx.getConfigList("variants"))
        {
            assertPositive(variant, "mpps");
            assertTrue(variant.getDouble("bytes_per_packet.median") >= 0, variant.toString());
        }
        assertTrue(tx.getDouble("ratios.\"xmit/akka-naive\".median") > 0);
        assertTrue(tx.getDouble("ratios.\"sender-bypass/aeron-raw\".median") > 0);
        assertEquals(7, tx.getConfigList("targets").size());

        final Config rr = scenarios.get(1);
        assertEquals(RrBench.names(), names(rr));
        for (final Config variant : rr.getConfigList("variants"))
        {
            for (final String figure : List.of("transactions_per_s", "cpu_share_xmit", "cpu_share_busiest",
                "cpu_us_per_transaction"))
            {
                assertPositive(variant, figure);
            }
            // A variant whose every round lost a transaction (a reply later than the clients' timeout, on a loaded
            // machine) has no RTT figures: null, never a flattering 0.
            final boolean incomplete = variant.getDouble("transactions_lost.min") > 0 ||
                variant.getDouble("flows_stalled.min") > 0 || variant.getDouble("sends_refused.min") > 0;
            for (final String figure : List.of("rtt_mean_us", "rtt_p50_us", "rtt_p90_us", "rtt_p99_us",
                "rtt_p99_9_us", "rtt_max_us"))
            {
                if (incomplete && variant.getIsNull(figure + ".median"))
                {
                    continue;
                }
                assertTrue(variant.getDouble(figure + ".median") > 0, figure + " of " + variant);
            }
            for (final String figure : List.of("request_tx_hops", "request_rx_hops", "reply_tx_hops", "reply_rx_hops",
                "cross_cpu_share"))
            {
                final double share = variant.getDouble(figure + ".median");
                assertTrue(share >= 0 && share <= 1, figure + " of " + variant);
            }
            final double hops = variant.getDouble("hops_per_transaction.median");
            assertTrue(hops >= 0 && hops <= 4, variant.toString());
            for (final String role : List.of("akka", "aeron", "device"))
            {
                assertTrue(variant.getDouble("cpu_share_" + role + ".median") >= 0, role + " of " + variant);
            }
            for (final String figure : List.of("sends_refused", "transactions_lost", "late_replies", "flows_stalled",
                "datagrams_dropped"))
            {
                assertTrue(variant.getDouble(figure + ".max") >= 0, figure + " of " + variant);
            }
            assertEquals(13, variant.getConfigList("rtt_percentiles_us").size());
        }
        // A client's request leaves on its own CPU's TX queue under xps-cpus, and a reply on its request's RX queue's
        // CPU under xps-rxqs.
        assertEquals(0.0, rr.getConfigList("variants").get(1).getDouble("request_tx_hops.max"));
        assertEquals(0.0, rr.getConfigList("variants").get(1).getDouble("reply_tx_hops.max"));
        assertEquals(0.0, rr.getConfigList("variants").get(2).getDouble("cross_cpu_share.max"));
        // The ratio has a median unless no round of the two was complete (on a loaded machine, a transaction lost).
        final Config seed = rr.getConfig("ratios.\"rtt_mean xps-rxqs/hash\"");
        if (seed.getIsNull("median"))
        {
            final Config hash = rr.getConfigList("variants").get(0);
            final Config rxqs = rr.getConfigList("variants").get(2);
            for (int r = 0; r < hash.getList("transactions_lost.rounds").size(); r++)
            {
                assertTrue(incomplete(hash, r) || incomplete(rxqs, r), "round " + r + " of hash and xps-rxqs");
            }
        }
        else
        {
            assertTrue(seed.getDouble("median") > 0, seed.toString());
        }
        // The busy-polling variants measure the three targets: each has a value, met or missed by it, unless
        // a variant it needs lost a transaction in every round: then it is not measured, and not met.
        final List<? extends Config> targets = rr.getConfigList("targets");
        assertEquals(3, targets.size());
        for (final Config target : targets)
        {
            if (target.getIsNull("value"))
            {
                assertEquals(Target.NOT_MEASURED, target.getString("status"), target.toString());
                assertFalse(target.getBoolean("met"), target.toString());
                continue;
            }
            assertEquals(target.getBoolean("met") ? "met" : "MISSED", target.getString("status"), target.toString());
            assertTrue(target.getDouble("value") > 0, target.toString());
        }

        final String text = Files.readString(html, StandardCharsets.UTF_8);
        assertFalse(text.contains("<script") || text.contains("<link") || text.contains("@font-face") ||
            text.contains("src="), "self-contained");
        final Document report = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(html.toFile());
        final NodeList svgs = report.getElementsByTagName("svg");
        final List<String> charts = new ArrayList<>();
        for (int i = 0; i < svgs.getLength(); i++)
        {
            charts.add(((Element)svgs.item(i)).getAttribute("data-figure"));
        }
        assertEquals(List.of("mpps", "rtt_percentiles_us", "hops_per_transaction"), charts);
        final Map<String, Element> rows = new HashMap<>();
        final NodeList trs = report.getElementsByTagName("tr");
        for (int i = 0; i < trs.getLength(); i++)
        {
            final Element row = (Element)trs.item(i);
            if (row.hasAttribute("data-variant"))
            {
                rows.put(row.getAttribute("data-variant"), row);
            }
        }
        assertEquals(TxBench.TX_VARIANTS.size() + RrBench.VARIANTS.size(), rows.size());
        for (final Config scenario : scenarios)
        {
            for (final Config variant : scenario.getConfigList("variants"))
            {
                final Element row = rows.get(variant.getString("name"));
                assertTrue(null != row, "no row for " + variant.getString("name"));
                final String figure = "tx".equals(scenario.getString("scenario")) ? "mpps" : "rtt_mean_us";
                // A variant the JSON has no figure for (every round lost a transaction) shows NaN, as in the JSON.
                final double median = median(row, figure);
                assertTrue(variant.getIsNull(figure + ".median") ? Double.isNaN(median) : median > 0,
                    figure + " of " + variant.getString("name") + ": " + median);
            }
        }
    }

    @Test
    void jsonCarriesProvenanceAndEveryRoundsValue()
    {
        final Config all = ConfigFactory.parseString(BenchCommand.json(List.of(BenchReportTest.tx(),
            BenchReportTest.rr()), true, BenchReportTest.PROVENANCE), ConfigParseOptions.defaults()
            .setSyntax(ConfigSyntax.JSON));
        final List<Config> places = new ArrayList<>(List.of(all));
        places.addAll(all.getConfigList("scenarios"));
        for (final Config place : places)
        {
            assertEquals("2026-12-01T19:00:00Z", place.getString("date"));
            assertEquals("5e3f71b133fd", place.getString("commit"));
            assertEquals("Intel(R) Xeon(R) CPU @ 2.20GHz", place.getString("cpu"));
            assertEquals(2, place.getInt("cpus"));
            assertEquals("25.0.3+9-LTS", place.getString("jdk"));
            assertEquals("xmit bench all --report 'my run.html'", place.getString("command"));
        }
        final Config tx = all.getConfigList("scenarios").get(0);
        assertEquals(List.of(9.0, 10.0, 11.0), tx.getConfigList("variants").get(0).getDoubleList("mpps.rounds"));
        assertEquals(List.of(2.25, 2.0, 1.83), tx.getDoubleList("ratios.\"xmit/akka-naive\".rounds"));
        final Config rr = ConfigFactory.parseString(BenchCommand.json(List.of(BenchReportTest.rr()), false,
            BenchReportTest.PROVENANCE), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        assertEquals("rr", rr.getString("scenario"));
        assertEquals(List.of(0.25, 0.25), rr.getConfigList("variants").get(1).getDoubleList("cross_cpu_share.rounds"));
    }

    @Test
    void quickTraceComparesTheTracedPipelinesToTheUntracedOne() throws Exception
    {
        final Path json = dir.resolve("trace.json");
        final RunCommandTest.Result result = RunCommandTest.xmit("bench", "trace", "--quick", "--rounds", "1",
            "--json", json.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final Config trace = ConfigFactory.parseString(Files.readString(json),
            ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        assertEquals("trace", trace.getString("scenario"));
        assertEquals(TxBench.TRACE_VARIANTS, names(trace));
        for (final Config variant : trace.getConfigList("variants"))
        {
            assertPositive(variant, "mpps");
        }
        assertTrue(trace.getDouble("ratios.\"xmit/trace-miss\".median") > 0);
        assertTrue(trace.getDouble("ratios.\"xmit/trace-1k\".median") > 0);
    }

    @Test
    void aBadArgumentIsOneLineNamingItAndExitCodeTwo()
    {
        for (final List<String> args : List.of(List.of("bench"), List.of("bench", "fast"),
            List.of("bench", "tx", "--rounds", "0"), List.of("bench", "tx", "rr"), List.of("bench", "rr", "--json"),
            List.of("bench", "rr", "--flows", "0"), List.of("bench", "tx", "--flows", "4"),
            List.of("bench", "tx", "--json", "/no-such-folder/out.json"),
            List.of("bench", "tx", "--report", "/no-such-folder/out.html")))
        {
            final RunCommandTest.Result result = RunCommandTest.xmit(args.toArray(String[]::new));
            assertEquals(Main.EXIT_USAGE, result.code(), args.toString());
            assertEquals(1, result.err().strip().lines().count(), result.err());
            assertTrue(result.err().startsWith("xmit bench: "), result.err());
            assertEquals("", result.out(), args.toString());
        }
    }

    private static List<String> names(final Config scenario)
    {
        return scenario.getConfigList("variants").stream().map(v -> v.getString("name")).toList();
    }

    /** Whether round {@code r} of {@code variant} lost, stalled or had a send refused: its RTT figures are NaN then. */
    private static boolean incomplete(final Config variant, final int r)
    {
        for (final String figure : List.of("transactions_lost", "flows_stalled", "sends_refused"))
        {
            if (((Number)variant.getList(figure + ".rounds").get(r).unwrapped()).doubleValue() > 0)
            {
                return true;
            }
        }
        return false;
    }

    private static void assertPositive(final Config variant, final String figure)
    {
        for (final String stat : List.of("median", "min", "max"))
        {
            assertTrue(variant.getDouble(figure + "." + stat) > 0, figure + "." + stat + " of " + variant);
        }
    }

    private static double median(final Element row, final String figure)
    {
        final NodeList cells = row.getElementsByTagName("td");
        for (int i = 0; i < cells.getLength(); i++)
        {
            final Element cell = (Element)cells.item(i);
            if (figure.equals(cell.getAttribute("data-figure")))
            {
                return Double.parseDouble(cell.getAttribute("data-median"));
            }
        }
        throw new AssertionError("no " + figure + " cell");
    }
}
