package io.xmit.deploy;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code xmit man}: the manual page, in roff for {@code man}, generated from the same picocli definition as the
 * parser, the help and the completion script, so it cannot fall behind: every command and subcommand with its
 * synopsis, description, parameters and options.
 */
@Command(name = "man", description = "print xmit's manual page (roff): `./xmit man > xmit.1 && man -l xmit.1`, or " +
    "install it as /usr/local/share/man/man1/xmit.1")
final class ManPageCommand implements Callable<Integer>
{
    /** The roff requests the page uses; any other line that starts with a dot or a quote is text, escaped. */
    static final List<String> REQUESTS = List.of(".TH", ".SH", ".SS", ".TP", ".PP", ".B", ".br", ".nf", ".fi");

    @Mixin
    private HelpOption help;

    @Spec
    private CommandSpec spec;

    private final PrintStream out;

    ManPageCommand(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public Integer call()
    {
        out.print(page(spec.root()));
        out.flush();
        return Main.EXIT_OK;
    }

    /** The whole page of {@code root} and its subcommands. */
    static String page(final CommandSpec root)
    {
        final StringBuilder page = new StringBuilder();
        page.append(".TH XMIT 1 \"\" \"").append(text(Version.line())).append("\" \"xmit manual\"\n");
        page.append(".SH NAME\n").append(root.name()).append(" \\- ")
            .append(lines(root.usageMessage().description())).append('\n');
        page.append(".SH SYNOPSIS\n");
        synopsis(page, root);
        page.append(".SH COMMANDS\n");
        for (final CommandLine sub : root.subcommands().values())
        {
            command(page, sub.getCommandSpec());
        }
        page.append(".SH SEE ALSO\n")
            .append("The README and docs/ in xmit's source: running.md (settings and counters), cli.md (this page as ")
            .append("help text), tracing.md, benchmarks.md, cluster.md, embedding.md, deploying.md.\n");
        return page.toString();
    }

    private static void command(final StringBuilder page, final CommandSpec command)
    {
        page.append(".SS ").append(text(command.qualifiedName())).append('\n');
        synopsis(page, command);
        final String[] description = command.usageMessage().description().length > 0 ?
            command.usageMessage().description() : command.usageMessage().header();
        page.append(".PP\n").append(lines(description)).append('\n');
        for (final PositionalParamSpec parameter : command.positionalParameters())
        {
            page.append(".TP\n.B ").append(text(parameter.paramLabel())).append('\n')
                .append(lines(parameter.description())).append('\n');
        }
        for (final OptionSpec option : command.options())
        {
            if (option.hidden())
            {
                continue;
            }
            page.append(".TP\n.B ").append(text(String.join(", ", option.names())));
            if (option.arity().max() > 0)
            {
                page.append(' ').append(text(option.paramLabel()));
            }
            page.append('\n').append(lines(option.description())).append('\n');
        }
        for (final CommandLine sub : command.subcommands().values())
        {
            command(page, sub.getCommandSpec());
        }
    }

    private static void synopsis(final StringBuilder page, final CommandSpec command)
    {
        final String synopsis = new Help(command, Help.defaultColorScheme(Ansi.OFF)).synopsis(0).strip();
        page.append(".PP\n.nf\n").append(text(synopsis)).append("\n.fi\n");
    }

    /** A description's lines (picocli's {@code %n} included), each a line of its own as the help shows it. */
    private static String lines(final String[] description)
    {
        final StringBuilder joined = new StringBuilder();
        for (final String line : String.join("%n", description).split("%n"))
        {
            if (!line.isBlank())
            {
                joined.append(joined.isEmpty() ? "" : "\n.br\n").append(text(line));
            }
        }
        return joined.toString();
    }

    /**
     * Text made safe for roff: a backslash is written {@code \e}, a hyphen {@code \-} (so options copy and search as
     * typed), and a line that would start with a dot or a quote starts with the zero-width {@code \&}.
     */
    static String text(final String raw)
    {
        final StringBuilder escaped = new StringBuilder(raw.length() + 16);
        boolean lineStart = true;
        for (int i = 0; i < raw.length(); i++)
        {
            final char c = raw.charAt(i);
            if (lineStart && ('.' == c || '\'' == c))
            {
                escaped.append("\\&");
            }
            switch (c)
            {
                case '\\' -> escaped.append("\\e");
                case '-' -> escaped.append("\\-");
                default -> escaped.append(c);
            }
            lineStart = '\n' == c;
        }
        return escaped.toString();
    }
}
