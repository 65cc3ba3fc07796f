package io.xmit.deploy;

import ch.qos.logback.classic.Level;
import io.xmit.deploy.bench.ClusterBench;
import io.xmit.deploy.bench.FailoverPhase;
import io.xmit.deploy.bench.FailoverResult;
import io.xmit.deploy.bench.RrBench;
import io.xmit.deploy.bench.ScenarioResult;
import io.xmit.deploy.bench.Stat;
import io.xmit.deploy.bench.Target;
import io.xmit.deploy.bench.TxBench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code xmit bench}: the side-by-side benchmarks ({@link TxBench tx}, {@link RrBench rr}, or both; {@link ClusterBench
 * cluster} in child JVMs), their summary
 * tables and targets, and optionally the figures as JSON and as a self-contained HTML report. Targets missed are
 * reported, not an error: exit code 0 when the bench ran, 1 if it could not, 2 for a bad argument. Both files record
 * their {@link Provenance}; {@link BenchCompareCommand compare} sets two JSON files side by side.
 */
@Command(name = "bench",
    customSynopsis = {"xmit bench [-h] [--quick] [--json=FILE]",
        "                  [--report=FILE] [--rounds=N] [--flows=N] [--seconds=N]",
        "                  [--rate=N] [--kills=N] SCENARIO",
        "       xmit bench compare A.json B.json"},
    description = "side-by-side benchmarks: tx (Mpps against the baselines), rr (closed-loop RTT by XPS mode), " +
        "cluster (one node, edge + app nodes, bare Aeron UDP)",
    footer = "Variants run alternately, A B C A B C … (rr rotates the order: A B C, B C A …); each figure is the " +
        "median of the rounds, with min and max.")
final class BenchCommand implements Callable<Integer>
{
    private static final List<String> SCENARIOS = List.of("tx", "rr", "all", "trace", "cluster");
    /** Two sockets per flow, each a ring and an actor: past this a round spends its time opening sockets. */
    private static final int MAX_FLOWS = 1024;

    @Mixin
    private HelpOption help;

    @Spec
    private CommandSpec spec;

    private final PrintStream out;
    private final Terminal terminal;
    private final PrintStream err;
    private String scenario;
    private boolean quick;
    private int rounds;
    private int flows;
    private int seconds;
    private long rate;
    private int kills = -1;
    private Path json;
    private Path report;

    BenchCommand(final PrintStream out, final Terminal terminal, final PrintStream err)
    {
        this.out = out;
        this.terminal = terminal;
        this.err = err;
    }

    @Parameters(paramLabel = "SCENARIO", arity = "0..1", completionCandidates = Scenarios.class, description = {
        "tx: 64-byte UDP frames from 2 CPUs to the null device: xmit, sender-bypass, no-bypass, bulk-1, " +
            "locked-qdisc, akka-naive, aeron-raw (Mpps, bytes allocated per packet, ratios to xmit)",
        "rr: closed-loop request/response over the loop device, one transaction in flight per flow: hash, " +
            "xps-cpus, xps-rxqs (transactions/s, RTT mean and percentiles, cross-CPU hops per transaction, CPU " +
            "share)",
        "all: tx, then rr",
        "trace: tx's xmit beside the same pipeline with tracing configured: a flow filter that matches nothing " +
            "(trace-miss) and 1 in 1,000 sampled (trace-1k)",
        "cluster: an echo service at a fixed request rate, each variant in JVMs of its own: single (one node), " +
            "cluster (an edge and two app nodes over Aeron UDP), aeron-udp (bare ping-pong, the hop's ceiling) " +
            "(replies/s, RTT percentiles, CPU per 1,000 replies over all processes, bytes allocated per request); " +
            "then failover times over --kills SIGKILLs of an app node"})
    void scenario(final String name)
    {
        if (!SCENARIOS.contains(name))
        {
            throw new UsageException("unknown scenario '" + name + "' (expected tx, rr, all, trace or cluster)");
        }
        scenario = name;
    }

    @Option(names = "--quick", description = "short rounds for CI: all in under a minute (default: a few minutes)")
    void quick(final boolean on)
    {
        quick = on;
    }

    @Option(names = "--rounds", paramLabel = "N",
        description = "measured rounds after the warm-up round (default 5, quick 3 for tx and 2 for rr; cluster, whose " +
            "rounds start fresh JVMs and need no warm-up round: default 3, quick 1)")
    void rounds(final String text)
    {
        rounds = Args.intArg("--rounds", text, 1, 100);
    }

    @Option(names = "--flows", paramLabel = "N",
        description = "rr: flows, each with one transaction in flight (default " + RrBench.Options.DEFAULT_FLOWS + ")")
    void flows(final String text)
    {
        flows = Args.intArg("--flows", text, 1, MAX_FLOWS);
    }

    @Option(names = "--seconds", paramLabel = "N",
        description = "cluster: the measured window per variant and round, seconds (default 5, quick 1)")
    void seconds(final String text)
    {
        seconds = Args.intArg("--seconds", text, 1, 600);
    }

    @Option(names = "--rate", paramLabel = "N",
        description = "cluster: requests offered per second (default " + ClusterBench.Options.DEFAULT_RATE +
            ", quick 1000)")
    void rate(final String text)
    {
        rate = Args.intArg("--rate", text, 1, 1_000_000);
    }

    @Option(names = "--kills", paramLabel = "N",
        description = "cluster: app nodes killed (SIGKILL) one after another in the failover phase, each replaced by " +
            "a new incarnation (default " + FailoverPhase.Options.DEFAULT_KILLS + ", quick " +
            FailoverPhase.Options.QUICK_KILLS + "; 0 skips the phase)")
    void kills(final String text)
    {
        kills = Args.intArg("--kills", text, 0, 100);
    }

    @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON")
    void json(final String text)
    {
        json = Args.outputFile("--json", text);
    }

    @Option(names = "--report", paramLabel = "FILE", description = "also write a self-contained HTML report with charts")
    void report(final String text)
    {
        report = Args.outputFile("--report", text);
    }

    /** The scenarios, for the shell completion. */
    static final class Scenarios extends ArrayList<String>
    {
        private static final long serialVersionUID = 1L;

        Scenarios()
        {
            super(SCENARIOS);
        }
    }

    @Override
    public Integer call()
    {
        if (null == scenario)
        {
            throw new UsageException("which scenario: tx, rr, all, trace or cluster (see xmit bench --help)");
        }
        quietLogging();
        if ("cluster".equals(scenario))
        {
            return cluster();
        }
        if (seconds > 0 || rate > 0 || kills >= 0)
        {
            throw new UsageException((seconds > 0 ? "--seconds " + seconds : rate > 0 ? "--rate " + rate :
                "--kills " + kills) + ": only cluster has it");
        }

        final boolean tracing = "trace".equals(scenario);
        final boolean runTx = !"rr".equals(scenario);
        final boolean runRr = "rr".equals(scenario) || "all".equals(scenario);
        if (flows > 0 && !runRr)
        {
            throw new UsageException("--flows " + flows + ": only rr (and all) has flows");
        }
        TxBench.Options tx = quick ? TxBench.Options.QUICK : TxBench.Options.FULL;
        if (tracing)
        {
            tx = new TxBench.Options(tx.rounds(), tx.millis(), TxBench.TRACE_VARIANTS);
        }
        RrBench.Options rr = quick ? RrBench.Options.QUICK : RrBench.Options.FULL;
        if (rounds > 0)
        {
            tx = new TxBench.Options(rounds, tx.millis(), tx.variants());
            rr = rr.withRounds(rounds);
        }
        if (flows > 0)
        {
            rr = rr.withFlows(flows);
        }
        final Provenance provenance = Provenance.of(spec.commandLine().getParseResult().originalArgs());
        out.printf(Locale.ROOT, "xmit bench %s: about %d s; %d CPUs, JDK %s%n", scenario,
            (runTx ? tx.estimatedSeconds() : 0) + (runRr ? rr.estimatedSeconds() : 0), provenance.cpus(),
            provenance.jdk());

        final List<ScenarioResult> results = new ArrayList<>();
        final LiveOutput live = new LiveOutput(out, terminal);
        try
        {
            if (runTx)
            {
                results.add(TxBench.run(tracing ? TxBench.TRACE_SCENARIO : TxBench.SCENARIO, tx, live));
                print(results.getLast(), out, terminal);
            }
            if (runRr)
            {
                results.add(RrBench.run(rr, live));
                print(results.getLast(), out, terminal);
            }
        }
        catch (final IllegalStateException ex)
        {
            live.finish();
            err.println("xmit bench: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        return write(results, provenance);
    }

    /** {@code xmit bench cluster}: its own options, its variants in child JVMs. */
    private int cluster()
    {
        if (flows > 0)
        {
            throw new UsageException("--flows " + flows + ": only rr (and all) has flows");
        }
        ClusterBench.Options options = quick ? ClusterBench.Options.QUICK : ClusterBench.Options.FULL;
        if (rounds > 0)
        {
            options = options.withRounds(rounds);
        }
        if (seconds > 0)
        {
            options = options.withMillis(seconds * 1000L);
        }
        if (rate > 0)
        {
            options = options.withRate(rate);
        }
        final FailoverPhase.Options failover = new FailoverPhase.Options(kills >= 0 ? kills : quick ?
            FailoverPhase.Options.QUICK_KILLS : FailoverPhase.Options.DEFAULT_KILLS, options.rate(), options.flows());
        final Provenance provenance = Provenance.of(spec.commandLine().getParseResult().originalArgs());
        out.printf(Locale.ROOT, "xmit bench cluster: about %d s; %d CPUs, JDK %s%n", options.estimatedSeconds() +
            failover.estimatedSeconds(), provenance.cpus(), provenance.jdk());
        final LiveOutput live = new LiveOutput(out, terminal);
        final List<ScenarioResult> results;
        try
        {
            results = List.of(ClusterBench.run(options, live));
        }
        catch (final IllegalStateException ex)
        {
            live.finish();
            err.println("xmit bench: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        print(results.getFirst(), out, terminal);
        if (0 == failover.kills())
        {
            return write(results, provenance);
        }
        final FailoverResult failoverResult;
        try
        {
            failoverResult = FailoverPhase.run(failover, live);
        }
        catch (final IllegalStateException ex)
        {
            // The rounds' figures stand: written, and the run failed.
            live.finish();
            err.println("xmit bench: failover: " + ex.getMessage());
            write(results, provenance);
            return Main.EXIT_FAILED;
        }
        print(failoverResult, out);
        return write(results, failoverResult, provenance);
    }

    private int write(final List<ScenarioResult> results, final Provenance provenance)
    {
        return write(results, null, provenance);
    }

    /** The --json and --report files, if asked for; {@code failover} the cluster's failover phase, or null. */
    private int write(final List<ScenarioResult> results, final FailoverResult failover, final Provenance provenance)
    {
        try
        {
            if (null != json)
            {
                Files.writeString(json, json(results, "all".equals(scenario), failover, provenance) + "\n",
                    StandardCharsets.UTF_8);
                out.println("JSON written to " + json);
            }
            if (null != report)
            {
                Files.writeString(report, BenchReport.html(results, failover, provenance), StandardCharsets.UTF_8);
                out.println("report written to " + report);
            }
        }
        catch (final IOException ex)
        {
            err.println("xmit bench: cannot write " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        return Main.EXIT_OK;
    }

    /**
     * The summary table: each figure's median with min–max, a variant a row, or a figure a row where that is too wide
     * for the terminal; then the ratios and the targets.
     */
    static void print(final ScenarioResult result, final PrintStream out, final Terminal terminal)
    {
        out.printf(Locale.ROOT, "%n%s — %s%n", result.scenario(), result.setup());
        final List<String> figures = List.copyOf(result.variants().getFirst().figures().keySet());
        final List<List<String>> rows = new ArrayList<>();
        final List<String> header = new ArrayList<>(List.of("variant"));
        header.addAll(figures);
        rows.add(header);
        for (final ScenarioResult.Variant variant : result.variants())
        {
            final List<String> row = new ArrayList<>(List.of(variant.name()));
            for (final String figure : figures)
            {
                row.add(cell(figure, variant.figures().get(figure)));
            }
            rows.add(row);
        }
        List<String> table = Table.lines(rows);
        if (table.getFirst().length() > terminal.columns())
        {
            table = Table.lines(Table.transpose(rows));
        }
        table.forEach(line -> out.println(terminal.fit(line)));
        for (final Map.Entry<String, Stat> ratio : result.ratios().entrySet())
        {
            out.printf(Locale.ROOT, "ratio %-26s %s%n", ratio.getKey(), cell(ratio.getValue()));
        }
        for (final Target target : result.targets())
        {
            if (target.measured())
            {
                out.printf(Locale.ROOT, "target %-30s %-6s (%s)%n", target.rule(), target.status(),
                    format(target.value()));
            }
            else
            {
                out.printf(Locale.ROOT, "target %-30s %s%n", target.rule(), target.status());
            }
        }
    }

    /** The failover phase: each kill, then each figure's median with min–max over the kills whose books balanced. */
    static void print(final FailoverResult failover, final PrintStream out)
    {
        out.printf(Locale.ROOT, "%nfailover — %s%n", failover.setup());
        int k = 0;
        for (final FailoverResult.Kill kill : failover.kills())
        {
            out.printf(Locale.ROOT, "kill %d: failover_ms %s (median flow %s)  removal_ms %s  flows_moved %d  lost " +
                "%d%s%n", ++k, format(kill.failoverMs()), format(kill.failoverMedianMs()), format(kill.removalMs()),
                kill.flowsMoved(), kill.lost(), kill.balanced() ? "" : "  BOOKS DO NOT BALANCE: " + kill.books());
        }
        for (final Map.Entry<String, Stat> figure : failover.summary().entrySet())
        {
            out.printf(Locale.ROOT, "failover %-20s %s%n", figure.getKey(), cell(figure.getValue()));
        }
        if (failover.unbalanced() > 0)
        {
            out.printf(Locale.ROOT, "failover: %d of %d kills left out, their books do not balance%n",
                failover.unbalanced(), failover.kills().size());
        }
    }

    /** {@code median (min–max)}, with as many digits as the figure's size calls for. */
    static String cell(final Stat stat)
    {
        return format(stat.median()) + " (" + format(stat.min()) + "–" + format(stat.max()) + ")";
    }

    /**
     * As {@link #cell(Stat)}; a time in µs ({@code rtt_p99_us}) in the unit its size calls for, named once when the
     * three share it: {@code 2.4 (2.1–3.0) ms}, {@code 850 µs (812 µs–2.4 ms)}.
     */
    static String cell(final String figure, final Stat stat)
    {
        if (!figure.endsWith("_us"))
        {
            return cell(stat);
        }
        final String median = Units.micros(stat.median());
        final String min = Units.micros(stat.min());
        final String max = Units.micros(stat.max());
        // A median that is not a number (a round that measured nothing) has no unit to share.
        final String unit = median.substring(Math.max(0, median.lastIndexOf(' ')));
        if (median.contains(" ") && min.endsWith(unit) && max.endsWith(unit))
        {
            return strip(median, unit) + " (" + strip(min, unit) + "–" + strip(max, unit) + ")" + unit;
        }
        return median + " (" + min + "–" + max + ")";
    }

    private static String strip(final String value, final String unit)
    {
        return value.substring(0, value.length() - unit.length());
    }

    static String format(final double value)
    {
        if (!Double.isFinite(value))
        {
            return "n/a";
        }
        final double magnitude = Math.abs(value);
        if (magnitude > 0 && magnitude < 0.01)
        {
            // A small value that is not 0 (a few bytes allocated over millions of packets) must not print as 0.
            return String.format(Locale.ROOT, "%.1e", value);
        }
        return String.format(Locale.ROOT, magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : "%.2f", value);
    }

    /**
     * One scenario's object; with {@code all}, {@code {provenance…, "scenarios": [tx, rr]}}. Each scenario carries the
     * provenance too, so that one cut out of {@code all} still says where it comes from.
     */
    static String json(final List<ScenarioResult> results, final boolean all, final Provenance provenance)
    {
        return json(results, all, null, provenance);
    }

    /** As {@link #json(List, boolean, Provenance)}, the cluster's object with a {@code failover} section, if any. */
    static String json(final List<ScenarioResult> results, final boolean all, final FailoverResult failover,
        final Provenance provenance)
    {
        final Json json = new Json();
        if (all)
        {
            provenance(json.object(), provenance).array("scenarios");
            for (final ScenarioResult result : results)
            {
                scenario(json.object(), result, provenance).endObject();
            }
            return json.endArray().endObject().toString();
        }
        scenario(json.object(), results.getFirst(), provenance);
        if (null != failover)
        {
            failover(json, failover);
        }
        return json.endObject().toString();
    }

    /**
     * {@code "failover": {"setup", "kills": [{failover_ms, failover_median_ms, removal_ms, flows_moved, lost, balanced,
     * books}], "unbalanced", "summary": {figure: stat over the balanced kills}}}.
     */
    private static void failover(final Json json, final FailoverResult failover)
    {
        json.object("failover").field("setup", failover.setup()).array("kills");
        for (final FailoverResult.Kill kill : failover.kills())
        {
            json.object().field("failover_ms", kill.failoverMs()).field("failover_median_ms", kill.failoverMedianMs())
                .field("removal_ms", kill.removalMs()).field("flows_moved", kill.flowsMoved())
                .field("lost", kill.lost()).field("balanced", kill.balanced()).field("books", kill.books())
                .endObject();
        }
        json.endArray().field("unbalanced", failover.unbalanced()).object("summary");
        for (final Map.Entry<String, Stat> figure : failover.summary().entrySet())
        {
            stat(json, figure.getKey(), figure.getValue());
        }
        json.endObject().endObject();
    }

    private static Json provenance(final Json json, final Provenance provenance)
    {
        return json.field("date", provenance.date()).field("commit", provenance.commit())
            .field("cpu", provenance.cpu()).field("cpus", provenance.cpus()).field("jdk", provenance.jdk())
            .field("command", provenance.command());
    }

    private static Json scenario(final Json json, final ScenarioResult result, final Provenance provenance)
    {
        provenance(json.field("scenario", result.scenario()), provenance).field("setup", result.setup())
            .field("rounds", result.rounds()).array("variants");
        for (final ScenarioResult.Variant variant : result.variants())
        {
            json.object().field("name", variant.name());
            for (final Map.Entry<String, Stat> figure : variant.figures().entrySet())
            {
                stat(json, figure.getKey(), figure.getValue());
            }
            if (!variant.curve().isEmpty())
            {
                json.array("rtt_percentiles_us");
                for (final double[] point : variant.curve())
                {
                    json.object().field("percentile", point[0]).field("us", point[1]).endObject();
                }
                json.endArray();
            }
            json.endObject();
        }
        json.endArray().object("ratios");
        for (final Map.Entry<String, Stat> ratio : result.ratios().entrySet())
        {
            stat(json, ratio.getKey(), ratio.getValue());
        }
        json.endObject().array("targets");
        for (final Target target : result.targets())
        {
            json.object().field("figure", target.figure()).field("rule", target.rule())
                .field("value", target.value()).field("met", target.met()).field("status", target.status())
                .endObject();
        }
        return json.endArray();
    }

    /** {@code {"median": …, "min": …, "max": …, "rounds": [each round's value, in the order they ran]}}. */
    private static void stat(final Json json, final String name, final Stat stat)
    {
        json.object(name).field("median", stat.median()).field("min", stat.min()).field("max", stat.max())
            .array("rounds");
        for (final double round : stat.rounds())
        {
            json.value(round);
        }
        json.endArray().endObject();
    }

    /** Akka and the pipeline log warnings only; the bench's own lines go to stdout. */
    private static void quietLogging()
    {
        final Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback)
        {
            logback.setLevel(Level.WARN);
        }
    }
}
