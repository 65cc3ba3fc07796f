package io.xmit.deploy;

import io.xmit.actors.ReceiveBooks;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterScope.Attachment;
import io.xmit.actors.stats.CounterScope.Side;
import io.xmit.actors.stats.CounterScope.Stage;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.stats.CountersView;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.deploy.cluster.NodeBooksFile;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * {@code xmit stat}: watches a running pipeline from another process through its counters file, like
 * {@code tc -s qdisc} and {@code ethtool -S} together. Once a second a table per port: each TX queue's packets and
 * bytes per second, bypass share, mean bulk, requeues, drops by reason, stops and wakes, watchdog resets, backlog and
 * BQL limit; each RX queue's packets, bytes and deliveries per second and drops by reason. {@code --once} prints one
 * snapshot of the totals; {@code --json} prints JSON; {@code --all} lists every counter ({@link CounterDump}).
 * {@code --prometheus} and {@code --jmx} export every counter to
 * the tools operators already watch ({@link PrometheusExport}, {@link JmxExport}).
 */
@Command(name = "stat",
    description = "watch a running pipeline's queues from another terminal (like tc -s qdisc and ethtool -S)",
    footer = {"Rates are per second over the interval; --once shows totals since the pipeline started.",
        "--prometheus and --jmx export every counter instead of printing tables, until the pipeline stops.",
        "--all lists every counter once (per socket, stage, host, device, trace), e.g. --all --filter 'port=1 .*missed'.",
        "--cluster shows the books of the cluster's nodes instead, totals, once an interval or --once."})
final class StatCommand implements Callable<Integer>
{
    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder().appendInstant(3).toFormatter(Locale.ROOT);

    /** TX queue columns: counter kind, JSON field; rates unless a gauge. */
    private static final Column[] TX_COUNTERS = {
        new Column(CounterType.QDISC_PACKETS, "packets"),
        new Column(CounterType.QDISC_BYTES, "bytes"),
        new Column(CounterType.QDISC_BYPASSED, "bypassed"),
        new Column(CounterType.QDISC_DIRECT, "direct"),
        new Column(CounterType.QDISC_BULKS, "bulks"),
        new Column(CounterType.QDISC_REQUEUES, "requeues"),
        new Column(CounterType.QDISC_DROP_OVERFLOW, "drop_overflow"),
        new Column(CounterType.QDISC_DROP_OVERSIZE, "drop_oversize"),
        new Column(CounterType.QDISC_DROP_DRIVER_ERROR, "drop_driver_error"),
        new Column(CounterType.QDISC_DROP_SHUTDOWN, "drop_shutdown"),
        new Column(CounterType.TXQ_DROP_SHUTDOWN, "drop_shutdown_in_driver"),
        new Column(CounterType.TXQ_DRIVER_ERRORS, "driver_errors"),
        new Column(CounterType.TXQ_STOPS, "stops"),
        new Column(CounterType.TXQ_WAKES, "wakes"),
        new Column(CounterType.TXQ_WATCHDOG_RESETS, "watchdog_resets"),
        new Column(CounterType.TXQ_COMPLETED_PACKETS, "completed")};
    private static final Column[] TX_GAUGES = {
        new Column(CounterType.QDISC_BACKLOG_PACKETS, "backlog"),
        new Column(CounterType.TXQ_BQL_LIMIT, "bql_limit"),
        new Column(CounterType.TXQ_INFLIGHT_BYTES, "inflight_bytes"),
        new Column(CounterType.TXQ_STOPPED, "stopped")};
    private static final Column[] RX_COUNTERS = {
        new Column(CounterType.RX_PACKETS, "packets"),
        new Column(CounterType.RX_BYTES, "bytes"),
        new Column(CounterType.RX_DELIVERED, "delivered"),
        new Column(CounterType.RX_DROP_NO_SOCKET, "drop_no_socket"),
        new Column(CounterType.RX_DROP_MALFORMED, "drop_malformed"),
        new Column(CounterType.RX_DROP_SOCKET_RING_FULL, "drop_ring_full"),
        new Column(CounterType.RX_DROP_UNSUPPORTED, "drop_unsupported"),
        new Column(CounterType.RX_DROP_FAILED, "drop_failed")};

    /** One JSON field of a queue: the counter it shows and its name. */
    private record Column(CounterType type, String field)
    {
    }

    /** One counter of the file: its type id and its decoded key. */
    private record Key(int typeId, CounterScope scope)
    {
    }

    @Mixin
    private HelpOption help;

    private final PrintStream out;
    private final Terminal terminal;
    private final PrintStream err;

    @Parameters(paramLabel = "NAME", arity = "0..1",
        description = "the pipeline's name (xmit.name); default: the only pipeline running")
    private String name;

    @Option(names = "--once", description = "print one snapshot of the totals and exit")
    private boolean once;

    @Option(names = "--json", description = "print JSON (one object per snapshot, with its time)")
    private boolean json;

    @Option(names = "--all", description = "print every counter once, one per line: label, name, value (like " +
        "ethtool -S), sorted by what it belongs to")
    private boolean all;

    @Option(names = "--xps", description = "print the pipeline's XPS maps once, as its mapping actors last changed " +
        "them: per port the rules in force, each TX queue's xps_cpus and xps_rxqs, each map's entries")
    private boolean xps;

    @Option(names = "--cluster", description = "print the books of every cluster node running on this machine " +
        "(xmit cluster run), each edge's books of its app nodes wherever they run, and the identities they satisfy")
    private boolean cluster;

    private Pattern filter;
    private long pid = -1;

    private int count = Integer.MAX_VALUE;
    private double interval = 1;
    private Path dir = CountersFile.DEFAULT_DIRECTORY;
    private InetSocketAddress prometheus;

    @Option(names = "--jmx", description = "register every counter as JMX MBeans, " +
        "io.xmit:type=counters,pipeline=NAME,…, in this process (JConsole, or remote JMX with XMIT_JAVA_OPTS)")
    private boolean jmx;

    StatCommand(final PrintStream out, final Terminal terminal, final PrintStream err)
    {
        this.out = out;
        this.terminal = terminal;
        this.err = err;
    }

    @Option(names = "--count", paramLabel = "N",
        description = "stop after N snapshots, or N intervals of exporting (default: until the pipeline stops or Ctrl-C)")
    void count(final String text)
    {
        count = Args.intArg("--count", text, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--interval", paramLabel = "S", description = "seconds between snapshots (default 1)")
    void interval(final String text)
    {
        interval = seconds(text);
    }

    @Option(names = "--pid", paramLabel = "N", description = "the pipeline of process N (with NAME: that one of them)")
    void pid(final String text)
    {
        pid = Args.intArg("--pid", text, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--dir", paramLabel = "DIR",
        description = "where counters and books files live (default /dev/shm; xmit.counters.directory)")
    void dir(final String text)
    {
        dir = Path.of(text);
    }

    @Option(names = "--filter", paramLabel = "REGEX", description = "with --all, only the counters whose label and " +
        "name it finds, e.g. txq=3, drop, 'port=1 .*rx_' (a regular expression; plain text works as it reads)")
    void filter(final String text)
    {
        filter = CounterDump.filter(text);
    }

    @Option(names = "--prometheus", paramLabel = "[HOST:]PORT", description = "serve every counter at " +
        "http://HOST:PORT/metrics in Prometheus' text format, read from the counters file at each scrape (no HOST: " +
        "every address; port 0: any free one, printed)")
    void prometheus(final String text)
    {
        prometheus = Args.listenAddress("--prometheus", text);
    }

    @Override
    public Integer call()
    {
        if ((null != prometheus || jmx) && (once || json))
        {
            throw new UsageException("--prometheus and --jmx export the counters, --once and --json print them: " +
                "one or the other");
        }
        if (null != filter && !all)
        {
            throw new UsageException("--filter selects the counters --all prints: add --all");
        }
        if (all && (json || null != prometheus || jmx || count != Integer.MAX_VALUE))
        {
            throw new UsageException("--all prints every counter once: not with --json, --count, --prometheus or --jmx");
        }
        if (cluster && (null != name || pid >= 0 || all || xps || null != prometheus || jmx))
        {
            throw new UsageException("--cluster shows every cluster node's books: not with NAME, --pid, --all, " +
                "--xps, --prometheus or --jmx");
        }
        if (xps && (all || null != prometheus || jmx || count != Integer.MAX_VALUE))
        {
            throw new UsageException("--xps prints the XPS maps once: not with --all, --count, --prometheus or --jmx");
        }
        if (!Files.isDirectory(dir))
        {
            throw new UsageException("--dir '" + dir + "': not a directory");
        }
        if (cluster)
        {
            return cluster();
        }
        final RunningPipeline pipeline;
        try
        {
            pipeline = RunningPipeline.find(dir, name, pid);
        }
        catch (final IllegalStateException ex)
        {
            err.println("xmit stat: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        if (xps)
        {
            return xps(pipeline);
        }
        final Path file = pipeline.counters();
        final CountersView view;
        try
        {
            view = CountersFile.open(file);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            err.println("xmit stat: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        try
        {
            if (all)
            {
                return dump(view);
            }
            return null != prometheus || jmx ? export(view) : watch(view, once, json, count, interval,
                new LiveOutput(out, terminal), terminal.columns());
        }
        catch (final IllegalStateException ex)
        {
            // The file turned out damaged while being read (CountersView names it and what is wrong).
            err.println("xmit stat: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Main.EXIT_OK;
        }
        finally
        {
            view.close();
        }
    }

    /**
     * The tables once an interval, each under the time it was read: on a terminal each replaces the last in place,
     * piped each follows the last (a JSON object per line either way).
     */
    private static int watch(final CountersView view, final boolean once, final boolean json, final int count,
        final double interval, final LiveOutput out, final int width) throws InterruptedException
    {
        final String name = RunningPipeline.of(view.path()).name();
        Snapshot last = Snapshot.read(view);
        if (once)
        {
            out.println(json ? last.json(name, view.pid(), null) : last.table(name, view.pid(), null, width));
            return Main.EXIT_OK;
        }
        final String every = BigDecimal.valueOf(interval).stripTrailingZeros().toPlainString();
        for (int shown = 0; shown < count; shown++)
        {
            TimeUnit.NANOSECONDS.sleep((long)(interval * 1e9));
            if (stopped(view, name, out::println))
            {
                return Main.EXIT_OK;
            }
            final Snapshot now = Snapshot.read(view);
            if (json)
            {
                out.println(now.json(name, view.pid(), last));
            }
            else
            {
                final List<String> block = new ArrayList<>();
                block.add("at " + TIME.format(now.time) + ", every " + every + " s");
                block.addAll(now.table(name, view.pid(), last, width).lines().toList());
                block.add("");
                out.block(block);
            }
            last = now;
        }
        return Main.EXIT_OK;
    }

    /**
     * {@code --cluster}: the books of every cluster node here, once with {@code --once}, else each interval until
     * {@code --count} snapshots or every node has stopped; none running is one line and exit 1.
     */
    private int cluster()
    {
        final LiveOutput live = new LiveOutput(out, terminal);
        try
        {
            List<NodeBooksFile.Books> nodes = NodeBooksView.read(dir);
            if (nodes.isEmpty())
            {
                err.println("xmit stat: no xmit cluster node is running (no books file of a live process in " + dir +
                    ")");
                return Main.EXIT_FAILED;
            }
            final int snapshots = once ? 1 : count;
            for (int shown = 0; shown < snapshots; shown++)
            {
                if (shown > 0)
                {
                    TimeUnit.NANOSECONDS.sleep((long)(interval * 1e9));
                    nodes = NodeBooksView.read(dir);
                    if (nodes.isEmpty())
                    {
                        live.println("every cluster node has stopped");
                        return Main.EXIT_OK;
                    }
                }
                if (json)
                {
                    live.println(NodeBooksView.json(TIME.format(Instant.now()), nodes));
                }
                else if (once)
                {
                    live.println(NodeBooksView.text(nodes, terminal.columns()).stripTrailing());
                }
                else
                {
                    final List<String> block = new ArrayList<>();
                    block.add("at " + TIME.format(Instant.now()) + ", every " +
                        BigDecimal.valueOf(interval).stripTrailingZeros().toPlainString() + " s");
                    block.addAll(NodeBooksView.text(nodes, terminal.columns()).lines().toList());
                    block.add("");
                    live.block(block);
                }
            }
            return Main.EXIT_OK;
        }
        catch (final IllegalStateException | UncheckedIOException ex)
        {
            err.println("xmit stat: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Main.EXIT_OK;
        }
    }

    /** {@code --xps}: the pipeline's XPS maps, as its mapping actors last wrote them. */
    private int xps(final RunningPipeline pipeline)
    {
        final XpsMapsFile.Maps maps;
        try
        {
            maps = XpsMapsFile.read(pipeline.xpsMaps());
        }
        catch (final IllegalStateException ex)
        {
            err.println("xmit stat: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        out.print(json ? XpsMapsView.json(pipeline.name(), pipeline.pid(), maps) + System.lineSeparator() :
            XpsMapsView.text(pipeline.name(), pipeline.pid(), maps));
        return Main.EXIT_OK;
    }

    /** {@code --all}: every counter, or those {@code --filter} finds; none found is one line and exit 1. */
    private int dump(final CountersView view)
    {
        final List<CounterDump.Line> lines = CounterDump.read(view, filter);
        if (lines.isEmpty())
        {
            err.println("xmit stat: no counter of pipeline " + RunningPipeline.of(view.path()).name() +
                (null == filter ? " is allocated yet" : " matches --filter '" + filter.pattern() + "'"));
            return Main.EXIT_FAILED;
        }
        out.print(CounterDump.table(lines));
        return Main.EXIT_OK;
    }

    /**
     * Serves the counters through Prometheus and or JMX (both read the file when asked, nothing of the pipeline's
     * own) until the pipeline stops, {@code --count} intervals pass or Ctrl-C; JMX follows sockets that come and go
     * once an interval.
     */
    private int export(final CountersView view) throws InterruptedException
    {
        final String pipeline = RunningPipeline.of(view.path()).name();
        HTTPServer server = null;
        JmxExport beans = null;
        try
        {
            if (null != prometheus)
            {
                try
                {
                    server = PrometheusExport.serve(view, pipeline, prometheus);
                }
                catch (final IOException ex)
                {
                    err.println("xmit stat: cannot serve --prometheus on " + prometheus + ": " + ex.getMessage());
                    return Main.EXIT_FAILED;
                }
                out.println("serving http://" + (prometheus.getAddress().isAnyLocalAddress() ? "*" :
                    prometheus.getHostString()) + ":" + server.getPort() + "/metrics for pipeline " + pipeline +
                    " (pid " + view.pid() + ")");
            }
            if (jmx)
            {
                beans = new JmxExport(ManagementFactory.getPlatformMBeanServer(), view, pipeline);
                beans.refresh();
                out.println("JMX: " + JmxExport.DOMAIN + ":type=counters,pipeline=" + pipeline + ",… in process " +
                    ProcessHandle.current().pid() + " for pipeline " + pipeline + " (pid " + view.pid() + ")");
            }
            for (int shown = 0; shown < count; shown++)
            {
                TimeUnit.NANOSECONDS.sleep((long)(interval * 1e9));
                if (stopped(view, pipeline, out::println))
                {
                    break;
                }
                if (null != beans)
                {
                    beans.refresh();
                }
            }
            return Main.EXIT_OK;
        }
        finally
        {
            if (null != server)
            {
                server.close();
            }
            if (null != beans)
            {
                beans.close();
            }
        }
    }

    /** True, and said, once the pipeline's file is gone or its process has ended. */
    private static boolean stopped(final CountersView view, final String name, final Consumer<String> out)
    {
        if (Files.exists(view.path()) && view.ownerAlive())
        {
            return false;
        }
        out.accept("pipeline " + name + " (pid " + view.pid() + ") has stopped");
        return true;
    }

    private static double seconds(final String text)
    {
        try
        {
            final double seconds = Double.parseDouble(text);
            if (seconds >= 0.1 && seconds <= 3600)
            {
                return seconds;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below.
        }
        throw new UsageException("--interval '" + text + "': must be a number of seconds in 0.1..3600");
    }

    /** Every counter of the file at one moment, by type and scope, and the queues they belong to. */
    private static final class Snapshot
    {
        /** When it was read: the {@code time} of its JSON, ISO-8601 in UTC to the millisecond. */
        private final Instant time = Instant.now();
        private final long nanos = System.nanoTime();
        private final Map<Key, Long> values = new HashMap<>();
        private final TreeMap<Integer, TreeSet<Integer>> txqs = new TreeMap<>();
        private final TreeMap<Integer, TreeSet<Integer>> rxqs = new TreeMap<>();

        static Snapshot read(final CountersView view)
        {
            final Snapshot snapshot = new Snapshot();
            view.forEach((counterId, typeId, scope, label, value) ->
            {
                snapshot.values.put(new Key(typeId, scope), value);
                final boolean queue = Attachment.TXQ == scope.attachment() || Attachment.RXQ == scope.attachment();
                if (queue && Stage.NONE == scope.stage() && Side.NONE == scope.side())
                {
                    (Attachment.TXQ == scope.attachment() ? snapshot.txqs : snapshot.rxqs)
                        .computeIfAbsent(scope.port(), port -> new TreeSet<>())
                        .add(scope.index());
                }
            });
            return snapshot;
        }

        /** The value, per second since {@code before} if given; -1 if the pipeline has no such counter. */
        double value(final CounterType type, final CounterScope scope, final Snapshot before, final boolean gauge)
        {
            final Key key = new Key(type.typeId(), scope);
            final Long now = values.get(key);
            if (null == now)
            {
                return -1;
            }
            if (null == before || gauge)
            {
                return now;
            }
            final double seconds = Math.max(1e-3, (nanos - before.nanos) / 1e9);
            return (now - before.values.getOrDefault(key, 0L)) / seconds;
        }

        /**
         * The tables, each reflowed to {@code width}: the columns that do not fit follow in further blocks under the
         * row names again, and the books wrap at spaces, so nothing is cut ({@link Integer#MAX_VALUE}: one block).
         */
        String table(final String name, final long pid, final Snapshot before, final int width)
        {
            final List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "pipeline %s (pid %d)  %s", name, pid,
                null == before ? "totals since start" : "per second"));
            for (final Map.Entry<Integer, TreeSet<Integer>> port : txqs.entrySet())
            {
                final int p = port.getKey();
                final List<List<String>> rows = new ArrayList<>();
                rows.add(List.of("port " + RunSummary.portName(p) + "  txq", "packets", "bytes", "bypass", "bulk",
                    "requeues", "overflow", "oversize", "drv_err", "stops", "wakes", "wd_reset", "backlog"));
                for (final int q : port.getValue())
                {
                    final CounterScope txq = CounterScope.txq(p, q);
                    final double packets = value(CounterType.QDISC_PACKETS, txq, before, false);
                    final double bulks = value(CounterType.QDISC_BULKS, txq, before, false);
                    final double bypassed = value(CounterType.QDISC_BYPASSED, txq, before, false);
                    rows.add(List.of("        " + q, number(packets),
                        number(value(CounterType.QDISC_BYTES, txq, before, false)),
                        String.format(Locale.ROOT, "%.0f%%", packets > 0 ? 100 * bypassed / packets : 0),
                        String.format(Locale.ROOT, "%.1f", bulks > 0 ? packets / bulks : 0),
                        number(value(CounterType.QDISC_REQUEUES, txq, before, false)),
                        number(value(CounterType.QDISC_DROP_OVERFLOW, txq, before, false)),
                        number(value(CounterType.QDISC_DROP_OVERSIZE, txq, before, false)),
                        number(value(CounterType.QDISC_DROP_DRIVER_ERROR, txq, before, false)),
                        number(value(CounterType.TXQ_STOPS, txq, before, false)),
                        number(value(CounterType.TXQ_WAKES, txq, before, false)),
                        number(value(CounterType.TXQ_WATCHDOG_RESETS, txq, before, false)),
                        number(value(CounterType.QDISC_BACKLOG_PACKETS, txq, before, true))));
                }
                lines.addAll(Table.blocks(rows, width));
            }
            for (final Map.Entry<Integer, TreeSet<Integer>> port : rxqs.entrySet())
            {
                final int p = port.getKey();
                final List<List<String>> rows = new ArrayList<>();
                rows.add(List.of("port " + RunSummary.portName(p) + "  rxq", "packets", "bytes", "delivered",
                    "no_socket", "malformed", "ring_full", "unsupported"));
                for (final int q : port.getValue())
                {
                    final CounterScope rxq = CounterScope.rxq(p, q);
                    rows.add(List.of("        " + q,
                        number(value(CounterType.RX_PACKETS, rxq, before, false)),
                        number(value(CounterType.RX_BYTES, rxq, before, false)),
                        number(value(CounterType.RX_DELIVERED, rxq, before, false)),
                        number(value(CounterType.RX_DROP_NO_SOCKET, rxq, before, false)),
                        number(value(CounterType.RX_DROP_MALFORMED, rxq, before, false)),
                        number(value(CounterType.RX_DROP_SOCKET_RING_FULL, rxq, before, false)),
                        number(value(CounterType.RX_DROP_UNSUPPORTED, rxq, before, false))));
                }
                lines.addAll(Table.blocks(rows, width));
            }
            lines.addAll(Table.wrap("books: " + books(), width, "  "));
            return String.join(System.lineSeparator(), lines) + System.lineSeparator();
        }

        /**
         * The pipeline's accounting identities from its counters (totals), transmit then each port's receive books:
         * read one counter at a time from another process, so exact only when the pipeline is quiet (the device's own
         * counters are as of its TX watchdog's last tick); {@code Pipeline.verify()} checks them exactly in process.
         */
        String books()
        {
            final long accepted = sum(CounterType.SOCKET_SENT) + sum(CounterType.SOCKET_SENT_RETIRED);
            final long taken = sum(CounterType.QDISC_RING_TAKEN) + sum(CounterType.QDISC_DIRECT);
            final long completed = sum(CounterType.TXQ_COMPLETED_PACKETS);
            final long backlog = sum(CounterType.QDISC_BACKLOG_PACKETS);
            final long stopInDriver = sum(CounterType.TXQ_DROP_SHUTDOWN);
            final long inDriver = sum(CounterType.QDISC_PACKETS) - completed - stopInDriver;
            final long dropped = sum(CounterType.QDISC_DROP_OVERFLOW) + sum(CounterType.QDISC_DROP_OVERSIZE) +
                sum(CounterType.QDISC_DROP_DRIVER_ERROR) + sum(CounterType.QDISC_DROP_SHUTDOWN) + stopInDriver;
            final long rings = accepted - taken;
            final StringBuilder books = new StringBuilder(String.format(Locale.ROOT, "tx: accepted %d = transmitted " +
                "%d + in flight %d (rings %d, backlogs %d, driver %d) + dropped %d", accepted, completed,
                rings + backlog + inDriver, rings, backlog, inDriver, dropped));
            final TreeSet<Integer> ports = new TreeSet<>(txqs.keySet());
            ports.addAll(rxqs.keySet());
            for (final int port : ports)
            {
                books.append("; rx ").append(received(port).line());
            }
            return books.toString();
        }

        /** One port's receive books from its counters; the other port's transmitted is not in the counters file. */
        private ReceiveBooks received(final int port)
        {
            return new ReceiveBooks(port, ReceiveBooks.NO_WIRE, sum(CounterType.NIC_RX_PACKETS, port),
                sum(CounterType.NIC_RX_MISSED, port), sum(CounterType.NIC_RX_DROPPED, port),
                sum(CounterType.RX_PACKETS, port), sum(CounterType.RX_DELIVERED, port),
                sum(CounterType.HOST_RX_QUEUED, port), sum(CounterType.RX_DROP_MALFORMED, port),
                sum(CounterType.RX_DROP_UNSUPPORTED, port), sum(CounterType.RX_DROP_NO_SOCKET, port),
                sum(CounterType.RX_DROP_SOCKET_RING_FULL, port), sum(CounterType.RX_DROP_FAILED, port),
                sum(CounterType.RX_DROP_SHUTDOWN, port), sum(CounterType.HOST_DROP_RING_FULL, port),
                sum(CounterType.SOCKET_DELIVERED, port) + sum(CounterType.SOCKET_DELIVERED_RETIRED, port),
                sum(CounterType.SOCKET_DROP_CLOSED, port), sum(CounterType.HOST_RX_FRAMES, port),
                sum(CounterType.HOST_IGNORED, port), sum(CounterType.HOST_DROP_FAILED, port),
                sum(CounterType.RX_DROP_NODE_DOWN, port));
        }

        /** Counter {@code type} over every queue, socket and stage of {@code port}, and the port's own. */
        private long sum(final CounterType type, final int port)
        {
            long total = 0;
            for (final Map.Entry<Key, Long> entry : values.entrySet())
            {
                if (entry.getKey().typeId() == type.typeId() && entry.getKey().scope().port() == port)
                {
                    total += entry.getValue();
                }
            }
            return total;
        }

        /** Counter {@code type} over every queue, socket and port. */
        private long sum(final CounterType type)
        {
            long total = 0;
            for (final Map.Entry<Key, Long> entry : values.entrySet())
            {
                if (entry.getKey().typeId() == type.typeId())
                {
                    total += entry.getValue();
                }
            }
            return total;
        }

        String json(final String name, final long pid, final Snapshot before)
        {
            final Json json = new Json().object().field("time", TIME.format(time)).field("pipeline", name)
                .field("pid", pid)
                .field("per_second", null != before).array("ports");
            final TreeSet<Integer> ports = new TreeSet<>(txqs.keySet());
            ports.addAll(rxqs.keySet());
            for (final int p : ports)
            {
                json.object().field("port", p).field("name", RunSummary.portName(p)).array("txq");
                for (final int q : txqs.getOrDefault(p, new TreeSet<>()))
                {
                    final CounterScope txq = CounterScope.txq(p, q);
                    json.object().field("queue", q);
                    fields(json, TX_COUNTERS, txq, before, false);
                    fields(json, TX_GAUGES, txq, before, true);
                    final double packets = value(CounterType.QDISC_PACKETS, txq, before, false);
                    final double bulks = value(CounterType.QDISC_BULKS, txq, before, false);
                    json.field("bypass_share", packets > 0 ?
                        value(CounterType.QDISC_BYPASSED, txq, before, false) / packets : 0)
                        .field("mean_bulk", bulks > 0 ? packets / bulks : 0).endObject();
                }
                json.endArray().array("rxq");
                for (final int q : rxqs.getOrDefault(p, new TreeSet<>()))
                {
                    json.object().field("queue", q);
                    fields(json, RX_COUNTERS, CounterScope.rxq(p, q), before, false);
                    json.endObject();
                }
                json.endArray().endObject();
            }
            return json.endArray().field("books", books()).endObject().toString();
        }

        /** The counters the pipeline has (one it lacks, such as a newer kind, is left out). */
        private void fields(final Json json, final Column[] columns, final CounterScope queue, final Snapshot before,
            final boolean gauge)
        {
            for (final Column column : columns)
            {
                final double value = value(column.type(), queue, before, gauge);
                if (value >= 0)
                {
                    if (null == before || gauge)
                    {
                        json.field(column.field(), (long)value);
                    }
                    else
                    {
                        json.field(column.field(), value);
                    }
                }
            }
        }

        private static String number(final double value)
        {
            return value < 0 ? "-" : String.format(Locale.ROOT, "%,.0f", value);
        }
    }
}
