package io.xmit.deploy;

import io.xmit.actors.Pipeline;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.QueueStats;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code xmit run} reports at the end, read from the pipeline's counters before it stops: the load's figures,
 * the RTT, packets per queue of each port, the bypass share, the mean bulk and the drops by reason. Printed as a
 * table and, with {@code --json FILE}, written as JSON.
 * <p>
 * The RTT is given twice: over the steady state, the live intervals after a warm-up of {@link #warmupSeconds}
 * (the JIT compiling the pipeline's paths, rings and pools filling), and over the whole run. A warm-up's stalls of
 * tens of milliseconds would otherwise be the whole run's p99 where every steady second shows a few.
 *
 * @param rtt         every reply's RTT, the warm-up's included.
 * @param steady      the RTTs of the replies after the warm-up.
 * @param warmup      seconds of the run left out of {@code steady}; 0 when the run is too short to have one.
 * @param txPackets   per port, per TX queue: packets its qdisc handed to the driver.
 * @param rxDelivered per port, per RX queue: datagrams delivered to a socket.
 * @param drops       per reason (a counter label), summed over ports and queues.
 */
record RunSummary(
    String pipeline,
    String device,
    int cpus,
    String xps,
    double seconds,
    int offeredRate,
    int flows,
    String stoppedBy,
    long requests,
    long replies,
    long backPressured,
    Histogram rtt,
    Histogram steady,
    long warmup,
    long[][] txPackets,
    long[][] rxDelivered,
    double bypassShare,
    double meanBulk,
    Map<String, Long> drops)
{
    /** Every counted way a packet is lost on its way through the pipeline. */
    static final List<CounterType> DROP_REASONS = List.of(CounterType.RX_DROP_NO_SOCKET,
        CounterType.RX_DROP_MALFORMED, CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_UNSUPPORTED,
        CounterType.RX_DROP_FAILED, CounterType.RX_DROP_SHUTDOWN, CounterType.HOST_DROP_RING_FULL,
        CounterType.HOST_DROP_FAILED, CounterType.SOCKET_DROP_CLOSED, CounterType.QDISC_DROP_OVERFLOW,
        CounterType.QDISC_DROP_OVERSIZE, CounterType.QDISC_DROP_DRIVER_ERROR, CounterType.QDISC_DROP_SHUTDOWN,
        CounterType.TXQ_DROP_SHUTDOWN);

    /** The longest warm-up left out of the steady state. */
    static final long MAX_WARMUP_SECONDS = 2;
    /** The share of a shorter run left out, in whole seconds of the live line. */
    static final int WARMUP_SHARE_PERCENT = 20;

    /**
     * The warm-up of a run of {@code duration}: its first 2 s, or its first 20 % in whole seconds when it is shorter
     * than 10 s; none for a run shorter than 5 s.
     */
    static long warmupSeconds(final Duration duration)
    {
        return Math.min(MAX_WARMUP_SECONDS, duration.toSeconds() * WARMUP_SHARE_PERCENT / 100);
    }

    static RunSummary of(final Pipeline pipeline, final RunScenario.Load load, final double seconds,
        final String stoppedBy, final long warmup)
    {
        final int ports = pipeline.portCount();
        final long[][] tx = new long[ports][];
        final long[][] rx = new long[ports][];
        for (int p = 0; p < ports; p++)
        {
            tx[p] = new long[pipeline.driver(p).txQueueCount()];
            rx[p] = new long[pipeline.driver(p).rxQueueCount()];
            for (int q = 0; q < tx[p].length; q++)
            {
                tx[p][q] = pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(p, q));
            }
            for (int q = 0; q < rx[p].length; q++)
            {
                rx[p][q] = pipeline.counter(CounterType.RX_DELIVERED, CounterScope.rxq(p, q));
            }
        }
        final Map<String, Long> drops = dropsByReason(pipeline);
        return new RunSummary(pipeline.config().name(), pipeline.config().device(), pipeline.config().cpus(),
            pipeline.config().xpsPreset().label(), seconds, load.rate(), load.flows(), stoppedBy, load.requests(),
            load.replies(), load.backPressured(), load.total(), load.steady(), warmup, tx, rx, bypassShare(pipeline), meanBulk(pipeline),
            drops);
    }

    long dropsTotal()
    {
        return drops.values().stream().mapToLong(Long::longValue).sum();
    }

    void print(final PrintStream out)
    {
        out.println();
        out.printf(Locale.ROOT, "%-32s %s, %d CPUs, XPS %s, %.1f s (%s)%n", "xmit run", device, cpus, xps, seconds,
            stoppedBy);
        out.printf(Locale.ROOT, "%-32s %,d%n", "requests sent", requests);
        out.printf(Locale.ROOT, "%-32s %,d%n", "replies received", replies);
        out.printf(Locale.ROOT, "%-32s %,d%n", "sends back-pressured (retried)", backPressured);
        out.printf(Locale.ROOT, "%s%n", "RTT p50 / p99 / p99.9 / max");
        out.printf(Locale.ROOT, "%-32s %s%n", "  " + steadyLabel(), 0 == steady.getTotalCount() ? steadyMissing() :
            percentiles(steady));
        out.printf(Locale.ROOT, "%-32s %s%n", "  whole run", percentiles(rtt));
        final StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-8s", "queue"));
        for (int p = 0; p < txPackets.length; p++)
        {
            header.append(String.format(Locale.ROOT, " %14s %14s", portName(p) + " tx packets",
                portName(p) + " rx delivered"));
        }
        out.println(header);
        final int queues = Math.max(maxLength(txPackets), maxLength(rxDelivered));
        for (int q = 0; q < queues; q++)
        {
            final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8d", q));
            for (int p = 0; p < txPackets.length; p++)
            {
                row.append(String.format(Locale.ROOT, " %,14d %,14d", at(txPackets[p], q), at(rxDelivered[p], q)));
            }
            out.println(row);
        }
        out.printf(Locale.ROOT, "%-32s %.1f%%%n", "bypass share", 100.0 * bypassShare);
        out.printf(Locale.ROOT, "%-32s %.1f packets%n", "mean bulk (tx_burst)", meanBulk);
        out.printf(Locale.ROOT, "%-32s %,d%n", "drops (all reasons)", dropsTotal());
        drops.forEach((reason, count) ->
        {
            if (count > 0)
            {
                out.printf(Locale.ROOT, "%-32s %,d%n", "  " + reason, count);
            }
        });
    }

    String json()
    {
        final Json json = new Json().object()
            .field("pipeline", pipeline).field("device", device).field("cpus", cpus).field("xps", xps)
            .field("seconds", seconds).field("stopped_by", stoppedBy).field("offered_rate", offeredRate)
            .field("flows", flows).field("requests_sent", requests).field("replies_received", replies)
            .field("sends_back_pressured", backPressured)
            .field("warmup_seconds", warmup);
        rtt(json.object("rtt_us"), rtt).endObject();
        rtt(json.object("rtt_steady_us"), steady).endObject();
        json.array("ports");
        for (int p = 0; p < txPackets.length; p++)
        {
            json.object().field("port", portName(p)).array("tx_packets");
            for (final long packets : txPackets[p])
            {
                json.value(packets);
            }
            json.endArray().array("rx_delivered");
            for (final long delivered : rxDelivered[p])
            {
                json.value(delivered);
            }
            json.endArray().endObject();
        }
        json.endArray().field("bypass_share", bypassShare).field("mean_bulk", meanBulk)
            .object("drops").field("total", dropsTotal());
        drops.forEach(json::field);
        return json.endObject().endObject().toString();
    }

    static String portName(final int port)
    {
        return String.valueOf((char)('A' + port));
    }

    /** The share of packets that bypassed a qdisc's backlog, over every queue of every port. */
    static double bypassShare(final Pipeline pipeline)
    {
        final long packets = sum(pipeline, CounterType.QDISC_PACKETS);
        return 0 == packets ? 0 : (double)sum(pipeline, CounterType.QDISC_BYPASSED) / packets;
    }

    /** Packets per tx_burst, over every queue of every port. */
    static double meanBulk(final Pipeline pipeline)
    {
        final long bulks = sum(pipeline, CounterType.QDISC_BULKS);
        return 0 == bulks ? 0 : (double)sum(pipeline, CounterType.QDISC_PACKETS) / bulks;
    }

    /**
     * Every counted loss by reason, summed over ports and queues: the pipeline's drop counters, and the device's own
     * (frames that found an RX ring full, {@code nic_rx_missed}; frames removed by fault injection,
     * {@code nic_rx_dropped}), which never reach the pipeline.
     */
    static Map<String, Long> dropsByReason(final Pipeline pipeline)
    {
        final Map<String, Long> drops = new LinkedHashMap<>();
        for (final CounterType type : DROP_REASONS)
        {
            drops.put(type.label(), sum(pipeline, type));
        }
        long missed = 0;
        long dropped = 0;
        for (int p = 0; p < pipeline.portCount(); p++)
        {
            for (int q = 0; q < pipeline.driver(p).rxQueueCount(); q++)
            {
                final QueueStats stats = pipeline.driver(p).stats(q);
                missed += stats.rxMissed();
                dropped += stats.rxDropped();
            }
        }
        drops.put("nic_rx_missed", missed);
        drops.put("nic_rx_dropped", dropped);
        return drops;
    }

    /** Counter {@code type} over every queue (or socket) of every port. */
    static long sum(final Pipeline pipeline, final CounterType type)
    {
        long sum = 0;
        for (int p = 0; p < pipeline.portCount(); p++)
        {
            sum += pipeline.total(type, p);
        }
        return sum;
    }

    /** {@code steady (after 2 s)}: which warm-up the steady figures leave out. */
    private String steadyLabel()
    {
        return 0 == warmup ? "steady" : "steady (after " + warmup + " s)";
    }

    /** Why there are no steady figures: a run too short for a warm-up, or one stopped before its end. */
    private String steadyMissing()
    {
        return 0 == warmup ? "n/a: a run shorter than 5 s has no warm-up to leave out" :
            "n/a: no replies after the warm-up";
    }

    /** {@code 2.1 ms / 5.8 ms / 6.2 ms / 7.0 ms}, or {@code n/a} without a reply. */
    private static String percentiles(final Histogram histogram)
    {
        if (0 == histogram.getTotalCount())
        {
            return "n/a";
        }
        return Units.nanos(histogram.getValueAtPercentile(50)) + " / " +
            Units.nanos(histogram.getValueAtPercentile(99)) + " / " +
            Units.nanos(histogram.getValueAtPercentile(99.9)) + " / " + Units.nanos(histogram.getMaxValue());
    }

    /** The RTT fields in µs, and the replies they are over. */
    private static Json rtt(final Json json, final Histogram histogram)
    {
        return json.field("replies", histogram.getTotalCount())
            .field("p50", histogram.getValueAtPercentile(50) / 1000.0)
            .field("p99", histogram.getValueAtPercentile(99) / 1000.0)
            .field("p99_9", histogram.getValueAtPercentile(99.9) / 1000.0)
            .field("max", histogram.getMaxValue() / 1000.0);
    }

    private static int maxLength(final long[][] perPort)
    {
        int max = 0;
        for (final long[] queues : perPort)
        {
            max = Math.max(max, queues.length);
        }
        return max;
    }

    private static long at(final long[] values, final int index)
    {
        return index < values.length ? values[index] : 0;
    }
}
