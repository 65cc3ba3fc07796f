package io.xmit.deploy;

import io.xmit.actors.config.ConfigValues;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.Hashing;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SelectionRule;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.pipeline.xps.XpsMask;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code xmit explain}: an operator's what-if for TX queue selection. Builds the XPS maps from the given
 * masks (in the order given, as sysfs writes would), or with {@code --live} reads a running pipeline's maps and hash
 * key from its maps file ({@link XpsMapsFile}), then runs the same {@link TxQueueSelector} the pipeline runs and
 * prints the queue, the rule that chose it and the flow hash.
 */
@Command(name = "explain",
    description = "which TX queue a flow leaves on, and the rule that chose it (like `ip route get` for queues)")
final class ExplainCommand implements Callable<Integer>
{
    static final int DEFAULT_CPUS = 64;

    @Mixin
    private HelpOption help;

    private final PrintStream out;
    private final PrintStream err;
    private int txQueues = -1;
    private int rxQueues = -1;
    private int cpus = DEFAULT_CPUS;
    private int cpu = -1;
    private int rxQueue = -1;
    private int cached = -1;
    private boolean oooOkay;
    private boolean json;
    private FlowKey flow;
    private long k0;
    private long k1;
    /** The --xps-cpus and --xps-rxqs options in the order given, as sysfs writes would be: {option, TXQ=MASK}. */
    private final List<String[]> xps = new ArrayList<>();

    private boolean live;
    private String name;
    private long pid = -1;
    private int port;
    private Path dir = CountersFile.DEFAULT_DIRECTORY;
    private boolean hashKeyGiven;
    /** With --live, the line saying whose maps were read. */
    private String liveLine;

    ExplainCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Option(names = "--live", description = "explain against a running pipeline's XPS maps and flow hash key " +
        "(as xmit stat --xps shows them), not maps given here")
    void live(final boolean on)
    {
        live = on;
    }

    @Option(names = "--name", paramLabel = "NAME",
        description = "with --live, the pipeline's name (xmit.name); default: the only pipeline running")
    void name(final String text)
    {
        name = text;
    }

    @Option(names = "--pid", paramLabel = "N", description = "with --live, the pipeline of process N")
    void pid(final String text)
    {
        pid = Args.intArg("--pid", text, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--port", paramLabel = "N", description = "with --live, the device port (default 0)")
    void port(final String text)
    {
        port = Args.intArg("--port", text, 0, 0xFFFF);
    }

    @Option(names = "--dir", paramLabel = "DIR",
        description = "with --live, where counters files live (default /dev/shm; xmit.counters.directory)")
    void dir(final String text)
    {
        dir = Path.of(text);
    }

    @Option(names = "--tx-queues", paramLabel = "N", description = "real number of TX queues (1..65535)")
    void txQueues(final String text)
    {
        txQueues = Args.intArg("--tx-queues", text, 1, 0xFFFF);
    }

    @Option(names = "--rx-queues", paramLabel = "N", description = "number of RX queues (default: the TX queue count)")
    void rxQueues(final String text)
    {
        rxQueues = Args.intArg("--rx-queues", text, 1, 0xFFFF);
    }

    @Option(names = "--cpus", paramLabel = "N", description = "number of CPUs the xps_cpus masks may name (default 64)")
    void cpus(final String text)
    {
        cpus = Args.intArg("--cpus", text, 1, 4096);
    }

    @Option(names = "--xps-cpus", paramLabel = "TXQ=MASK", description =
        "xps_cpus of tx-TXQ in the sysfs hex form (e.g. 0=01, 3=00000000,00000010); repeatable")
    void xpsCpus(final String pair)
    {
        xps.add(new String[] {"--xps-cpus", pair});
    }

    @Option(names = "--xps-rxqs", paramLabel = "TXQ=MASK", description = "xps_rxqs of tx-TXQ in the sysfs hex form; repeatable")
    void xpsRxqs(final String pair)
    {
        xps.add(new String[] {"--xps-rxqs", pair});
    }

    @Option(names = "--cpu", paramLabel = "N",
        description = "the sender's CPU (default: none, so XPS by CPU is skipped)")
    void cpu(final String text)
    {
        cpu = Args.intArg("--cpu", text, 0, 4095);
    }

    @Option(names = "--rx-queue", paramLabel = "N",
        description = "the RX queue the socket's flow arrived on (marks the socket connected)")
    void rxQueue(final String text)
    {
        rxQueue = Args.intArg("--rx-queue", text, 0, 0xFFFE);
    }

    @Option(names = "--cached", paramLabel = "N",
        description = "the socket's cached TX queue (marks the socket connected)")
    void cached(final String text)
    {
        cached = Args.intArg("--cached", text, 0, 0xFFFE);
    }

    @Option(names = "--ooo-okay",
        description = "no packet of the socket is in flight, so a cached queue may be re-chosen")
    void oooOkay(final boolean on)
    {
        oooOkay = on;
    }

    @Option(names = "--flow", paramLabel = "F", description = "the 5-tuple, udp|tcp:SRC:SPORT-DST:DPORT; IPv6 as [ADDR]:PORT")
    void flow(final String text)
    {
        try
        {
            flow = FlowKey.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException("--flow: " + ex.getMessage());
        }
    }

    @Option(names = "--hash-key", paramLabel = "HEX",
        description = "the 128-bit flow hash key, 32 hex digits (default: all zero, reproducible)")
    void hashKey(final String hex)
    {
        if (!hex.matches("[0-9a-fA-F]{32}"))
        {
            throw new UsageException("--hash-key '" + hex + "': expected exactly 32 hex digits (128 bits)");
        }
        hashKeyGiven = true;
        k0 = Long.parseUnsignedLong(hex.substring(0, 16), 16);
        k1 = Long.parseUnsignedLong(hex.substring(16), 16);
    }

    @Option(names = "--json", description = "print {\"txq\":N,\"via\":\"...\",\"hash\":H}")
    void json(final boolean on)
    {
        json = on;
    }

    @Override
    public Integer call()
    {
        if (flow == null)
        {
            throw new UsageException("--flow is required, e.g. --flow udp:10.0.0.1:5000-10.0.0.2:11211");
        }
        if (!live && (null != name || pid >= 0 || port != 0 || !CountersFile.DEFAULT_DIRECTORY.equals(dir)))
        {
            throw new UsageException("--name, --pid, --port and --dir choose the running pipeline --live reads: " +
                "add --live");
        }
        final QueueMap map;
        final FlowHasher hasher;
        if (live)
        {
            final XpsMapsFile.Maps maps = liveMaps();
            if (null == maps)
            {
                return Main.EXIT_FAILED;
            }
            map = maps.port(port);
            hasher = maps.hasher();
            check(map.numCpus(), "the pipeline's", map.numRxQueues());
        }
        else
        {
            map = whatIf();
            hasher = new FlowHasher(k0, k1);
        }


        final SocketQueueState socket = new SocketQueueState();
        if (rxQueue >= 0 || cached >= 0)
        {
            socket.connect();
        }
        if (rxQueue >= 0)
        {
            socket.recordRxQueue(rxQueue);
        }
        if (cached >= 0)
        {
            socket.setTxQueue(cached);
        }
        if (!oooOkay && cached >= 0)
        {
            socket.packetSent();
        }

        final int hash = hasher.hash(flow);
        final int picked = TxQueueSelector.pickTx(map, socket, cpu, hash);
        final int txq = TxQueueSelector.queue(picked);
        final SelectionRule rule = TxQueueSelector.rule(picked);
        if (json)
        {
            out.println("{\"txq\":" + txq + ",\"via\":\"" + rule.label() + "\",\"hash\":" + Integer.toUnsignedLong(hash) + "}");
        }
        else
        {
            if (null != liveLine)
            {
                out.println(liveLine);
            }
            out.printf("flow    %s%n", flow);
            out.printf("hash    0x%08x%n", hash);
            for (final String step : steps(map, rule, cpu, rxQueue, cached, oooOkay, hash))
            {
                out.println(step);
            }
            out.printf("txq     %d via %s%n", txq, rule.label());
        }
        return Main.EXIT_OK;
    }

    /** The maps of the options, applied in the order given as sysfs writes would be. */
    private QueueMap whatIf()
    {
        if (txQueues < 0)
        {
            throw new UsageException("--tx-queues is required (the real number of TX queues), or --live");
        }
        final int rxQueues = this.rxQueues < 0 ? txQueues : this.rxQueues;
        check(cpus, "--cpus", rxQueues);
        QueueMap map = QueueMap.create(txQueues, cpus, rxQueues);
        for (final String[] option : xps)
        {
            map = applyXps(map, option[0], option[1], txQueues, cpus, rxQueues);
        }
        return map;
    }

    /** The running pipeline's maps, as its mapping actors last wrote them; null (reported) if it cannot be read. */
    private XpsMapsFile.Maps liveMaps()
    {
        if (txQueues >= 0 || rxQueues >= 0 || cpus != DEFAULT_CPUS || !xps.isEmpty() || hashKeyGiven)
        {
            throw new UsageException("--live explains against the running pipeline's maps and hash key: not with " +
                "--tx-queues, --rx-queues, --cpus, --xps-cpus, --xps-rxqs or --hash-key");
        }
        if (!Files.isDirectory(dir))
        {
            throw new UsageException("--dir '" + dir + "': not a directory");
        }
        try
        {
            final RunningPipeline pipeline = RunningPipeline.find(dir, name, pid);
            final XpsMapsFile.Maps maps = XpsMapsFile.read(pipeline.xpsMaps());
            if (port >= maps.ports().size())
            {
                throw new UsageException("--port " + port + ": pipeline " + pipeline.name() + " has ports 0.." +
                    (maps.ports().size() - 1));
            }
            liveLine = String.format("maps    live: pipeline %s (pid %d) port %s as of %s, txq-reselection %s",
                pipeline.name(), pipeline.pid(), RunSummary.portName(port), maps.written(),
                ConfigValues.render(maps.txqReselection()));
            return maps;
        }
        catch (final IllegalStateException ex)
        {
            err.println("xmit explain: " + ex.getMessage());
            return null;
        }
    }

    /** {@code --cpu} and {@code --rx-queue} within the CPUs and RX queues the maps have. */
    private void check(final int cpus, final String cpusFrom, final int rxQueues)
    {
        if (cpu >= cpus)
        {
            throw new UsageException("--cpu " + cpu + ": beyond the " + cpus + " CPUs (" + cpusFrom + ")");
        }
        if (rxQueue >= rxQueues)
        {
            throw new UsageException("--rx-queue " + rxQueue + ": beyond the " + rxQueues + " RX queues (" +
                ("--cpus".equals(cpusFrom) ? "--rx-queues" : cpusFrom) + ")");
        }
    }

    /** The rules consulted, in the selector's order, up to the one that chose (kernel-semantics §1–3). */
    private static List<String> steps(
        final QueueMap map,
        final SelectionRule rule,
        final int cpu,
        final int rxQueue,
        final int cached,
        final boolean oooOkay,
        final int hash)
    {
        final int txQueues = map.realNumTx();
        final List<String> steps = new ArrayList<>();
        if (rule == SelectionRule.SINGLE)
        {
            steps.add("  single    one TX queue -> 0");
            return steps;
        }
        steps.add("  single    no, " + txQueues + " TX queues");
        if (cached < 0)
        {
            steps.add("  cached    none");
        }
        else if (cached >= txQueues)
        {
            steps.add("  cached    " + cached + " is not below " + txQueues + " real queues: pick again");
        }
        else if (oooOkay)
        {
            steps.add("  cached    " + cached + ", but nothing in flight (ooo_okay): pick again");
        }
        else
        {
            steps.add("  cached    " + cached + ", packets in flight -> " + cached);
            return steps;
        }
        steps.add(xpsStep("xps_rxqs", rxQueue, "rx queue", map.rxqMapEnabled(),
            rxQueue >= 0 ? map.rxqEntry(rxQueue) : new int[0]));
        if (rule == SelectionRule.XPS_RXQS)
        {
            return steps;
        }
        steps.add(xpsStep("xps_cpus", cpu, "cpu", map.cpuMapEnabled(), cpu >= 0 ? map.cpuEntry(cpu) : new int[0]));
        if (rule == SelectionRule.XPS_CPUS)
        {
            return steps;
        }
        steps.add(String.format("  hash      reciprocalScale(0x%08x, %d) -> %d", hash, txQueues,
            Hashing.reciprocalScale(hash, txQueues)));
        return steps;
    }

    private static String xpsStep(
        final String name, final int key, final String keyName, final boolean enabled, final int[] entry)
    {
        if (key < 0)
        {
            return "  " + name + "  skipped, no " + keyName;
        }
        if (!enabled)
        {
            return "  " + name + "  no map";
        }
        if (entry.length == 0)
        {
            return "  " + name + "  " + keyName + " " + key + " has no entry";
        }
        return "  " + name + "  " + keyName + " " + key + " -> " + Arrays.toString(entry) +
            (entry.length > 1 ? " (chosen by the flow hash)" : "");
    }

    private static QueueMap applyXps(
        final QueueMap map, final String option, final String pair, final int txQueues, final int cpus, final int rxQueues)
    {
        final int eq = pair.indexOf('=');
        if (eq <= 0)
        {
            throw new UsageException(option + " '" + pair + "': expected TXQ=MASK, e.g. 0=01");
        }
        final int txq = Args.intArg(option + " '" + pair + "': tx queue", pair.substring(0, eq), 0, txQueues - 1);
        final String mask = pair.substring(eq + 1);
        try
        {
            return option.equals("--xps-cpus") ?
                map.withXpsCpus(txq, XpsMask.parseCpus(mask, cpus, txq)) :
                map.withXpsRxqs(txq, XpsMask.parseRxqs(mask, rxQueues, txq));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(option + ": " + ex.getMessage());
        }
    }

}
