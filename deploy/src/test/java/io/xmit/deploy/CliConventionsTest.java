package io.xmit.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line's conventions, the same for every command: {@code --opt=value}, {@code --version} with the
 * commit, {@code help COMMAND}, a suggestion for a misspelt option, the bash completion script, and docs/cli.md
 * holding each command's help as printed.
 */
class CliConventionsTest
{
    private static final String FLOW = "udp:10.0.0.1:5000-10.0.0.2:11211";
    /** Tests run with the module's directory as the working directory. */
    private static final Path CLI_DOC = Path.of("../docs/cli.md");

    @TempDir
    Path dir;

    @Test
    void anOptionTakesItsValueAfterAnEqualsSignToo()
    {
        final RunCommandTest.Result spaced = xmit("explain", "--tx-queues", "8", "--xps-rxqs", "3=08", "--rx-queue",
            "3", "--flow", FLOW, "--json");
        final RunCommandTest.Result joined = xmit("explain", "--tx-queues=8", "--xps-rxqs=3=08", "--rx-queue=3",
            "--flow=" + FLOW, "--json");
        assertEquals(Main.EXIT_OK, joined.code(), joined.err());
        assertEquals("{\"txq\":3,\"via\":\"xps-rxqs\",\"hash\":3462892366}\n", joined.out());
        assertEquals(spaced, joined);
        final RunCommandTest.Result bad = xmit("explain", "--tx-queues=0", "--flow=" + FLOW);
        assertEquals("xmit explain: --tx-queues 0: must be in 1..65535\n", bad.err());
    }

    @Test
    void versionNamesTheBuildAndItsCommit()
    {
        final RunCommandTest.Result version = xmit("--version");
        assertEquals(Main.EXIT_OK, version.code(), version.err());
        // The commit is git's (12 hex digits) when built from a clone, "unknown" when built without git history.
        assertTrue(version.out().matches("xmit \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{12}|unknown)\\), " +
            "Java " + Pattern.quote(Runtime.version().toString()) + "\n"), version.out());
        assertEquals(version.out(), Version.line() + "\n");
    }

    @Test
    void helpCommandShowsThatCommandsOptions()
    {
        for (final String command : List.of("run", "stat", "explain", "bench", "trace", "completion", "man", "cluster"))
        {
            final RunCommandTest.Result help = xmit("help", command);
            assertEquals(Main.EXIT_OK, help.code(), help.err());
            assertTrue(help.out().startsWith("Usage: xmit " + command + " "), help.out());
            assertEquals(xmit(command, "--help"), help);
        }
        assertTrue(xmit("help", "stat").out().contains("--prometheus=[HOST:]PORT"));
    }

    @Test
    void aMisspeltOptionOrCommandGetsASuggestion()
    {
        assertEquals(new RunCommandTest.Result(Main.EXIT_USAGE, "",
            "xmit run: unknown option '--flow'; did you mean --flows? (see xmit run --help)\n"), xmit("run", "--flow", "3"));
        assertEquals(new RunCommandTest.Result(Main.EXIT_USAGE, "",
            "xmit stat: unknown option '--intervall'; did you mean --interval? (see xmit stat --help)\n"),
            xmit("stat", "--intervall=2"));
        assertEquals(new RunCommandTest.Result(Main.EXIT_USAGE, "", "xmit stats: unknown command 'stats' (expected " +
            "bench, cluster, completion, explain, help, man, run, stat, test, trace); did you mean stat or test or " +
            "cluster?\n"), xmit("stats"));
    }

    /**
     * The manual page is roff holding every command, subcommand and option of the parser's own definition, and no
     * line the formatter would take for a request it does not know.
     */
    @Test
    void theManualPageHoldsEveryCommandAndOption()
    {
        final RunCommandTest.Result man = xmit("man");
        assertEquals(Main.EXIT_OK, man.code(), man.err());
        final String page = man.out();
        assertTrue(page.startsWith(".TH XMIT 1 \"\" \"xmit "), page);
        final List<CommandLine.Model.CommandSpec> commands = new ArrayList<>();
        collect(Main.commandLine(System.out, System.err, Terminal.PIPED).getCommandSpec(), commands);
        assertEquals(16, commands.size(), "commands and subcommands, root included");
        for (final CommandLine.Model.CommandSpec command : commands.subList(1, commands.size()))
        {
            assertTrue(page.contains("\n.SS " + ManPageCommand.text(command.qualifiedName()) + "\n"),
                command.qualifiedName());
            for (final CommandLine.Model.OptionSpec option : command.options())
            {
                for (final String name : option.hidden() ? new String[0] : option.names())
                {
                    assertTrue(page.contains(ManPageCommand.text(name)), command.qualifiedName() + " " + name);
                }
            }
        }
        for (final String line : page.split("\n"))
        {
            assertTrue(!line.contains("%n"), line);
            if (line.startsWith(".") || line.startsWith("'"))
            {
                assertTrue(ManPageCommand.REQUESTS.contains(line.split(" ", 2)[0]), line);
            }
        }
        assertEquals("\\&.conf \\e\\-x", ManPageCommand.text(".conf \\-x"));
    }

    private static void collect(final CommandLine.Model.CommandSpec command,
        final List<CommandLine.Model.CommandSpec> into)
    {
        into.add(command);
        for (final CommandLine sub : command.subcommands().values())
        {
            collect(sub.getCommandSpec(), into);
        }
    }

    /** The script bash sources, asked as bash asks it while one presses Tab. */
    @Test
    void theCompletionScriptCompletesCommandsOptionsAndValuesInBash() throws Exception
    {
        final RunCommandTest.Result completion = xmit("completion");
        assertEquals(Main.EXIT_OK, completion.code(), completion.err());
        final Path script = dir.resolve("xmit.bash");
        Files.writeString(script, completion.out());
        assertEquals(List.of("stat"), complete(script, "xmit", "st"));
        assertEquals(List.of("--flows"), complete(script, "xmit", "run", "--fl"));
        assertEquals(List.of("--prometheus"), complete(script, "xmit", "stat", "--prom"));
        assertEquals(List.of("none", "cpus", "rxqs"), complete(script, "xmit", "run", "--xps", ""));
        assertEquals(List.of("compare", "tx", "rr", "all", "trace", "cluster"), complete(script, "xmit", "bench", ""));
    }

    /** What the script offers for the last of {@code words}: bash's COMPREPLY, a word a line. */
    private static List<String> complete(final Path script, final String... words) throws IOException,
        InterruptedException
    {
        final List<String> quoted = new ArrayList<>();
        for (final String word : words)
        {
            quoted.add("'" + word + "'");
        }
        final String line = String.join(" ", words);
        final Process bash = new ProcessBuilder("bash", "-c", "source '" + script + "'; COMP_WORDS=(" +
            String.join(" ", quoted) + "); COMP_CWORD=" + (words.length - 1) + "; COMP_LINE='" + line +
            "'; COMP_POINT=" + line.length() + "; _complete_xmit; printf '%s\\n' \"${COMPREPLY[@]}\"")
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not end");
        assertEquals(0, bash.exitValue(), out);
        return out.lines().map(String::strip).filter(word -> !word.isEmpty()).toList();
    }

    /**
     * On a terminal every command's help fits its width (80 or 200 columns), down to a floor of 55, with every
     * character of the help piped, which stays at 120 columns as docs/cli.md has it.
     */
    @Test
    void helpFollowsTheTerminalsWidth()
    {
        for (final List<String> args : helpOfEveryCommand())
        {
            final String piped = xmit(args.toArray(String[]::new)).out();
            for (final int width : new int[] {80, 200, 40})
            {
                final RunCommandTest.Result help = xmit(new Terminal(true, width), args.toArray(String[]::new));
                assertEquals(Main.EXIT_OK, help.code(), help.err());
                final int fits = Math.max(width, Main.MIN_HELP_WIDTH);
                assertEquals(List.of(), help.out().lines().filter(line -> line.length() > fits).toList(),
                    String.join(" ", args) + " at " + width + " columns");
                assertEquals(words(piped), words(help.out()), String.join(" ", args) + " at " + width + " columns");
            }
        }
        assertTrue(xmit(new Terminal(true, 200), "run", "--help").out().lines().anyMatch(line -> line.length() > 120),
            "at 200 columns the help is laid out wider than 120");
    }

    /** The help's text without its white space: the same wherever its lines were broken (picocli breaks at '('). */
    private static String words(final String help)
    {
        return help.replaceAll("\\s+", "");
    }

    /**
     * docs/cli.md is xmit's manual page: each command's help, exactly as printed piped (laid out for a fixed width,
     * so it is the same on every machine). A command or option changed and not the doc fails here.
     */
    @Test
    void theCliDocHoldsEveryCommandsHelpAsPrinted() throws IOException
    {
        final String doc = Files.readString(CLI_DOC);
        for (final List<String> args : helpOfEveryCommand())
        {
            final RunCommandTest.Result help = xmit(args.toArray(String[]::new));
            assertEquals(Main.EXIT_OK, help.code(), help.err());
            final String heading = "## `" + String.join(" ", prefixed(args.subList(0, args.size() - 1))) + "`";
            assertTrue(doc.contains(heading + "\n\n```text\n" + help.out() + "```\n"),
                () -> CLI_DOC + " lacks, or has another text under, " + heading + ": the output of `./xmit " +
                    String.join(" ", args) + "`, in a ```text block right after it:\n" + help.out());
        }
    }

    /** {@code --help} of xmit and of each command below it, as arguments: {@code [--help]}, {@code [run, --help]}. */
    private static List<List<String>> helpOfEveryCommand()
    {
        final List<List<String>> commands = new ArrayList<>();
        commands.add(List.of());
        collect(Main.commandLine(System.out, System.err, Terminal.PIPED), List.of(), commands);
        final List<List<String>> help = new ArrayList<>();
        for (final List<String> command : commands)
        {
            final List<String> args = new ArrayList<>(command);
            args.add("--help");
            help.add(args);
        }
        return help;
    }

    /** Every command below {@code line}, as the words that name it, help and test left out (they have no options). */
    private static void collect(final CommandLine line, final List<String> above, final List<List<String>> commands)
    {
        for (final var entry : line.getSubcommands().entrySet())
        {
            if (List.of("help", "test").contains(entry.getKey()))
            {
                continue;
            }
            final List<String> words = new ArrayList<>(above);
            words.add(entry.getKey());
            commands.add(words);
            collect(entry.getValue(), words, commands);
        }
    }

    private static List<String> prefixed(final List<String> command)
    {
        final List<String> words = new ArrayList<>();
        words.add("xmit");
        words.addAll(command);
        return words;
    }
}
