package io.xmit.deploy.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main of each child JVM of the failover phase ({@link FailoverPhase}), with {@link ClusterBenchChild}'s protocol
 * (a command a line on stdin, its answer a line on stdout that starts with {@link ClusterBenchChild#PREFIX};
 * {@code ready} once in place; {@code quit} or the end of stdin closes it). Roles and their commands:
 * <ul>
 * <li>{@code app SEED_PORT SOCKETS NODE}: an app node ({@link AppNode}) whose replies carry {@code NODE};
 *     {@code address} → {@code address ADDRESS}, its cluster address.</li>
 * <li>{@code edge PORT SOCKETS FLOWS}: the edge ({@link FailoverEdge}); {@code load RATE} → {@code loading NANOS},
 *     once every socket is steered to; {@code quiet} → {@code ok}; {@code arm NODE} → {@code armed FLOWS}, the flows
 *     that must move; {@code moved} → {@code moved NANOS…}, when each was first answered by another node (nothing
 *     until all were); {@code removed ADDRESS} → {@code removed NANOS} or {@code removed -}; {@code steered ADDRESS}
 *     → {@code steered SOCKETS}; {@code share NODE NANOS} → {@code share FLOWS_OF_NODE FLOWS_ANSWERED_SINCE};
 *     {@code balance ADDRESS} → {@code balance SENT ACCOUNTED NOT_DELIVERED LOST [PROBLEMS]}.</li>
 * </ul>
 * Times are {@link System#nanoTime()}: on Linux the monotonic clock every process of the machine shares.
 */
public final class FailoverChild
{
    private final Runnable close;
    private final FailoverEdge edge;
    private final AppNode app;

    private FailoverChild(final FailoverEdge edge, final AppNode app)
    {
        this.edge = edge;
        this.app = app;
        this.close = null != edge ? edge::close : app::close;
    }

    public static void main(final String[] args)
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback)
        {
            logback.setLevel(Level.WARN);
        }
        final FailoverChild child;
        try
        {
            child = start(args);
        }
        catch (final RuntimeException ex)
        {
            out.println(ClusterBenchChild.PREFIX + "error " + oneLine(ex));
            Runtime.getRuntime().halt(1);
            return;
        }
        out.println(ClusterBenchChild.PREFIX + "ready");
        child.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
        final Thread halt = Thread.ofPlatform().daemon().name("xmit-bench-halt").unstarted(() ->
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
        });
        halt.start();
        child.close.run();
        System.exit(0);
    }

    private static FailoverChild start(final String[] args)
    {
        if (args.length != 4)
        {
            throw new IllegalArgumentException("usage: edge PORT SOCKETS FLOWS | app SEED_PORT SOCKETS NODE, not " +
                String.join(" ", args));
        }
        final DataPathThreads threads = new DataPathThreads(DataPathThreads::aeron);
        final int port = Integer.parseInt(args[1]);
        final int sockets = Integer.parseInt(args[2]);
        final int last = Integer.parseInt(args[3]);
        return switch (args[0])
        {
            case "edge" -> new FailoverChild(new FailoverEdge(port, sockets, last, threads), null);
            case "app" -> new FailoverChild(null, new AppNode(port, sockets, last, threads));
            default -> throw new IllegalArgumentException("unknown role '" + args[0] + "' (expected edge or app)");
        };
    }

    private void serve(final BufferedReader in, final PrintStream out)
    {
        String line;
        try
        {
            while (null != (line = in.readLine()))
            {
                String reply;
                try
                {
                    reply = handle(line.trim().split(" "));
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

    private String handle(final String[] command) throws InterruptedException
    {
        if ("quit".equals(command[0]))
        {
            return "ok";
        }
        if (null != app)
        {
            if ("address".equals(command[0]))
            {
                return "address " + app.address();
            }
            throw new IllegalArgumentException("unknown command '" + String.join(" ", command) + "' to an app node");
        }
        return switch (command[0])
        {
            case "load" -> "loading " + edge.startLoad(Long.parseLong(command[1]));
            case "quiet" ->
            {
                edge.quiet();
                yield "ok";
            }
            case "arm" -> "armed " + edge.book().arm(Integer.parseInt(command[1]));
            case "moved" -> "moved " + edge.book().movedAt().stream().map(String::valueOf)
                .collect(Collectors.joining(" "));
            case "removed" ->
            {
                final Long at = edge.removedAt(command[1]);
                yield "removed " + (null == at ? "-" : at.toString());
            }
            case "steered" -> "steered " + edge.steered(command[1]);
            case "share" -> "share " + edge.book().servedBy(Integer.parseInt(command[1])) + " " +
                edge.book().answeredSince(Long.parseLong(command[2]));
            case "balance" ->
            {
                final FailoverEdge.Balance balance = edge.balance(command[1]);
                yield String.join(" ", List.of("balance", Long.toString(balance.sent()),
                    Long.toString(balance.accounted()), Long.toString(balance.notDelivered()),
                    Long.toString(balance.lost()), balance.problems()));
            }
            default -> throw new IllegalArgumentException("unknown command '" + String.join(" ", command) +
                "' to the edge");
        };
    }

    private static String oneLine(final Throwable ex)
    {
        return String.valueOf(ex).replace('\n', ' ');
    }
}
