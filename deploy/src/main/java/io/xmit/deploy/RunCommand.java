package io.xmit.deploy;

import ch.qos.logback.classic.Level;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.actors.trace.Tracer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code xmit run}: the main job, the {@link RunScenario built-in scenario} on its embedded configuration (deploy's
 * {@code run.conf} over the actors module's {@code reference.conf}), changed by the application's configuration, a
 * file, {@code --set} and the shortcut options, all checked before anything starts.
 */
@Command(name = "run",
    description = "the main job: a request/response service over the built-in loop device",
    footer = "Ctrl-C stops the load, waits for the replies in flight, stops the pipeline and prints the summary.")
final class RunCommand implements Callable<Integer>
{
    @Mixin
    private HelpOption help;

    private final PrintStream out;
    private final Terminal terminal;
    private final PrintStream err;
    private Path file;
    private Path json;
    private boolean verbose;
    /** --set and the shortcut options as overrides, in the order given: the last wins. */
    private final List<String> overrides = new ArrayList<>();

    RunCommand(final PrintStream out, final Terminal terminal, final PrintStream err)
    {
        this.terminal = terminal;
        this.out = out;
        this.err = err;
    }

    @Option(names = "--config", paramLabel = "FILE",
        description = "a HOCON file, xmit { … } (every key: actors/src/main/resources/reference.conf)")
    void config(final String text)
    {
        file = Path.of(text);
    }

    @Option(names = "--set", paramLabel = "KEY=VALUE",
        description = "override one key (under xmit; the xmit. prefix is optional); repeatable, the last wins")
    void set(final String pair)
    {
        overrides.add(pair);
    }

    @Option(names = "--duration", paramLabel = "D",
        description = "how long, e.g. 10s, 2m, or plain seconds (default 10s; xmit.run.duration)")
    void duration(final String text)
    {
        overrides.add("xmit.run.duration=" + durationOverride("--duration", text, "s", "10s, 90s or 2m"));
    }

    @Option(names = "--rate", paramLabel = "N", description = "requests per second offered (default 50000; xmit.run.rate)")
    void rate(final String text)
    {
        overrides.add("xmit.run.rate=" + Args.intArg("--rate", text, 1, 100_000_000));
    }

    @Option(names = "--flows", paramLabel = "N",
        description = "client flows, each a connected socket (default 256; xmit.run.flows)")
    void flows(final String text)
    {
        overrides.add("xmit.run.flows=" + Args.intArg("--flows", text, 1, 4096));
    }

    @Option(names = "--cpus", paramLabel = "N", description = "xmit CPUs (default 2; xmit.cpus)")
    void cpus(final String text)
    {
        overrides.add("xmit.cpus=" + Args.intArg("--cpus", text, 1, 256));
    }

    @Option(names = "--xps", paramLabel = "MODE", completionCandidates = XpsModes.class,
        description = "none | cpus | rxqs (default rxqs; xmit.xps.preset)")
    void xps(final String mode)
    {
        try
        {
            overrides.add("xmit.xps.preset=" + XpsPreset.of("--xps", mode).label());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
    }

    @Option(names = "--spin", paramLabel = "N",
        description = "empty polls a queue actor spins before it sleeps (default 256; xmit.spin-polls)")
    void spin(final String text)
    {
        overrides.add("xmit.spin-polls=" + Args.intArg("--spin", text, 0, 1 << 24));
    }

    @Option(names = "--busy-poll", paramLabel = "D",
        description = "sockets busy-poll their channel up to D, e.g. 50us or plain µs (default off; xmit.busy-poll)")
    void busyPoll(final String text)
    {
        overrides.add("xmit.busy-poll=" + durationOverride("--busy-poll", text, "us", "50us or plain µs"));
    }

    @Option(names = "--trace", paramLabel = "SPEC", description = "trace packets: sample=N (1 in N), " +
        "flow=udp:SRC:SPORT-DST:DPORT (* for any part), socket=ID, comma-separated or repeated (xmit.trace.sample, " +
        ".flow, .socket)")
    void trace(final String spec)
    {
        overrides.addAll(traceOverrides(spec));
    }

    @Option(names = "--trace-file", paramLabel = "FILE",
        description = "write the traced packets to a pcapng file (xmit.trace.file); see xmit trace show")
    void traceFile(final String text)
    {
        overrides.add("xmit.trace.file=" + quoted(text));
    }

    @Option(names = "--json", paramLabel = "FILE", description = "also write the summary as JSON to FILE")
    void json(final String text)
    {
        json = Args.outputFile("--json", text);
    }

    @Option(names = {"-v", "--verbose"}, description = "debug logging")
    void verbose(final boolean on)
    {
        verbose = on;
    }

    @Override
    public Integer call()
    {
        final Settings settings = Settings.load(file, overrides);
        final TraceConfig trace = settings.pipeline().trace();
        setLogLevels(verbose, trace.selector().active() && trace.file().isEmpty());
        for (final String warning : settings.warnings(Runtime.getRuntime().availableProcessors()))
        {
            err.println("xmit run: warning: " + warning);
        }
        return new RunScenario(settings, verbose, json, out, terminal, err).run();
    }

    /** The values --xps takes, for the shell completion. */
    static final class XpsModes extends ArrayList<String>
    {
        private static final long serialVersionUID = 1L;

        XpsModes()
        {
            super(List.of("none", "cpus", "rxqs"));
        }
    }

    /** {@code --trace} terms as configuration overrides, checked here so a bad one names the option. */
    private static List<String> traceOverrides(final String spec)
    {
        final TraceSelector selector;
        try
        {
            selector = TraceSelector.parse(spec);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException("--trace '" + spec + "': " + ex.getMessage());
        }
        if (!selector.active())
        {
            return List.of("xmit.trace.sample=0", "xmit.trace.flow=\"\"", "xmit.trace.socket=-1");
        }
        final List<String> overrides = new ArrayList<>();
        for (final String term : spec.split(","))
        {
            final int eq = term.indexOf('=');
            overrides.add("xmit.trace." + term.substring(0, eq).strip() + "=" + quoted(term.substring(eq + 1).strip()));
        }
        return overrides;
    }

    private static String quoted(final String text)
    {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * A duration option's override: plain digits count in {@code plainUnit} (HOCON would read a bare number as
     * milliseconds), e.g. {@code --duration 10} is ten seconds and {@code --busy-poll 50} fifty µs; {@code 2m} is
     * HOCON's.
     */
    private static String durationOverride(final String option, final String text, final String plainUnit,
        final String examples)
    {
        if (text.matches("\\d{1,9}"))
        {
            return text + plainUnit;
        }
        try
        {
            ConfigFactory.parseString("d = \"" + text.replace("\"", "") + "\"").getDuration("d");
            return text;
        }
        catch (final ConfigException ex)
        {
            throw new UsageException(option + " '" + text + "': not a duration, e.g. " + examples);
        }
    }

    /**
     * WARN, or DEBUG with {@code --verbose}. Tracing without a trace file has only the log to show its events, so
     * {@code xmit.trace} logs INFO then; otherwise it follows the root again (an earlier run in this process may have
     * set it).
     */
    private static void setLogLevels(final boolean verbose, final boolean traceLog)
    {
        if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root)
        {
            root.setLevel(verbose ? Level.DEBUG : Level.WARN);
        }
        if (LoggerFactory.getLogger(Tracer.LOG) instanceof ch.qos.logback.classic.Logger trace)
        {
            trace.setLevel(traceLog ? Level.INFO : null);
        }
    }
}
