package io.xmit.deploy;

import ch.qos.logback.classic.Level;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.trace.TraceSelector;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code xmit run}: the main job, the {@link RunScenario built-in scenario} on its embedded configuration (deploy's
 * {@code run.conf} over the actors module's {@code reference.conf}), changed by the application's configuration, a
 * file, {@code --set} and the shortcut options, all checked before anything starts.
 */
final class RunCommand
{
    private static final String HELP = """
        usage: xmit run [options]
          --config FILE      a HOCON file, xmit { … } (every key: actors/src/main/resources/reference.conf)
          --set KEY=VALUE    override one key (under xmit; the xmit. prefix is optional); repeatable, the last wins
          --duration D       how long, e.g. 10s, 2m, or plain seconds (default 10s; xmit.run.duration)
          --rate N           requests per second offered (default 50000; xmit.run.rate)
          --flows N          client flows, each a connected socket (default 256; xmit.run.flows)
          --cpus N           xmit CPUs (default 2; xmit.cpus)
          --xps MODE         none | cpus | rxqs (default rxqs; xmit.xps.preset)
          --spin N           empty polls a queue actor spins before it sleeps (default 256; xmit.spin-polls)
          --trace SPEC       trace packets: sample=N (1 in N), flow=udp:SRC:SPORT-DST:DPORT (* for any part),
                             socket=ID, comma-separated or repeated (xmit.trace.sample, .flow, .socket)
          --trace-file FILE  write the traced packets to a pcapng file (xmit.trace.file); see xmit trace show
          --json FILE        also write the summary as JSON to FILE
          --verbose          debug logging
        Ctrl-C stops the load, waits for the replies in flight, stops the pipeline and prints the summary.""";

    private RunCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        Path file = null;
        Path json = null;
        boolean verbose = false;
        final List<String> overrides = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            switch (arg)
            {
                case "--help", "-h" ->
                {
                    out.println(HELP);
                    return Main.EXIT_OK;
                }
                case "--config" -> file = Path.of(Args.value(args, ++i, arg));
                case "--set" -> overrides.add(Args.value(args, ++i, arg));
                case "--json" -> json = Args.outputFile(arg, Args.value(args, ++i, arg));
                case "--verbose", "-v" -> verbose = true;
                case "--duration" -> overrides.add("xmit.run.duration=" + duration(Args.value(args, ++i, arg)));
                case "--rate" -> overrides.add("xmit.run.rate=" +
                    Args.intArg(arg, Args.value(args, ++i, arg), 1, 100_000_000));
                case "--flows" -> overrides.add("xmit.run.flows=" + Args.intArg(arg, Args.value(args, ++i, arg), 1, 4096));
                case "--cpus" -> overrides.add("xmit.cpus=" + Args.intArg(arg, Args.value(args, ++i, arg), 1, 256));
                case "--spin" -> overrides.add("xmit.spin-polls=" +
                    Args.intArg(arg, Args.value(args, ++i, arg), 0, 1 << 24));
                case "--trace" -> overrides.addAll(trace(Args.value(args, ++i, arg)));
                case "--trace-file" -> overrides.add("xmit.trace.file=" + quoted(Args.value(args, ++i, arg)));
                case "--xps" ->
                {
                    final String mode = Args.value(args, ++i, arg);
                    try
                    {
                        overrides.add("xmit.xps.preset=" + XpsPreset.of("--xps", mode).label());
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new UsageException(ex.getMessage());
                    }
                }
                default -> throw new UsageException("unknown option '" + arg + "' (see xmit run --help)");
            }
        }
        setLogLevel(verbose);
        return new RunScenario(Settings.load(file, overrides), verbose, json, out, err).run();
    }

    /** {@code --trace} terms as configuration overrides, checked here so a bad one names the option. */
    private static List<String> trace(final String spec)
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

    /** {@code 10} is ten seconds here (HOCON would read a bare number as milliseconds); {@code 2m} is HOCON's. */
    private static String duration(final String text)
    {
        if (text.matches("\\d{1,9}"))
        {
            return text + "s";
        }
        try
        {
            ConfigFactory.parseString("d = \"" + text.replace("\"", "") + "\"").getDuration("d");
            return text;
        }
        catch (final ConfigException ex)
        {
            throw new UsageException("--duration '" + text + "': not a duration, e.g. 10s, 90s or 2m");
        }
    }

    private static void setLogLevel(final boolean verbose)
    {
        final Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback)
        {
            logback.setLevel(verbose ? Level.DEBUG : Level.WARN);
        }
    }
}
