package io.xmit.deploy;

import io.xmit.actors.config.ConfigValues;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SelectionRule;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code xmit stat --xps}: a running pipeline's XPS maps as its maps file has them ({@link XpsMapsFile}), per port
 * the rules a TX queue can be chosen by, what each queue's {@code xps_cpus} and {@code xps_rxqs} read back in
 * sysfs's hex form, and each map's entries in the order a flow hash picks from them (kernel-semantics §2.3, §2.6).
 */
final class XpsMapsView
{
    private XpsMapsView()
    {
    }

    /** The rules that can choose a TX queue on a port with {@code map}, in the order they are tried (§1–§3). */
    static List<SelectionRule> rules(final QueueMap map)
    {
        if (map.realNumTx() == 1)
        {
            return List.of(SelectionRule.SINGLE);
        }
        final List<SelectionRule> rules = new ArrayList<>(List.of(SelectionRule.CACHED));
        if (map.rxqMapEnabled())
        {
            rules.add(SelectionRule.XPS_RXQS);
        }
        if (map.cpuMapEnabled())
        {
            rules.add(SelectionRule.XPS_CPUS);
        }
        rules.add(SelectionRule.HASH);
        return rules;
    }

    static String text(final String pipeline, final long pid, final XpsMapsFile.Maps maps)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("pipeline " + pipeline + " (pid " + pid + ")  XPS maps as of " + maps.written());
        lines.add("txq-reselection " + ConfigValues.render(maps.txqReselection()) + " (a cached TX queue is chosen " +
            "again once it is that old; 0s: never)");
        for (int p = 0; p < maps.ports().size(); p++)
        {
            final QueueMap map = maps.ports().get(p);
            lines.add("port " + RunSummary.portName(p) + "  " + map.realNumTx() + " of " + map.numTxQueues() +
                " TX queues real, " + map.numCpus() + " CPUs, " + map.numRxQueues() + " RX queues; rules: " +
                String.join(", ", rules(map).stream().map(SelectionRule::label).toList()));
            final List<List<String>> queues = new ArrayList<>();
            queues.add(List.of("  txq", "xps_cpus", "xps_rxqs"));
            for (int q = 0; q < map.realNumTx(); q++)
            {
                queues.add(List.of("  tx-" + q, map.numTxQueues() == 1 ? "-" : map.xpsCpus(q).toString(),
                    map.xpsRxqs(q).toString()));
            }
            lines.addAll(Table.lines(queues));
            lines.addAll(entries("xps_cpus", "cpu", map.cpuMapEnabled(), map.numCpus(), map::cpuEntry));
            lines.addAll(entries("xps_rxqs", "rxq", map.rxqMapEnabled(), map.numRxQueues(), map::rxqEntry));
        }
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    static String json(final String pipeline, final long pid, final XpsMapsFile.Maps maps)
    {
        final Json json = new Json().object().field("pipeline", pipeline).field("pid", pid)
            .field("written", maps.written().toString())
            .field("txq_reselection", ConfigValues.render(maps.txqReselection())).array("ports");
        for (int p = 0; p < maps.ports().size(); p++)
        {
            final QueueMap map = maps.ports().get(p);
            json.object().field("port", p).field("name", RunSummary.portName(p))
                .field("tx_queues", map.numTxQueues()).field("real_tx_queues", map.realNumTx())
                .field("cpus", map.numCpus()).field("rx_queues", map.numRxQueues()).array("rules");
            rules(map).forEach(rule -> json.value(rule.label()));
            json.endArray().array("txq");
            for (int q = 0; q < map.realNumTx(); q++)
            {
                json.object().field("queue", q);
                if (map.numTxQueues() > 1)
                {
                    json.field("xps_cpus", map.xpsCpus(q).toString());
                }
                json.field("xps_rxqs", map.xpsRxqs(q).toString()).endObject();
            }
            json.endArray();
            entries(json, "xps_cpus", "cpu", map.numCpus(), map::cpuEntry);
            entries(json, "xps_rxqs", "rxq", map.numRxQueues(), map::rxqEntry);
            json.endObject();
        }
        return json.endArray().endObject().toString();
    }

    private interface Entry
    {
        int[] of(int id);
    }

    /** {@code   xps_cpus cpu 0 -> 0 2}, a line per id with an entry, its queues in map order. */
    private static List<String> entries(final String map, final String id, final boolean enabled, final int ids,
        final Entry entry)
    {
        if (!enabled)
        {
            return List.of("  " + map + " no map");
        }
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < ids; i++)
        {
            final int[] queues = entry.of(i);
            if (queues.length > 0)
            {
                final StringBuilder line = new StringBuilder("  " + map + " " + id + " " + i + " ->");
                for (final int queue : queues)
                {
                    line.append(' ').append(queue);
                }
                lines.add(line.toString());
            }
        }
        return lines;
    }

    private static void entries(final Json json, final String map, final String id, final int ids, final Entry entry)
    {
        json.array(map);
        for (int i = 0; i < ids; i++)
        {
            final int[] queues = entry.of(i);
            if (queues.length > 0)
            {
                json.object().field(id, i).array("queues");
                for (final int queue : queues)
                {
                    json.value(queue);
                }
                json.endArray().endObject();
            }
        }
        json.endArray();
    }
}
