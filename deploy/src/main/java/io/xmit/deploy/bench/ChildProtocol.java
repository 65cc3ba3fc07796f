package io.xmit.deploy.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import ch.qos.logback.classic.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a child JVM of the {@code cluster} bench, whatever it runs ({@link ClusterBenchChild},
 * {@link FailoverChild}): logging at warnings only; its role started from the arguments, then {@code ready} (or
 * {@code error MESSAGE} and exit 1); a command a line on stdin, each answered by a line on stdout that starts with
 * {@link ClusterBenchChild#PREFIX} ({@code error MESSAGE} if it failed); after {@code quit} or the end of stdin (the
 * parent gone), the role closed and exit 0, or a halt if it has not closed within
 * {@link ClusterBenchChild#CLOSE_MILLIS}.
 */
final class ChildProtocol
{
    /** Answers one command, without the prefix. */
    @FunctionalInterface
    interface Commands
    {
        String handle(String[] command) throws InterruptedException;
    }

    /** A started role: its commands, and how it closes. */
    record Child(Commands commands, Runnable close)
    {
    }

    private ChildProtocol()
    {
    }

    /** Runs the child that {@code start} makes of {@code args}, to its exit. */
    static void run(final String[] args, final Function<String[], Child> start)
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback)
        {
            logback.setLevel(Level.WARN);
        }
        final Child child;
        try
        {
            child = start.apply(args);
        }
        catch (final RuntimeException ex)
        {
            out.println(ClusterBenchChild.PREFIX + "error " + oneLine(ex));
            Runtime.getRuntime().halt(1);
            return;
        }
        out.println(ClusterBenchChild.PREFIX + "ready");
        serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out, child.commands());
        final Thread halt = new Thread(() ->
        {
            try
            {
                TimeUnit.MILLISECONDS.sleep(ClusterBenchChild.CLOSE_MILLIS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            Runtime.getRuntime().halt(3);
        }, "xmit-bench-halt");
        halt.setDaemon(true);
        halt.start();
        child.close().run();
        System.exit(0);
    }

    private static void serve(final BufferedReader in, final PrintStream out, final Commands commands)
    {
        String line;
        try
        {
            while (null != (line = in.readLine()))
            {
                String reply;
                try
                {
                    reply = commands.handle(line.trim().split(" "));
                }
                catch (final RuntimeException ex)
                {
                    reply = "error " + oneLine(ex);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    reply = "error interrupted";
                }
                out.println(ClusterBenchChild.PREFIX + reply);
                if ("quit".equals(line.trim()))
                {
                    return;
                }
            }
        }
        catch (final IOException ex)
        {
            out.println(ClusterBenchChild.PREFIX + "error " + oneLine(ex));
        }
    }

    private static String oneLine(final Throwable ex)
    {
        return String.valueOf(ex).replace('\n', ' ');
    }
}
