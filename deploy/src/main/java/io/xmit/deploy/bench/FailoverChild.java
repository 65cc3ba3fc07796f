package io.xmit.deploy.bench;

import java.util.List;
import java.util.stream.Collectors;

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
 *     until all were); {@code removed ADDRESS} → {@code removed NANOS} or {@code removed -};
 *     {@code share NODE NANOS} → {@code share FLOWS_OF_NODE FLOWS_ANSWERED_SINCE};
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
        ChildProtocol.run(args, roleAndArgs ->
        {
            final FailoverChild child = start(roleAndArgs);
            return new ChildProtocol.Child(child::handle, child.close);
        });
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
}
