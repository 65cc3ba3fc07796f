package io.xmit.actors.trace;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs tshark on a file, as an extra check that another tool reads xmit's pcapng files as {@link PcapngReader} does
 * (the trace tests' own checks read the files with that reader). Only the tests of that check need tshark; they skip,
 * saying why, where it is not installed (./xmit test installs it when run as root, as in CI). Public, in the actors
 * test-jar, so deploy's trace tests use the same lookup and the same filtering of the root notice.
 */
public final class Tshark
{
    /** What tshark prints to stderr as root, which is not about the file. */
    private static final String ROOT_NOTICE = "Running as user \"root\"";

    /** tshark's exit code, its stdout lines, and its stderr lines other than the root notice. */
    public record Result(int exit, List<String> out, List<String> warnings)
    {
    }

    private Tshark()
    {
    }

    public static void assumeInstalled()
    {
        Assumptions.assumeTrue(null != find(),
            "tshark is not on the PATH (Debian package tshark; ./xmit test installs it when run as root)");
    }

    public static Result run(final Path file, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(find(), "-r", file.toString()));
        command.addAll(List.of(args));
        final Path err = Files.createTempFile("tshark", ".err");
        try
        {
            final Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
            final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException("tshark did not finish in 30 s: " + command);
            }
            final List<String> warnings = new ArrayList<>();
            for (final String line : Files.readAllLines(err))
            {
                if (!line.isBlank() && !line.contains(ROOT_NOTICE))
                {
                    warnings.add(line);
                }
            }
            return new Result(process.exitValue(), out.lines().toList(), warnings);
        }
        finally
        {
            Files.deleteIfExists(err);
        }
    }

    private static String find()
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(":"))
        {
            final Path candidate = Path.of(dir, "tshark");
            if (Files.isExecutable(candidate))
            {
                return candidate.toString();
            }
        }
        return null;
    }
}
