package io.xmit.deploy;

import io.xmit.actors.trace.PcapngReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code xmit trace show FILE [--packet ID]}: the packets of a trace file written by {@code xmit run --trace-file}
 * (or any pipeline with {@code xmit.trace.file}), one line each, or one request's round trip through the pipeline as a
 * timeline ({@link RoundTrip}): where it was sent and arrived, which socket took it, which TX queue it and its reply
 * left on and why, how long each waited, and when the device completed it.
 */
@Command(name = "trace", synopsisSubcommandLabel = "show",
    description = "show a trace file (write one with xmit run --trace-file)")
final class TraceCommand implements Callable<Integer>
{
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT)
        .withZone(ZoneOffset.UTC);

    @Mixin
    private HelpOption help;

    @Spec
    private CommandSpec spec;

    private final PrintStream err;

    TraceCommand(final PrintStream err)
    {
        this.err = err;
    }

    /** {@code xmit trace} alone: its help, as a usage error. */
    @Override
    public Integer call()
    {
        err.print(spec.commandLine().getUsageMessage());
        err.flush();
        return Main.EXIT_USAGE;
    }

    /** {@code xmit trace show FILE [--packet ID]}. */
    @Command(name = "show", description = "the packets of a trace file, one line per packet side: " +
        "time, interface, direction, packet id and its decisions; with --packet, one request's round trip through " +
        "the pipeline as a timeline")
    static final class Show implements Callable<Integer>
    {
        @Mixin
        private HelpOption help;

        private final PrintStream out;
        private final PrintStream err;

        @Parameters(paramLabel = "FILE", description = "a pcapng file written by xmit (xmit run --trace … --trace-file FILE)")
        private Path file;

        private long packet = -1;

        Show(final PrintStream out, final PrintStream err)
        {
            this.out = out;
            this.err = err;
        }

        @Option(names = "--packet", paramLabel = "ID",
            description = "one request's round trip as a timeline: its send, its arrival, the reply and the reply's " +
                "arrival, as far as they were traced (ID: any of their packet ids)")
        void packet(final String text)
        {
            try
            {
                packet = Long.parseUnsignedLong(text);
            }
            catch (final NumberFormatException ex)
            {
                throw new UsageException("--packet '" + text + "': not a packet id");
            }
        }

        @Override
        public Integer call()
        {
            if (!Files.isRegularFile(file))
            {
                throw new UsageException("'" + file + "': no such file");
            }
            return TraceCommand.show(file, packet, out, err);
        }
    }

    private static int show(final Path file, final long packet, final PrintStream out, final PrintStream err)
    {
        final List<PcapngReader.Packet> packets;
        try
        {
            packets = PcapngReader.read(file);
        }
        catch (final IOException ex)
        {
            err.println("xmit trace: " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        if (packet < 0)
        {
            for (final PcapngReader.Packet p : packets)
            {
                out.printf(Locale.ROOT, "%s  %-12s %-3s id=%-8d %s%n", clock(p.timeNs()), p.iface(),
                    2 == p.direction() ? "out" : "in", p.packetId(), p.comment());
            }
            out.printf(Locale.ROOT, "%d packet sides%n", packets.size());
            return Main.EXIT_OK;
        }
        final List<PcapngReader.Packet> sides = RoundTrip.of(packets, packet);
        if (sides.isEmpty())
        {
            err.println("xmit trace: no packet " + packet + " in " + file);
            return Main.EXIT_FAILED;
        }
        timeline(packet, sides, out);
        return Main.EXIT_OK;
    }

    /**
     * The round trip of one packet ({@link RoundTrip}): a line that links its sides and their ids, then the steps of
     * every side in time order, relative to the first, each with its packet id.
     */
    static void timeline(final long id, final List<PcapngReader.Packet> sides, final PrintStream out)
    {
        record Step(long timeNs, long id, String where, String what)
        {
        }
        final List<Step> steps = new ArrayList<>();
        final List<String> links = new ArrayList<>();
        for (final PcapngReader.Packet side : sides)
        {
            final Map<String, String> k = RoundTrip.keys(side.comment());
            final long t = side.timeNs();
            final long p = side.packetId();
            final String port = RunSummary.portName(Integer.parseInt(k.get("port")));
            if (1 == side.direction())
            {
                links.add("arrived at port " + port + " as " + p);
                steps.add(new Step(t, p, side.iface(), "arrived on RX queue " + k.get("rxq") + ", CPU " +
                    k.get("cpu") + ", " + side.originalLength() + " bytes, for socket " + k.get("sock")));
                if (k.containsKey("deliver_ns"))
                {
                    steps.add(new Step(t + RoundTrip.number(k, "deliver_ns"), p, side.iface(), "socket " +
                        k.get("sock") + " took it on CPU " + k.get("sock_cpu")));
                }
                else
                {
                    steps.add(new Step(t, p, side.iface(), "no socket took it before the trace ended"));
                }
                continue;
            }
            // The block's time is when the driver accepted the packet; the comment gives the waits before and after.
            final long queued = RoundTrip.number(k, "queued_ns");
            final long ring = RoundTrip.number(k, "ring_ns");
            final long sent = RoundTrip.startNs(side);
            final boolean reply = k.containsKey("reply");
            links.add((reply ? "replied from port " : "sent from port ") + port + " as " + p);
            steps.add(new Step(sent, p, side.iface(), "socket " + k.get("sock") + " on CPU " + k.get("cpu") +
                (reply ? " replied" : " sent") + ": TX queue " + k.get("txq") + ", chosen by " + k.get("via")));
            if (k.containsKey("qdisc"))
            {
                steps.add(new Step(sent + ring, p, side.iface(), "qdisc " + ("enqueued".equals(k.get("qdisc")) ?
                    "enqueued it in band " + k.get("band") : "bypass: straight to the driver") + " after " +
                    ring + " ns in the ring"));
            }
            if ("accept".equals(k.get("driver")))
            {
                steps.add(new Step(t, p, side.iface(), "driver accepted it, packet " + k.get("bulk") + " of a bulk, " +
                    "after " + queued + " ns queued" + ("0".equals(k.get("requeues")) ? "" :
                    " and " + k.get("requeues") + " requeues")));
            }
            if (k.containsKey("complete_ns"))
            {
                steps.add(new Step(t + RoundTrip.number(k, "complete_ns"), p, side.iface(), "device completed it"));
            }
            else
            {
                steps.add(new Step(t, p, side.iface(), "not completed before the trace ended"));
            }
        }
        steps.sort((a, b) -> Long.compare(a.timeNs(), b.timeNs()));
        final long first = steps.getFirst().timeNs();
        out.printf(Locale.ROOT, "packet %d, %d side(s), from %s UTC%n", id, sides.size(), clock(first));
        out.printf(Locale.ROOT, "  %s%n", String.join(" -> ", links));
        for (final Step step : steps)
        {
            out.printf(Locale.ROOT, "  %+,12d ns  %-12s id=%-6d %s%n", step.timeNs() - first, step.where(), step.id(),
                step.what());
        }
    }

    private static String clock(final long epochNs)
    {
        final Instant at = Instant.ofEpochSecond(epochNs / 1_000_000_000L, epochNs % 1_000_000_000L);
        return CLOCK.format(at) + String.format(Locale.ROOT, ".%09d", epochNs % 1_000_000_000L);
    }
}
