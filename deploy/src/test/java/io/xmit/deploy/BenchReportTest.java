package io.xmit.deploy;

import io.xmit.deploy.bench.ScenarioResult;
import io.xmit.deploy.bench.Stat;
import io.xmit.deploy.bench.Target;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code xmit bench --report} from made-up figures: the HTML parses as XML, says where the figures come from, labels
 * the nines axis as the percentiles it stands for, charts rr's cross-CPU hops, and tells the variants' RTT lines
 * apart by dash pattern and marker shape as well as by colour.
 */
class BenchReportTest
{
    static final Provenance PROVENANCE = new Provenance("2026-12-01T19:00:00Z", "5e3f71b133fd",
        "Intel(R) Xeon(R) CPU @ 2.20GHz", 2, "25.0.3+9-LTS", "xmit bench all --report 'my run.html'");
    private static final double[] PERCENTILES = {1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};

    @Test
    void theNinesAxisNamesEachPercentileWithAllItsNines() throws Exception
    {
        final Element curve = svg(report(), "rtt_percentiles_us");
        assertEquals(List.of("0", "90", "99", "99.9", "99.99", "max"), texts(curve, "class", "nines"));
    }

    /** The RTT axis, a decade a gridline, and the tables' times, each in the unit its size calls for. */
    @Test
    void timesAreInTheUnitTheirSizeCallsFor() throws Exception
    {
        final Document report = report();
        final Element curve = svg(report, "rtt_percentiles_us");
        assertEquals(List.of("10 µs", "100 µs", "1.0 ms"), texts(curve, "class", "decade"));
        assertEquals(List.of("RTT"), texts(curve, null, null).stream().filter(text -> text.startsWith("RTT")).toList());
        final List<String> times = new ArrayList<>();
        final NodeList cells = report.getElementsByTagName("td");
        for (int i = 0; i < cells.getLength(); i++)
        {
            final Element cell = (Element)cells.item(i);
            if (cell.getAttribute("data-figure").endsWith("_us"))
            {
                times.add(cell.getTextContent());
            }
        }
        assertEquals(List.of("31 (30–31) µs", "26 (25–26) µs", "21 (20–21) µs"), times);
    }

    @Test
    void rrChartsTheCrossCpuHopsPerTransactionOfEachVariant() throws Exception
    {
        final Element hops = svg(report(), "hops_per_transaction");
        final List<String> bars = new ArrayList<>();
        final NodeList rects = hops.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++)
        {
            bars.add(((Element)rects.item(i)).getAttribute("data-variant"));
        }
        assertEquals(List.of("hash", "xps-cpus", "xps-rxqs"), bars);
        final List<String> texts = texts(hops, null, null);
        // Medians 2, 1.5 and 1 on an axis up to the round ceiling of the largest round, 2.
        assertEquals(List.of("0", "0.5", "1", "1.5", "2"), texts.subList(0, 5));
        assertEquals(List.of("hash", "2.00", "xps-cpus", "1.50", "xps-rxqs", "1.00"), texts.subList(6, 12));
    }

    @Test
    void aTargetNotMeasuredSaysSoAndIsNeitherMetNorMissed() throws Exception
    {
        final Map<String, String> status = new LinkedHashMap<>();
        final NodeList cells = report().getElementsByTagName("td");
        for (int i = 0; i < cells.getLength(); i++)
        {
            final Element cell = (Element)cells.item(i);
            if (cell.hasAttribute("class"))
            {
                status.put(cell.getAttribute("class"), cell.getTextContent());
            }
        }
        assertEquals(Map.of("met", "met", "unmeasured", "not measured yet"), status);
    }

    @Test
    void theReportSaysWhereItsFiguresComeFrom() throws Exception
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        final NodeList rows = report().getElementsByTagName("tr");
        for (int i = 0; i < rows.getLength(); i++)
        {
            final Element row = (Element)rows.item(i);
            if (row.hasAttribute("data-field"))
            {
                fields.put(row.getAttribute("data-field"), row.getElementsByTagName("td").item(0).getTextContent());
            }
        }
        assertEquals(Map.of("date", "2026-12-01T19:00:00Z", "commit", "5e3f71b133fd", "cpu",
            "Intel(R) Xeon(R) CPU @ 2.20GHz", "cpus", "2", "jdk", "25.0.3+9-LTS", "command",
            "xmit bench all --report 'my run.html'"), fields);
    }

    @Test
    void eachVariantsLineHasItsOwnDashAndMarkerAtEveryPointAndInTheLegend() throws Exception
    {
        final Element curve = svg(report(), "rtt_percentiles_us");
        final Set<String> dashes = new HashSet<>();
        final Set<String> shapes = new HashSet<>();
        final List<String> lines = new ArrayList<>();
        final List<String> legend = new ArrayList<>();
        final NodeList groups = curve.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++)
        {
            final Element group = (Element)groups.item(i);
            if (group.hasAttribute("data-variant"))
            {
                lines.add(group.getAttribute("data-variant"));
                dashes.add(group.getAttribute("data-dash"));
                shapes.add(group.getAttribute("data-marker"));
                assertEquals(PERCENTILES.length, markers(group).size(), group.getAttribute("data-variant"));
                assertEquals(Set.of(shapeElement(group.getAttribute("data-marker"))), Set.copyOf(markers(group)));
                final Element polyline = (Element)group.getElementsByTagName("polyline").item(0);
                assertEquals(dashAttribute(group.getAttribute("data-dash")),
                    polyline.getAttribute("stroke-dasharray"));
            }
            if (group.hasAttribute("data-legend"))
            {
                legend.add(group.getAttribute("data-legend") + " " + markers(group));
            }
        }
        assertEquals(List.of("hash", "xps-cpus", "xps-rxqs"), lines);
        assertEquals(Set.of("none", "8 4", "2 3"), dashes);
        assertEquals(Set.of("circle", "square", "triangle"), shapes);
        assertEquals(List.of("hash [circle]", "xps-cpus [rect]", "xps-rxqs [polygon]"), legend);
    }

    @Test
    void txStillChartsMppsPerVariant() throws Exception
    {
        final Element mpps = svg(report(), "mpps");
        assertEquals(List.of("xmit", "10.0", "akka-naive", "5.00"), texts(mpps, null, null).subList(6, 10));
    }

    /** The synthetic tx and rr report, parsed; also left in target/ to look at in a browser. */
    static Document report() throws Exception
    {
        final String html = BenchReport.html(List.of(tx(), rr()), PROVENANCE);
        Files.writeString(Path.of("target/bench-report-test.html"), html, StandardCharsets.UTF_8);
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    static ScenarioResult tx()
    {
        final List<ScenarioResult.Variant> variants = List.of(
            new ScenarioResult.Variant("xmit", Map.of("mpps", Stat.of(List.of(9.0, 10.0, 11.0))), List.of()),
            new ScenarioResult.Variant("akka-naive", Map.of("mpps", Stat.of(List.of(4.0, 5.0, 6.0))), List.of()));
        return new ScenarioResult("tx", "tx setup", 3, variants,
            Map.of("xmit/akka-naive", Stat.of(List.of(2.25, 2.0, 1.83))),
            List.of(new Target("xmit/akka-naive", false, 5, 2.0)));
    }

    static ScenarioResult rr()
    {
        final List<ScenarioResult.Variant> variants = new ArrayList<>();
        final List<String> names = List.of("hash", "xps-cpus", "xps-rxqs");
        for (int v = 0; v < names.size(); v++)
        {
            final Map<String, Stat> figures = new LinkedHashMap<>();
            figures.put("rtt_mean_us", Stat.of(List.of(30.0 - 5 * v, 31.0 - 5 * v)));
            figures.put("cross_cpu_share", Stat.of(List.of(0.5 - 0.25 * v, 0.5 - 0.25 * v)));
            figures.put("hops_per_transaction", Stat.of(List.of(2.0 - 0.5 * v, 2.0 - 0.5 * v)));
            final List<double[]> curve = new ArrayList<>();
            for (final double percentile : PERCENTILES)
            {
                curve.add(new double[] {percentile, (20 - 5 * v) * (1 + percentile / 10)});
            }
            variants.add(new ScenarioResult.Variant(names.get(v), figures, curve));
        }
        return new ScenarioResult("rr", "rr setup", 2, variants,
            Map.of("rtt_mean xps-rxqs/hash", Stat.of(List.of(0.66, 0.68))),
            List.of(Target.notMeasured("rtt_p50_us busy-poll (worst XPS mode)", false, 10)));
    }

    private static Element svg(final Document report, final String figure)
    {
        final NodeList svgs = report.getElementsByTagName("svg");
        for (int i = 0; i < svgs.getLength(); i++)
        {
            final Element svg = (Element)svgs.item(i);
            if (figure.equals(svg.getAttribute("data-figure")))
            {
                return svg;
            }
        }
        throw new AssertionError("no chart of " + figure);
    }

    /** The texts of {@code <text>} elements below {@code parent}, those with {@code attribute = value} if given. */
    private static List<String> texts(final Element parent, final String attribute, final String value)
    {
        final List<String> texts = new ArrayList<>();
        final NodeList nodes = parent.getElementsByTagName("text");
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Element text = (Element)nodes.item(i);
            if (null == attribute || value.equals(text.getAttribute(attribute)))
            {
                texts.add(text.getTextContent());
            }
        }
        return texts;
    }

    /** The element names of the markers directly in {@code group}. */
    private static List<String> markers(final Element group)
    {
        final List<String> markers = new ArrayList<>();
        for (Node child = group.getFirstChild(); null != child; child = child.getNextSibling())
        {
            if (child instanceof Element element && "marker".equals(element.getAttribute("class")))
            {
                markers.add(element.getTagName());
            }
        }
        return markers;
    }

    private static String shapeElement(final String shape)
    {
        return switch (shape)
        {
            case "circle" -> "circle";
            case "square" -> "rect";
            case "triangle", "diamond" -> "polygon";
            default -> "path";
        };
    }

    private static String dashAttribute(final String dash)
    {
        return "none".equals(dash) ? "" : dash;
    }
}
