package io.xmit.actors.internal.lifecycle;

import io.xmit.actors.PipelineConfig;
import io.xmit.actors.XpsEntry;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.XpsMask;

import java.util.ArrayList;
import java.util.List;

/** A port's queue map at start: every TX queue real, the configuration's XPS preset, then its explicit masks. */
final class InitialQueueMap
{
    private InitialQueueMap()
    {
    }

    static QueueMap of(final PipelineConfig config, final int port, final int txCount, final int rxCount)
    {
        QueueMap map = QueueMap.create(txCount, config.cpus(), rxCount);
        if (txCount > 1)
        {
            for (int q = 0; q < txCount; q++)
            {
                switch (config.xpsPreset())
                {
                    case CPUS -> map = map.withXpsCpus(q, XpsMask.of(config.cpus(), q % config.cpus()));
                    case RXQS -> map = map.withXpsRxqs(q, XpsMask.of(rxCount, rxqsOf(q, txCount, rxCount)));
                    case NONE ->
                    {
                    }
                }
            }
        }
        for (final XpsEntry entry : config.xps())
        {
            if (entry.port() != port)
            {
                continue;
            }
            if (null != entry.cpus())
            {
                map = map.withXpsCpus(entry.txq(), XpsMask.parseCpus(entry.cpus(), config.cpus(), entry.txq()));
            }
            if (null != entry.rxqs())
            {
                map = map.withXpsRxqs(entry.txq(), XpsMask.parseRxqs(entry.rxqs(), rxCount, entry.txq()));
            }
        }
        return map;
    }

    /** The RX queues whose replies TX queue {@code txq} serves: {@code txq}, {@code txq + txCount}, … */
    private static int[] rxqsOf(final int txq, final int txCount, final int rxCount)
    {
        final List<Integer> rxqs = new ArrayList<>();
        for (int r = txq; r < rxCount; r += txCount)
        {
            rxqs.add(r);
        }
        return rxqs.stream().mapToInt(Integer::intValue).toArray();
    }
}
