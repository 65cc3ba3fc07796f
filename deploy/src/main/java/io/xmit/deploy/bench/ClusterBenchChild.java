package io.xmit.deploy.bench;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The main of each child JVM of the {@code cluster} bench ({@link ClusterBench}): runs one {@link ChildRole} and
 * answers the parent's commands, a line each on stdin, with a line on stdout that starts with {@link #PREFIX}
 * (anything else the process prints is not the protocol's):
 * <ul>
 * <li>at start: {@code ready}, once the role is in place (or {@code error MESSAGE});</li>
 * <li>{@code load RATE FLOWS}: start offering the load → {@code ok};</li>
 * <li>{@code rate RATE}: the load offers {@code RATE} requests per second from now on → {@code ok};</li>
 * <li>{@code mark}: the data path's threads' allocated bytes, the packets and the time noted → {@code ok};</li>
 * <li>{@code window}: the measured window opens → {@code ok}; {@code end} → {@code end REPLIES NANOS HISTOGRAM};</li>
 * <li>{@code alloc} → {@code alloc BYTES PACKETS NANOS} since the mark;</li>
 * <li>{@code stop}: the load stops and the last replies come → {@code rest SENT REPLIES BACK_PRESSURED};</li>
 * <li>{@code refused} → {@code refused BACK_PRESSURED REFUSED}: requests whose reply this process's echo gave up
 *     on so far, still back-pressured after its retries or refused otherwise;</li>
 * <li>{@code quit} → {@code ok}, then the role closes and the JVM exits; so does the end of stdin (the parent
 *     gone).</li>
 * </ul>
 * A command that fails is answered {@code error MESSAGE}.
 */
public final class ClusterBenchChild
{
    static final String PREFIX = "xmit-bench ";
    /** How long the last replies may take after the load stops. */
    static final long REST_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** After {@code quit}, the JVM halts if the role has not closed within this. */
    static final long CLOSE_MILLIS = 20_000;

    private final ChildRole role;
    private final DataPathThreads threads;
    private Map<Long, Long> marked = Map.of();
    private long markedPackets;
    private long markedNanos;

    private ClusterBenchChild(final ChildRole role, final DataPathThreads threads)
    {
        this.role = role;
        this.threads = threads;
    }

    /** {@code ROLE ARG…}: {@code single SOCKETS}, {@code edge PORT SOCKETS}, {@code app SEED_PORT SOCKETS},
     *  {@code ping PORT PONG_PORT}, {@code pong PORT PING_PORT}. */
    public static void main(final String[] args)
    {
        ChildProtocol.run(args, roleAndArgs ->
        {
            final ClusterBenchChild child = start(roleAndArgs);
            return new ChildProtocol.Child(child::handle, child.role::close);
        });
    }

    private static ClusterBenchChild start(final String[] args)
    {
        if (args.length < 2)
        {
            throw new IllegalArgumentException("usage: ROLE ARG… (single, edge, app, ping, pong)");
        }
        final int first = Integer.parseInt(args[1]);
        final int second = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        final Predicate<String> aeron = DataPathThreads::aeron;
        // The data plane's actors (the app nodes' receivers, the edge's relays) run on Akka's default dispatcher;
        // Akka's own cluster actors run on its internal one.
        final Predicate<String> cluster = aeron.or(name -> name.contains(".default-dispatcher-"));
        final String role = args[0];
        final DataPathThreads threads = new DataPathThreads(
            "edge".equals(role) || "app".equals(role) ? cluster : aeron);
        return new ClusterBenchChild(switch (role)
        {
            case "single" -> new SingleNode(first, threads);
            case "edge" -> new EdgeNode(first, second, threads);
            case "app" -> new AppNode(first, second, threads);
            case "ping" -> new AeronPing(first, second, threads);
            case "pong" -> new AeronPong(first, second, threads);
            default -> throw new IllegalArgumentException("unknown role '" + role +
                "' (expected single, edge, app, ping or pong)");
        }, threads);
    }

    private String handle(final String[] command) throws InterruptedException
    {
        return switch (command[0])
        {
            case "load" ->
            {
                role.startLoad(Long.parseLong(command[1]), Integer.parseInt(command[2]));
                yield "ok";
            }
            case "rate" ->
            {
                role.load().rate(Long.parseLong(command[1]));
                yield "ok";
            }
            case "mark" ->
            {
                markedNanos = System.nanoTime();
                marked = threads.allocated();
                markedPackets = role.packets();
                yield "ok";
            }
            case "window" ->
            {
                role.load().window();
                yield "ok";
            }
            case "end" -> "end " + role.load().windowEnd();
            case "alloc" ->
            {
                final long packets = role.packets() - markedPackets;
                final long bytes = DataPathThreads.between(marked, threads.allocated());
                yield String.format(Locale.ROOT, "alloc %d %d %d", bytes, packets, System.nanoTime() - markedNanos);
            }
            case "stop" -> "rest " + role.load().stop(REST_NANOS);
            case "refused" -> "refused " + role.repliesLost();
            case "quit" -> "ok";
            default -> throw new IllegalArgumentException("unknown command '" + String.join(" ", command) + "'");
        };
    }
}
