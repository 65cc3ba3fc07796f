package io.xmit.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a bench's figures come from, written into {@code --json} and {@code --report} so that two files can be told
 * apart and a run repeated: the commit xmit was built from, the machine's CPU, the JDK, the command and when it ran.
 *
 * @param date    UTC, to the second, ISO 8601.
 * @param commit  as {@code xmit --version} names it: 12 hex digits, or {@code unknown}.
 * @param cpu     the CPU's model name from {@code /proc/cpuinfo}, or {@code unknown} where it has none.
 * @param cpus    the processors the JVM may use.
 * @param command the command line, quoted as a shell would need it.
 */
record Provenance(String date, String commit, String cpu, int cpus, String jdk, String command)
{
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

    /** This process's, for a bench started with {@code args} (the words after {@code xmit}). */
    static Provenance of(final List<String> args)
    {
        return new Provenance(
            ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_INSTANT),
            Version.commit(), cpuModel(CPUINFO), Runtime.getRuntime().availableProcessors(),
            Runtime.version().toString(), command(args));
    }

    /** The first {@code model name} in a {@code /proc/cpuinfo}; {@code unknown} if it has none or cannot be read. */
    static String cpuModel(final Path cpuinfo)
    {
        try
        {
            for (final String line : Files.readAllLines(cpuinfo, StandardCharsets.UTF_8))
            {
                final int colon = line.indexOf(':');
                if (colon > 0 && "model name".equals(line.substring(0, colon).strip()))
                {
                    return line.substring(colon + 1).strip();
                }
            }
        }
        catch (final IOException ex)
        {
            // Not Linux, or /proc not mounted: the model is then unknown, which the report says.
        }
        return "unknown";
    }

    /** {@code xmit bench rr --json 'my run.json'}: each word as it would be typed. */
    static String command(final List<String> args)
    {
        final StringBuilder line = new StringBuilder("xmit");
        for (final String arg : args)
        {
            line.append(' ');
            if (PLAIN_WORD.matcher(arg).matches())
            {
                line.append(arg);
            }
            else
            {
                line.append('\'').append(arg.replace("'", "'\\''")).append('\'');
            }
        }
        return line.toString();
    }
}
