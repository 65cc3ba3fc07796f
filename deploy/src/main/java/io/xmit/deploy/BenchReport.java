package io.xmit.deploy;

import io.xmit.deploy.bench.ScenarioResult;
import io.xmit.deploy.bench.Stat;
import io.xmit.deploy.bench.Target;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code xmit bench --report}: one self-contained HTML file (inline CSS and SVG; no script, no font, no link), also
 * well-formed XML so that a test can parse it. Per scenario: a table of every variant's figures (median, min–max),
 * the ratios and targets, and a chart: Mpps per variant with min–max whiskers for {@code tx}, RTT (log axis) against
 * percentile (nines axis) for {@code rr}.
 */
final class BenchReport
{
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    private static final int WIDTH = 720;
    private static final int ROW = 28;
    private static final int LEFT = 120;
    private static final int RIGHT = 40;
    private static final int TOP = 20;
    private static final int BOTTOM = 40;
    private static final int CURVE_HEIGHT = 320;
    /** The nines axis ends here: percentile 100 (the max) is drawn at 99.999. */
    private static final double MAX_NINES = 5;

    private BenchReport()
    {
    }

    static String html(final List<ScenarioResult> results, final int cpus, final String jdk)
    {
        final StringBuilder html = new StringBuilder(16_384);
        html.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
            .append("<meta charset=\"utf-8\"/>\n<title>xmit bench</title>\n<style>\n")
            .append("body { font-family: sans-serif; margin: 2em; color: #222; }\n")
            .append("table { border-collapse: collapse; margin: 1em 0; }\n")
            .append("th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }\n")
            .append("th:first-child, td:first-child { text-align: left; }\n")
            .append(".met { color: #2ca02c; } .missed { color: #d62728; font-weight: bold; }\n")
            .append("svg text { font-size: 12px; }\n</style>\n</head>\n<body>\n")
            .append("<h1>xmit bench</h1>\n<p>")
            .append(escape(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)))
            .append(" — ").append(cpus).append(" CPUs, JDK ").append(escape(jdk))
            .append(". Each figure is the median of the rounds, with min–max beside it; ratios are taken round by ")
            .append("round. Shared machines are noisy: compare variants of one run, not runs.</p>\n");
        for (final ScenarioResult result : results)
        {
            scenario(html, result);
        }
        return html.append("</body>\n</html>\n").toString();
    }

    private static void scenario(final StringBuilder html, final ScenarioResult result)
    {
        html.append("<section id=\"").append(escape(result.scenario())).append("\">\n<h2>")
            .append(escape(result.scenario())).append("</h2>\n<p>").append(escape(result.setup())).append("</p>\n");
        if (result.variants().getFirst().curve().isEmpty())
        {
            barChart(html, result);
        }
        else
        {
            curveChart(html, result);
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
                    .append(number(stat.median())).append("\">").append(escape(BenchCommand.cell(stat)))
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
                    .append(escape(BenchCommand.format(target.value()))).append("</td><td class=\"")
                    .append(target.met() ? "met\">met" : "missed\">missed").append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("</section>\n");
    }

    /** Horizontal bars of the median Mpps, a whisker from min to max, the median written at the bar's end. */
    private static void barChart(final StringBuilder html, final ScenarioResult result)
    {
        double top = 0;
        for (final ScenarioResult.Variant variant : result.variants())
        {
            top = Math.max(top, finite(variant.figures().get("mpps").max()));
        }
        top = niceCeiling(top);
        final int plot = WIDTH - LEFT - RIGHT;
        final int height = TOP + ROW * result.variants().size() + BOTTOM;
        html.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(height).append("\" role=\"img\" aria-label=\"Mpps per variant\">\n");
        for (int tick = 0; tick <= 4; tick++)
        {
            final double x = LEFT + plot * tick / 4.0;
            html.append(line(x, TOP, x, height - BOTTOM, "#ddd"))
                .append(text(x, height - BOTTOM + 16, "middle", BenchCommand.format(top * tick / 4)));
        }
        html.append(text(LEFT + plot / 2.0, height - 6, "middle", "Mpps (median, whisker min–max)"));
        for (int v = 0; v < result.variants().size(); v++)
        {
            final ScenarioResult.Variant variant = result.variants().get(v);
            final Stat mpps = variant.figures().get("mpps");
            final double y = TOP + ROW * v;
            final double width = plot * finite(mpps.median()) / top;
            html.append(text(LEFT - 8, y + ROW / 2.0 + 4, "end", variant.name()))
                .append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", LEFT, y + 4, width,
                    ROW - 8, COLOURS[v % COLOURS.length]));
            final double min = LEFT + plot * finite(mpps.min()) / top;
            final double max = LEFT + plot * finite(mpps.max()) / top;
            final double middle = y + ROW / 2.0;
            html.append(line(min, middle, max, middle, "#000")).append(line(min, middle - 6, min, middle + 6, "#000"))
                .append(line(max, middle - 6, max, middle + 6, "#000"))
                .append(text(Math.max(max, LEFT + width) + 6, middle + 4, "start",
                    BenchCommand.format(mpps.median())));
        }
        html.append("</svg>\n");
    }

    /**
     * RTT against percentile, one line per variant: percentiles on a nines axis (0, 90, 99, 99.9 …) and RTT on a
     * log axis, so that both the median and a tail a thousand times longer stay readable.
     */
    private static void curveChart(final StringBuilder html, final ScenarioResult result)
    {
        double lowest = Double.MAX_VALUE;
        double highest = 0;
        for (final ScenarioResult.Variant variant : result.variants())
        {
            for (final double[] point : variant.curve())
            {
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
            .append(height).append("\" role=\"img\" aria-label=\"RTT percentiles per variant\">\n");
        for (int nines = 0; nines <= MAX_NINES; nines++)
        {
            final double x = LEFT + plot * nines / MAX_NINES;
            final String label = 0 == nines ? "0" : nines == MAX_NINES ? "max" :
                BenchCommand.format(100 - 100 / Math.pow(10, nines)).replaceAll("\\.?0+$", "");
            html.append(line(x, TOP, x, bottom, "#ddd")).append(text(x, bottom + 16, "middle", label));
        }
        for (double decade = low; decade <= high; decade++)
        {
            final double y = bottom - CURVE_HEIGHT * (decade - low) / (high - low);
            final double us = Math.pow(10, decade);
            html.append(line(LEFT, y, LEFT + plot, y, "#ddd")).append(text(LEFT - 8, y + 4, "end",
                decade >= 0 ? String.format(Locale.ROOT, "%.0f", us) : BenchCommand.format(us)));
        }
        html.append(text(LEFT + plot / 2.0, bottom + 32, "middle", "percentile"))
            .append(text(40, TOP + CURVE_HEIGHT / 2.0, "middle", "RTT µs"));
        for (int v = 0; v < result.variants().size(); v++)
        {
            final ScenarioResult.Variant variant = result.variants().get(v);
            final String colour = COLOURS[v % COLOURS.length];
            final StringBuilder points = new StringBuilder();
            for (final double[] point : variant.curve())
            {
                final double nines = point[0] >= 100 ? MAX_NINES :
                    Math.min(MAX_NINES, -Math.log10(1 - point[0] / 100));
                final double decades = Math.log10(Math.max(point[1], Math.pow(10, low))) - low;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + plot * nines / MAX_NINES,
                    bottom - CURVE_HEIGHT * decades / (high - low)));
            }
            html.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\" points=\"")
                .append(points.toString().strip()).append("\"/>\n");
            final double y = bottom + BOTTOM + ROW * v;
            html.append(line(LEFT, y, LEFT + 24, y, colour)).append(text(LEFT + 30, y + 4, "start", variant.name()));
        }
        html.append("</svg>\n");
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
