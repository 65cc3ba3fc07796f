package io.xmit.deploy;

import io.xmit.actors.config.ConfigValues;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Command-line option values, checked: a bad one is a {@link UsageException} naming the option and the value. */
final class Args
{
    private Args()
    {
    }

    /**
     * {@code [HOST:]PORT} to listen on: no host is every address, {@code localhost} the loopback one, else an IP
     * literal ({@code 127.0.0.1}, {@code [::1]}); port 0 is any free one. No name is looked up.
     */
    static InetSocketAddress listenAddress(final String option, final String text)
    {
        final int colon = text.lastIndexOf(':');
        final String host = colon < 0 ? "" : text.substring(0, colon);
        final int port = intArg(option + " '" + text + "': port", text.substring(colon + 1), 0, 0xFFFF);
        if (host.isEmpty())
        {
            return new InetSocketAddress(port);
        }
        if ("localhost".equals(host))
        {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        }
        final boolean bracketed = host.startsWith("[") && host.endsWith("]");
        final byte[] address = ConfigValues.addressLiteral(bracketed ? host.substring(1, host.length() - 1) : host);
        if (null == address || (16 == address.length) != bracketed)
        {
            throw new UsageException(option + " '" + text + "': '" + host + "' is not an IP address, localhost or " +
                "empty (every address); e.g. 127.0.0.1:9464, [::1]:9464 or :9464");
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("an address of " + address.length + " bytes", ex);
        }
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
