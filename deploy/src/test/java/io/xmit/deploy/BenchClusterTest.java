package io.xmit.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.xmit.deploy.bench.ClusterBench;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit bench cluster}, one short round of each variant in its child JVMs, at a rate every variant keeps up
 * with: every request sent is answered once the load stops, each variant ran in its number of processes, the figures
 * are in the JSON and the report, and no child JVM is left; then the failover phase's one kill, its books balanced.
 * Its options are refused by name where they do not apply.
 */
class BenchClusterTest
{
    @TempDir
    Path dir;

    /**
     * 103 s with the load average at 20 on the 2 cores: mostly six JVMs starting and the cluster forming; the
     * failover phase's kill adds four JVMs and some 10 s of detection and removal.
     */
    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void oneRoundOfEachVariantAnswersEveryRequestAndLeavesNoProcess() throws Exception
    {
        final Path json = dir.resolve("cluster.json");
        final Path html = dir.resolve("cluster.html");
        final RunCommandTest.Result result = RunCommandTest.xmit("bench", "cluster", "--quick", "--rate", "500",
            "--json", json.toString(), "--report", html.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err() + result.out());
        assertEquals(List.of(), children(), "child JVMs left");

        final Config cluster = ConfigFactory.parseString(Files.readString(json),
            ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        assertEquals("cluster", cluster.getString("scenario"));
        final List<? extends Config> variants = cluster.getConfigList("variants");
        assertEquals(ClusterBench.VARIANTS, variants.stream().map(v -> v.getString("name")).toList());
        assertEquals(List.of(1.0, 3.0, 2.0), variants.stream().map(v -> v.getDouble("processes.median")).toList(),
            "the variants' JVMs");
        for (final Config variant : variants)
        {
            assertEquals(0.0, variant.getDouble("requests_lost.max"), "requests sent and not answered at rest: " +
                variant);
            for (final String figure : List.of("replies_per_s", "rtt_p50_us", "rtt_p99_us", "cpu_ms_per_1k_replies",
                "cpu_cores"))
            {
                assertTrue(variant.getDouble(figure + ".median") > 0, figure + " of " + variant);
            }
            assertTrue(variant.getDouble("bytes_per_request_upper_bound.median") >= 0, variant.toString());
            assertTrue(Double.isFinite(variant.getDouble("bytes_per_packet_marginal.median")), variant.toString());
        }
        assertTrue(cluster.getDouble("ratios.\"replies_per_cpu_s cluster/aeron-udp\".median") > 0);
        assertTrue(cluster.getDouble("ratios.\"replies_per_cpu_s cluster/single\".median") > 0);
        final Config target = cluster.getConfigList("targets").getFirst();
        assertEquals("replies_per_cpu_s cluster/aeron-udp", target.getString("figure"));
        assertEquals(target.getBoolean("met") ? "met" : "MISSED", target.getString("status"));

        final Document report = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(html.toFile());
        final NodeList svgs = report.getElementsByTagName("svg");
        final List<String> charts = new ArrayList<>();
        for (int i = 0; i < svgs.getLength(); i++)
        {
            charts.add(((Element)svgs.item(i)).getAttribute("data-figure"));
        }
        assertEquals(List.of("rtt_percentiles_us", "cpu_ms_per_1k_replies"), charts);
        assertTrue(Files.readString(html, StandardCharsets.UTF_8).contains("data-variant=\"aeron-udp\""));

        final Config failover = cluster.getConfig("failover");
        final Config kill = failover.getConfigList("kills").getFirst();
        assertEquals(List.of(1, 0, true, ""), List.of(failover.getConfigList("kills").size(),
            failover.getInt("unbalanced"), kill.getBoolean("balanced"), kill.getString("books")), failover.toString());
        assertTrue(kill.getInt("flows_moved") > 0 && kill.getDouble("failover_ms") > 0 &&
            kill.getDouble("removal_ms") > 0, kill.toString());
        assertEquals(kill.getDouble("failover_ms"), failover.getDouble("summary.failover_ms.median"));
        final String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.contains("<section id=\"failover\">") && page.contains("<tr data-kill=\"1\">"), page);
    }

    @Test
    void itsOptionsAreRefusedWhereTheyDoNotApply()
    {
        assertEquals("xmit bench: --seconds 3: only cluster has it\n",
            RunCommandTest.xmit("bench", "tx", "--seconds", "3").err());
        assertEquals("xmit bench: --rate 100: only cluster has it\n",
            RunCommandTest.xmit("bench", "rr", "--rate", "100").err());
        assertEquals("xmit bench: --flows 4: only rr (and all) has flows\n",
            RunCommandTest.xmit("bench", "cluster", "--flows", "4").err());
        assertEquals("xmit bench: --kills 2: only cluster has it\n",
            RunCommandTest.xmit("bench", "rr", "--kills", "2").err());
        assertEquals(Main.EXIT_USAGE, RunCommandTest.xmit("bench", "cluster", "--rate", "0").code());
    }

    /** This JVM's children that run a bench role, of the rounds or of the failover phase. */
    private static List<String> children()
    {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
            .map(process -> process.info().commandLine().orElse(""))
            .filter(line -> line.contains("ClusterBenchChild") || line.contains("FailoverChild")).toList();
    }
}
