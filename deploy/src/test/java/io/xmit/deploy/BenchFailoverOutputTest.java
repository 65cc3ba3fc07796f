package io.xmit.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.xmit.deploy.bench.FailoverResult;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The failover phase of {@code xmit bench cluster} in the JSON and the report, from made-up kills: each kill with its
 * figures and whether its books balanced, the summary over the balanced ones only, a figure that cannot be computed
 * {@code null} in the JSON and {@code n/a} in the report.
 */
class BenchFailoverOutputTest
{
    private static final FailoverResult FAILOVER = new FailoverResult("setup", List.of(
        new FailoverResult.Kill(4_000, 3_500, 8_000, 8, 1_200, ""),
        new FailoverResult.Kill(Double.NaN, 9_000, 9_500, 7, 900, "3 requests sent and neither answered …"),
        new FailoverResult.Kill(5_000, 4_500, 9_000, 9, 1_500, "")));

    @Test
    void theJsonHasEachKillAndTheSummaryOverTheBalancedOnes()
    {
        final Config json = ConfigFactory.parseString(BenchCommand.json(List.of(BenchReportTest.rr()), false,
            FAILOVER, BenchReportTest.PROVENANCE), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
        final Config failover = json.getConfig("failover");
        final List<? extends Config> kills = failover.getConfigList("kills");
        assertEquals(List.of(4_000.0, 5_000.0), List.of(kills.get(0).getDouble("failover_ms"),
            kills.get(2).getDouble("failover_ms")));
        assertTrue(kills.get(1).getIsNull("failover_ms"), kills.get(1).toString());
        assertEquals(List.of(true, false, true), kills.stream().map(kill -> kill.getBoolean("balanced")).toList());
        assertEquals(List.of("", "3 requests sent and neither answered …", ""),
            kills.stream().map(kill -> kill.getString("books")).toList());
        assertEquals(List.of(8, 7, 9), kills.stream().map(kill -> kill.getInt("flows_moved")).toList());
        assertEquals(List.of(1_200L, 900L, 1_500L), kills.stream().map(kill -> kill.getLong("lost")).toList());
        assertEquals(1, failover.getInt("unbalanced"));
        assertEquals(List.of(4_000.0, 5_000.0), failover.getDoubleList("summary.failover_ms.rounds"));
        assertEquals(4_500.0, failover.getDouble("summary.failover_ms.median"));
        assertEquals(8_500.0, failover.getDouble("summary.removal_ms.median"));
        assertEquals(1_350.0, failover.getDouble("summary.lost.median"));
        assertEquals(List.of(8_000.0, 9_000.0), failover.getDoubleList("summary.removal_ms.rounds"));
    }

    @Test
    void theReportHasARowPerKillTheUnbalancedOneMarked() throws Exception
    {
        final String html = BenchReport.html(List.of(BenchReportTest.rr()), FAILOVER, BenchReportTest.PROVENANCE);
        final Document report = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        final NodeList rows = report.getElementsByTagName("tr");
        final List<String> books = new ArrayList<>();
        final List<String> failoverMs = new ArrayList<>();
        for (int i = 0; i < rows.getLength(); i++)
        {
            final Element row = (Element)rows.item(i);
            if (row.hasAttribute("data-kill"))
            {
                final NodeList cells = row.getElementsByTagName("td");
                failoverMs.add(cells.item(1).getTextContent());
                books.add(((Element)cells.item(cells.getLength() - 1)).getAttribute("class"));
            }
        }
        assertEquals(List.of("4000", "n/a", "5000"), failoverMs);
        assertEquals(List.of("met", "missed", "met"), books);
        assertTrue(html.contains("do not balance: 3 requests sent and neither answered …"), html);
        assertTrue(html.contains("<td>failover_ms</td><td>4500 (4000–5000)</td>"), html);
    }
}
