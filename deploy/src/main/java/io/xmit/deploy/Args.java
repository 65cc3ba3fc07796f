package io.xmit.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** Command-line option values, checked: a bad one is a {@link UsageException} naming the option and the value. */
final class Args
{
    private Args()
    {
    }

    /** The value after option {@code option} at {@code args[i]}. */
    static String value(final String[] args, final int i, final String option)
    {
        if (i >= args.length)
        {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    /**
     * An output file's path, checked before any work: its folder must exist (a run of minutes must not end in
     * "cannot write").
     */
    static Path outputFile(final String option, final String text)
    {
        final Path file = Path.of(text).toAbsolutePath();
        final Path folder = file.getParent();
        if (null == folder || !Files.isDirectory(folder))
        {
            throw new UsageException(option + " '" + text + "': folder " + folder + " does not exist");
        }
        if (Files.isDirectory(file))
        {
            throw new UsageException(option + " '" + text + "': is a folder");
        }
        return file;
    }

    static int intArg(final String what, final String text, final int min, final int max)
    {
        final int value;
        try
        {
            value = Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(what + " '" + text + "': not a number");
        }
        if (value < min || value > max)
        {
            throw new UsageException(what + " " + value + ": must be in " + min + ".." + max);
        }
        return value;
    }
}
