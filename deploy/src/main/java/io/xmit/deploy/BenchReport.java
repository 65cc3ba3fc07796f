package io.xmit.deploy;

import io.xmit.deploy.bench.FailoverResult;
import io.xmit.deploy.bench.ScenarioResult;
import io.xmit.deploy.bench.Stat;
import io.xmit.deploy.bench.Target;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code xmit bench --report}: one self-contained HTML file (inline CSS and SVG; no script, no font, no link), also
 * well-formed XML so that a test can parse it. First where the figures come from ({@link Provenance}); then per
 * scenario the charts, a table of every variant's figures (median, min–max), the ratios and targets. The charts: Mpps
 * per variant with min–max whiskers for {@code tx}; for {@code rr} RTT (log axis) against percentile (nines axis),
 * then the cross-CPU hops per transaction per variant (whisker min–max), what XPS and busy polling change; for
 * {@code cluster} the same curve, then the CPU per 1,000 replies per variant.
 */
final class BenchReport
{
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    private static final String[] SHAPES = {"circle", "square", "triangle", "diamond", "cross", "plus"};
    /** SVG {@code stroke-dasharray}s: solid, dashed, dotted, dash-dot, long dash, short dash. */
    private static final String[] DASHES = {"none", "8 4", "2 3", "8 3 2 3", "14 4", "4 4"};
    private static final Bars MPPS = new Bars("mpps", 1, 0, "", "Mpps (median, whisker min–max)",
        "Mpps per variant");
    private static final Bars HOPS = new Bars("hops_per_transaction", 1, 0, "",
        "cross-CPU hops per transaction, of 4: request and reply, each at its send and its delivery " +
            "(median, whisker min–max)", "cross-CPU hops per transaction per variant");
    private static final Bars CPU_PER_1K = new Bars("cpu_ms_per_1k_replies", 1, 0, "",
        "CPU time of all the variant's processes per 1,000 replies, ms (median, whisker min–max)",
        "CPU per 1,000 replies per variant");
    private static final int WIDTH = 720;
    private static final int ROW = 28;
    private static final int LEFT = 120;
    private static final int RIGHT = 40;
    private static final int TOP = 20;
    private static final int BOTTOM = 40;
    private static final int CURVE_HEIGHT = 320;
    /** The nines axis ends here: percentile 100 (the max) is drawn at 99.999. */
    private static final int MAX_NINES = 5;

    private BenchReport()
    {
    }

    static String html(final List<ScenarioResult> results, final Provenance provenance)
    {
        return html(results, null, provenance);
    }

    /** As {@link #html(List, Provenance)}, with the cluster's failover phase after the scenarios if not null. */
    static String html(final List<ScenarioResult> results, final FailoverResult failover, final Provenance provenance)
    {
        final StringBuilder html = new StringBuilder(16_384);
        html.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
            .append("<meta charset=\"utf-8\"/>\n<title>xmit bench</title>\n<style>\n")
            .append("body { font-family: sans-serif; margin: 2em; color: #222; }\n")
            .append("table { border-collapse: collapse; margin: 1em 0; }\n")
            .append("th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }\n")
            .append("td span, td:first-child { white-space: nowrap; }\n")
            .append("th:first-child, td:first-child { text-align: left; }\n")
            .append("table.provenance td { text-align: left; font-family: monospace; }\n")
            .append(".met { color: #2ca02c; } .missed { color: #d62728; font-weight: bold; }\n")
            .append(".unmeasured { color: #777; }\n")
            .append("svg { display: block; margin: 1em 0; } svg text { font-size: 12px; }\n</style>\n</head>\n")
            .append("<body>\n<h1>xmit bench</h1>\n");
        provenance(html, provenance);
        html.append("<p>Each figure is the median of the rounds, with min–max beside it; ratios are taken round by ")
            .append("round. Shared machines are noisy: compare variants of one run, not runs.</p>\n");
        for (final ScenarioResult result : results)
        {
            scenario(html, result);
        }
        if (null != failover)
        {
            failover(html, failover);
        }
        return html.append("</body>\n</html>\n").toString();
    }

    /**
     * A row per kill ({@code data-kill}, each figure a {@code data-figure} cell, a kill whose books do not balance
     * marked and said why), then each figure's median (min–max) over the balanced kills.
     */
    private static void failover(final StringBuilder html, final FailoverResult failover)
    {
        html.append("<section id=\"failover\">\n<h2>failover</h2>\n<p>").append(escape(failover.setup()))
            .append("</p>\n<table>\n<tr><th>kill</th>");
        for (final String figure : FailoverResult.FIGURES)
        {
            html.append("<th>").append(escape(figure)).append("</th>");
        }
        html.append("<th>books</th></tr>\n");
        int k = 0;
        for (final FailoverResult.Kill kill : failover.kills())
        {
            html.append("<tr data-kill=\"").append(++k).append("\"><td>").append(k).append("</td>");
            for (final String figure : FailoverResult.FIGURES)
            {
                final double value = FailoverResult.figure(kill, figure);
                html.append("<td data-figure=\"").append(escape(figure)).append("\" data-value=\"")
                    .append(number(value)).append("\">").append(escape(BenchCommand.format(value))).append("</td>");
            }
            html.append(kill.balanced() ? "<td class=\"met\">balanced</td>" : "<td class=\"missed\">" +
                escape("do not balance: " + kill.books()) + "</td>").append("</tr>\n");
        }
        html.append("</table>\n<table>\n<tr><th>over the balanced kills</th><th>median (min–max)</th></tr>\n");
        for (final Map.Entry<String, Stat> figure : failover.summary().entrySet())
        {
            html.append("<tr><td>").append(escape(figure.getKey())).append("</td><td>")
                .append(escape(BenchCommand.cell(figure.getValue()))).append("</td></tr>\n");
        }
        html.append("</table>\n</section>\n");
    }

    /** Where the figures come from: one row per field, named by {@code data-field} as in the JSON. */
    private static void provenance(final StringBuilder html, final Provenance provenance)
    {
        html.append("<table class=\"provenance\">\n");
        provenanceRow(html, "date", "date (UTC)", provenance.date());
        provenanceRow(html, "commit", "commit", provenance.commit());
        provenanceRow(html, "cpu", "CPU", provenance.cpu());
        provenanceRow(html, "cpus", "CPUs", Integer.toString(provenance.cpus()));
        provenanceRow(html, "jdk", "JDK", provenance.jdk());
        provenanceRow(html, "command", "command", provenance.command());
        html.append("</table>\n");
    }

    private static void provenanceRow(final StringBuilder html, final String field, final String name,
        final String value)
    {
        html.append("<tr data-field=\"").append(field).append("\"><th>").append(escape(name)).append("</th><td>")
            .append(escape(value)).append("</td></tr>\n");
    }

    private static void scenario(final StringBuilder html, final ScenarioResult result)
    {
        html.append("<section id=\"").append(escape(result.scenario())).append("\">\n<h2>")
            .append(escape(result.scenario())).append("</h2>\n<p>").append(escape(result.setup())).append("</p>\n");
        if (result.variants().getFirst().curve().isEmpty())
        {
            barChart(html, result, MPPS);
        }
        else
        {
            curveChart(html, result);
            barChart(html, result, result.variants().getFirst().figures().containsKey(HOPS.figure()) ? HOPS :
                CPU_PER_1K);
        }
        final List<String> figures = List.copyOf(result.variants().getFirst().figures().keySet());
        html.append("<table>\n<tr><th>variant</th>");
        for (final String figure : figures)
        {
            html.append("<th>").append(escape(figure)).append("</th>");
        }
        html.append("</tr>\n");
        for (final ScenarioResult.Variant variant : result.variants())
        {
            html.append("<tr data-variant=\"").append(escape(variant.name())).append("\"><td>")
                .append(escape(variant.name())).append("</td>");
            for (final String figure : figures)
            {
                final Stat stat = variant.figures().get(figure);
                html.append("<td data-figure=\"").append(escape(figure)).append("\" data-median=\"")
                    .append(number(stat.median())).append("\">").append(cell(BenchCommand.cell(figure, stat)))
                    .append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n<table>\n<tr><th>ratio</th><th>median (min–max)</th></tr>\n");
        for (final Map.Entry<String, Stat> ratio : result.ratios().entrySet())
        {
            html.append("<tr><td>").append(escape(ratio.getKey())).append("</td><td>")
                .append(escape(BenchCommand.cell(ratio.getValue()))).append("</td></tr>\n");
        }
        html.append("</table>\n");
        if (!result.targets().isEmpty())
        {
            html.append("<table>\n<tr><th>target</th><th>measured</th><th></th></tr>\n");
            for (final Target target : result.targets())
            {
                html.append("<tr><td>").append(escape(target.rule())).append("</td><td>")
                    .append(escape(target.measured() ? BenchCommand.format(target.value()) : ""))
                    .append("</td><td class=\"").append(target.met() ? "met" : target.measured() ? "missed" :
                        "unmeasured").append("\">").append(escape(target.status().toLowerCase(Locale.ROOT)))
                    .append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("</section>\n");
    }

    /** Horizontal bars of a figure's median, a whisker from min to max, the median written at the bar's end. */
    private static void barChart(final StringBuilder html, final ScenarioResult result, final Bars bars)
    {
        double top = bars.top();
        if (0 == top)
        {
            for (final ScenarioResult.Variant variant : result.variants())
            {
                top = Math.max(top, finite(variant.figures().get(bars.figure()).max()) * bars.scale());
            }
            top = niceCeiling(top);
        }
        final int plot = WIDTH - LEFT - RIGHT;
        final int height = TOP + ROW * result.variants().size() + BOTTOM;
        html.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(height).append("\" role=\"img\" data-figure=\"").append(bars.figure())
            .append("\" aria-label=\"").append(escape(bars.label())).append("\">\n");
        for (int tick = 0; tick <= 4; tick++)
        {
            final double x = LEFT + plot * tick / 4.0;
            html.append(line(x, TOP, x, height - BOTTOM, "#ddd"))
                .append(text(x, height - BOTTOM + 16, "middle", tick(top * tick / 4)));
        }
        html.append(text(LEFT + plot / 2.0, height - 6, "middle", bars.caption()));
        for (int v = 0; v < result.variants().size(); v++)
        {
            final ScenarioResult.Variant variant = result.variants().get(v);
            final Stat stat = variant.figures().get(bars.figure());
            final double y = TOP + ROW * v;
            final double width = plot * finite(stat.median()) * bars.scale() / top;
            html.append(text(LEFT - 8, y + ROW / 2.0 + 4, "end", variant.name()))
                .append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" data-variant=\"%s\"/>\n",
                    LEFT, y + 4, width, ROW - 8, COLOURS[v % COLOURS.length], escape(variant.name())));
            final double min = LEFT + plot * finite(stat.min()) * bars.scale() / top;
            final double max = LEFT + plot * finite(stat.max()) * bars.scale() / top;
            final double middle = y + ROW / 2.0;
            html.append(line(min, middle, max, middle, "#000")).append(line(min, middle - 6, min, middle + 6, "#000"))
                .append(line(max, middle - 6, max, middle + 6, "#000"))
                .append(text(Math.max(max, LEFT + width) + 6, middle + 4, "start",
                    BenchCommand.format(stat.median() * bars.scale()) + bars.unit()));
        }
        html.append("</svg>\n");
    }

    /**
     * RTT against percentile, one line per variant: percentiles on a nines axis (0, 90, 99, 99.9 …) and RTT on a
     * log axis, so that both the median and a tail a thousand times longer stay readable. Each variant has its own
     * colour, dash pattern and marker shape, repeated in the legend, so the lines can be told apart without colour.
     */
    private static void curveChart(final StringBuilder html, final ScenarioResult result)
    {
        double lowest = Double.MAX_VALUE;
        double highest = 0;
        for (final ScenarioResult.Variant variant : result.variants())
        {
            for (final double[] point : variant.curve())
            {
                if (!Double.isFinite(point[1]))
                {
                    continue;
                }
                lowest = Math.min(lowest, Math.max(point[1], 1e-3));
                highest = Math.max(highest, point[1]);
            }
        }
        final double low = Math.floor(Math.log10(Math.min(lowest, Math.max(highest, 1e-3))));
        final double high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(highest, 1e-3))));
        final int plot = WIDTH - LEFT - RIGHT;
        final int height = TOP + CURVE_HEIGHT + BOTTOM + ROW * result.variants().size();
        final double bottom = TOP + CURVE_HEIGHT;
        html.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(height).append("\" role=\"img\" data-figure=\"rtt_percentiles_us\" ")
            .append("aria-label=\"RTT percentiles per variant\">\n");
        for (int nines = 0; nines <= MAX_NINES; nines++)
        {
            final double x = LEFT + plot * nines / (double)MAX_NINES;
            html.append(line(x, TOP, x, bottom, "#ddd")).append(String.format(Locale.ROOT,
                "<text class=\"nines\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>%n", x, bottom + 16,
                ninesLabel(nines)));
        }
        for (double decade = low; decade <= high; decade++)
        {
            final double y = bottom - CURVE_HEIGHT * (decade - low) / (high - low);
            // In the unit the decade calls for (10 µs … 100 ms … 1.0 s): a row of 1000000 reads as nothing.
            html.append(line(LEFT, y, LEFT + plot, y, "#ddd")).append(String.format(Locale.ROOT,
                "<text class=\"decade\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 8, y + 4,
                escape(Units.micros(Math.pow(10, decade)))));
        }
        html.append(text(LEFT + plot / 2.0, bottom + 32, "middle", "percentile"))
            .append(text(28, TOP + CURVE_HEIGHT / 2.0, "middle", "RTT"));
        for (int v = 0; v < result.variants().size(); v++)
        {
            final ScenarioResult.Variant variant = result.variants().get(v);
            final Series series = Series.of(v);
            final StringBuilder points = new StringBuilder();
            final StringBuilder markers = new StringBuilder();
            for (final double[] point : variant.curve())
            {
                // A variant without an RTT (every round lost a transaction) draws no curve.
                if (!Double.isFinite(point[1]))
                {
                    continue;
                }
                final double nines = point[0] >= 100 ? MAX_NINES :
                    Math.min(MAX_NINES, -Math.log10(1 - point[0] / 100));
                final double decades = Math.log10(Math.max(point[1], Math.pow(10, low))) - low;
                final double x = LEFT + plot * nines / MAX_NINES;
                final double y = bottom - CURVE_HEIGHT * decades / (high - low);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                markers.append(series.marker(x, y));
            }
            html.append("<g data-variant=\"").append(escape(variant.name())).append("\" data-marker=\"")
                .append(series.shape()).append("\" data-dash=\"").append(series.dash()).append("\">\n")
                .append(series.polyline(points.toString().strip())).append(markers).append("</g>\n");
            final double y = bottom + BOTTOM + ROW * v;
            html.append("<g data-legend=\"").append(escape(variant.name())).append("\">\n")
                .append(series.polyline(String.format(Locale.ROOT, "%d,%.1f %d,%.1f", LEFT, y, LEFT + 36, y)))
                .append(series.marker(LEFT + 18, y)).append(text(LEFT + 44, y + 4, "start", variant.name()))
                .append("</g>\n");
        }
        html.append("</svg>\n");
    }

    /** 0, 90, 99, 99.9, 99.99 …: as many nines as the gridline stands for, and {@code max} at the axis' end. */
    static String ninesLabel(final int nines)
    {
        if (0 == nines)
        {
            return "0";
        }
        if (nines == MAX_NINES)
        {
            return "max";
        }
        return 1 == nines ? "90" : "99" + (2 == nines ? "" : "." + "9".repeat(nines - 2));
    }

    /**
     * What a bar chart shows: a figure's median per variant, times {@code scale} (100 for a share in %), on an axis
     * from 0 to {@code top}, or to a round ceiling of the largest round when {@code top} is 0.
     */
    private record Bars(String figure, double scale, double top, String unit, String caption, String label)
    {
    }

    /** How the {@code v}th variant's line is drawn: colour, dash pattern and marker shape, each its own. */
    private record Series(String colour, String dash, String shape)
    {
        static Series of(final int v)
        {
            return new Series(COLOURS[v % COLOURS.length], DASHES[v % DASHES.length], SHAPES[v % SHAPES.length]);
        }

        String polyline(final String points)
        {
            return "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"" +
                ("none".equals(dash) ? "" : " stroke-dasharray=\"" + dash + "\"") + " points=\"" + points + "\"/>\n";
        }

        /** The marker centred on (x, y), class {@code marker}. */
        String marker(final double x, final double y)
        {
            final String paint = String.format(Locale.ROOT, "class=\"marker\" fill=\"%s\" stroke=\"%s\"", colour,
                colour);
            return switch (shape)
            {
                case "circle" -> String.format(Locale.ROOT, "<circle %s cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>%n",
                    paint, x, y);
                case "square" -> String.format(Locale.ROOT,
                    "<rect %s x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"/>%n", paint, x - 3.5, y - 3.5);
                case "triangle" -> polygon(paint, x, y - 5, x + 5, y + 4, x - 5, y + 4);
                case "diamond" -> polygon(paint, x, y - 5, x + 5, y, x, y + 5, x - 5, y);
                case "cross" -> strokes(paint, x - 4, y - 4, x + 4, y + 4, x - 4, y + 4, x + 4, y - 4);
                default -> strokes(paint, x - 5, y, x + 5, y, x, y - 5, x, y + 5);
            };
        }

        /** Two strokes, (x1, y1)–(x2, y2) and (x3, y3)–(x4, y4): a cross or a plus. */
        private static String strokes(final String paint, final double... xy)
        {
            return String.format(Locale.ROOT,
                "<path %s stroke-width=\"2\" d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\"/>%n", paint, xy[0], xy[1],
                xy[2], xy[3], xy[4], xy[5], xy[6], xy[7]);
        }

        private static String polygon(final String paint, final double... xy)
        {
            final StringBuilder points = new StringBuilder();
            for (int i = 0; i < xy.length; i += 2)
            {
                points.append(String.format(Locale.ROOT, "%s%.1f,%.1f", 0 == i ? "" : " ", xy[i], xy[i + 1]));
            }
            return "<polygon " + paint + " points=\"" + points + "\"/>\n";
        }
    }

    /**
     * A figure's cell, {@code 2.5 (2.5–2.6) ms}: the median and the range each kept whole, so a narrow table breaks a
     * cell only between them.
     */
    private static String cell(final String text)
    {
        final int range = text.indexOf(" (");
        return range < 0 ? escape(text) : "<span>" + escape(text.substring(0, range)) + "</span> <span>" +
            escape(text.substring(range + 1)) + "</span>";
    }

    private static String line(final double x1, final double y1, final double x2, final double y2, final String colour)
    {
        return String.format(Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n", x1, y1, x2,
            y2, colour, "#ddd".equals(colour) ? "1" : "2");
    }

    private static String text(final double x, final double y, final String anchor, final String content)
    {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y, anchor,
            escape(content));
    }

    /** A gridline's value as short as it is exact: 0, 2.5, 25, 100; the axis ends on a round number. */
    private static String tick(final double value)
    {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    /** 1, 2 or 5 times a power of ten, at least {@code value}: round gridlines. */
    private static double niceCeiling(final double value)
    {
        if (!(value > 0))
        {
            return 1;
        }
        final double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (final double step : new double[] {1, 2, 5, 10})
        {
            if (step * power >= value)
            {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static double finite(final double value)
    {
        return Double.isFinite(value) ? value : 0;
    }

    private static String number(final double value)
    {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6g", value) : "NaN";
    }

    private static String escape(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
