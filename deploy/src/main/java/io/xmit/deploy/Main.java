package io.xmit.deploy;

import io.xmit.deploy.cluster.ClusterCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The {@code xmit} command line: one picocli definition of every command gives {@code --opt=value}, {@code help
 * COMMAND}, {@code --version}, suggestions for a misspelt option and the shell completion script. A bad argument is
 * one line, {@code xmit COMMAND: …} naming the option and the value, and exit code 2.
 */
@Command(name = "xmit", versionProvider = Version.class,
    synopsisSubcommandLabel = "COMMAND",
    description = "A multi-queue packet pipeline: Linux's transmit path as actors over Aeron rings.",
    footer = "`xmit help COMMAND` or `xmit COMMAND --help` shows a command's options.")
public final class Main implements Callable<Integer>
{
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    /** Help text piped or redirected is laid out for this many columns, so docs/cli.md can hold it as printed. */
    static final int HELP_WIDTH = 120;
    /** On a terminal help fits its width, but no narrower than this (picocli's narrowest layout). */
    static final int MIN_HELP_WIDTH = 55;

    @Spec
    private CommandSpec spec;

    @Mixin
    private HelpOption help;

    @Option(names = {"-V", "--version"}, versionHelp = true,
        description = "print the version, the commit it was built from and the Java version, and exit")
    private boolean version;

    private final PrintStream err;

    private Main(final PrintStream err)
    {
        this.err = err;
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err, Terminal.detect(System.getenv())));
    }

    /** Runs one command; returns the process exit code. Separate from {@link #main} so tests can call it. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, Terminal.PIPED);
    }

    /** Runs one command whose {@code out} is {@code terminal}; returns the process exit code. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err, final Terminal terminal)
    {
        return commandLine(out, err, terminal).execute(args);
    }

    /** Every command, writing to {@code out} (on {@code terminal}) and {@code err}, its errors made one line. */
    static CommandLine commandLine(final PrintStream out, final PrintStream err, final Terminal terminal)
    {
        final CommandLine line = new CommandLine(new Main(err))
            .addSubcommand(new CommandLine(new BenchCommand(out, terminal, err))
                .addSubcommand(new BenchCompareCommand(out)))
            .addSubcommand(ClusterCommand.commandLine(out, err))
            .addSubcommand(new CompletionCommand(out))
            .addSubcommand(new ExplainCommand(out, err))
            .addSubcommand(new ManPageCommand(out))
            .addSubcommand(new RunCommand(out, terminal, err))
            .addSubcommand(new StatCommand(out, terminal, err))
            .addSubcommand(new CommandLine(new TraceCommand(err)).addSubcommand(new TraceCommand.Show(out, err)))
            .addSubcommand(new TestCommand())
            .addSubcommand(new CommandLine.HelpCommand());
        line.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        line.setOverwrittenOptionsAllowed(true);
        // An argument starting with @ is a value (a file name, a pipeline name), never a file of arguments to read.
        line.setExpandAtFiles(false);
        // Picocli's own help command, described as the others are.
        line.getSubcommands().get("help").getCommandSpec().usageMessage()
            .header("a command's options, as `xmit COMMAND --help` shows them: `xmit help COMMAND`");
        line.setUsageHelpWidth(helpWidth(terminal));
        line.setParameterExceptionHandler((ex, args) ->
        {
            err.println(line(ex));
            return EXIT_USAGE;
        });
        line.setExecutionExceptionHandler((ex, command, result) ->
        {
            if (ex instanceof UsageException usage)
            {
                err.println(command.getCommandSpec().qualifiedName(" ") + ": " + usage.getMessage());
                return EXIT_USAGE;
            }
            throw ex;
        });
        return line;
    }

    /** The terminal's width, not below {@link #MIN_HELP_WIDTH}; {@link #HELP_WIDTH} when piped. */
    static int helpWidth(final Terminal terminal)
    {
        return terminal.interactive() ? Math.max(MIN_HELP_WIDTH, terminal.columns()) : HELP_WIDTH;
    }

    /** No command: the overview, on stderr, as a usage error. */
    @Override
    public Integer call()
    {
        err.print(spec.commandLine().getUsageMessage());
        err.flush();
        return EXIT_USAGE;
    }

    /**
     * The one line for a bad argument, {@code xmit COMMAND: …}: the command's own words where it checked the value,
     * else picocli's, reworded; an unknown command names itself in place of the command ({@code xmit nope: …}).
     */
    private static String line(final ParameterException ex)
    {
        final CommandSpec spec = ex.getCommandLine().getCommandSpec();
        final String command = spec.qualifiedName(" ");
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty() &&
            !unmatched.getUnmatched().getFirst().startsWith("-") && !spec.subcommands().isEmpty() &&
            spec.positionalParameters().isEmpty())
        {
            final String arg = unmatched.getUnmatched().getFirst();
            return command + " " + arg + ": unknown command '" + arg + "' (expected " +
                String.join(", ", commands(spec)) + ")" + guess(unmatched);
        }
        return command + ": " + message(ex, spec);
    }

    private static String message(final ParameterException ex, final CommandSpec spec)
    {
        if (ex.getCause() instanceof UsageException usage)
        {
            return usage.getMessage();
        }
        final String help = " (see " + spec.qualifiedName(" ") + " --help)";
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty())
        {
            final String arg = unmatched.getUnmatched().getFirst();
            if (arg.startsWith("-"))
            {
                final int eq = arg.indexOf('=');
                return "unknown option '" + (eq < 0 ? arg : arg.substring(0, eq)) + "'" + guess(unmatched) + help;
            }
            return "unexpected argument '" + arg + "'" + help;
        }
        if (ex instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty())
        {
            final ArgSpec arg = missing.getMissing().getFirst();
            return arg instanceof OptionSpec option ? option.longestName() + " needs a value" :
                spec.name() + " needs " + arg.paramLabel();
        }
        return ex.getMessage();
    }

    /** Picocli's suggestions for a misspelt option or command, as a question; empty when it has none. */
    private static String guess(final CommandLine.UnmatchedArgumentException unmatched)
    {
        final List<String> suggestions = unmatched.getSuggestions();
        return suggestions.isEmpty() ? "" : "; did you mean " + String.join(" or ", suggestions) + "?";
    }

    private static List<String> commands(final CommandSpec spec)
    {
        return spec.subcommands().entrySet().stream()
            .filter(entry -> !entry.getValue().getCommandSpec().usageMessage().hidden())
            .map(Map.Entry::getKey).sorted().toList();
    }

    /** {@code xmit test}: listed so the overview names it, but the launcher runs it, never the jar. */
    @Command(name = "test", description = "all tests, with what they need: `./xmit test [maven args]` (the launcher " +
        "runs it, not the jar)")
    static final class TestCommand implements Callable<Integer>
    {
        @CommandLine.Unmatched
        private List<String> mavenArgs;

        @Override
        public Integer call()
        {
            throw new UsageException(
                "the tests are run by the ./xmit launcher from a source tree (./xmit test), not by the jar");
        }
    }
}
