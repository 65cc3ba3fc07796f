package io.xmit.deploy;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersView;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline's counters in Prometheus' exposition, through the Prometheus Java client: each scrape reads the counters
 * file once (a collector, not instruments the pipeline would update), so the pipeline's hot path is untouched and the
 * values are the file's own. A counter kind is one metric, {@code xmit_} and its label ({@code xmit_qdisc_packets},
 * {@code _total} added for a counter, none for a gauge), its scope as labels: {@code pipeline}, {@code port}, and
 * {@code txq}, {@code rxq}, {@code socket}, {@code stage}, {@code side} where it has them.
 */
final class PrometheusExport implements MultiCollector
{
    static final String PREFIX = "xmit_";

    private final CountersView view;
    private final String pipeline;

    PrometheusExport(final CountersView view, final String pipeline)
    {
        this.view = view;
        this.pipeline = pipeline;
    }

    /** Starts an HTTP server for {@code /metrics} at {@code address} (port 0: any free one, see its getPort). */
    static HTTPServer serve(final CountersView view, final String pipeline, final InetSocketAddress address)
        throws IOException
    {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new PrometheusExport(view, pipeline));
        final HTTPServer.Builder server = HTTPServer.builder().port(address.getPort()).registry(registry);
        if (!address.getAddress().isAnyLocalAddress())
        {
            server.inetAddress(address.getAddress());
        }
        return server.buildAndStart();
    }

    @Override
    public MetricSnapshots collect()
    {
        final Map<CounterType, List<CounterReading>> byType = new EnumMap<>(CounterType.class);
        for (final CounterReading reading : CounterReading.read(view))
        {
            byType.computeIfAbsent(reading.type(), type -> new ArrayList<>()).add(reading);
        }
        final List<MetricSnapshot> metrics = new ArrayList<>();
        for (final Map.Entry<CounterType, List<CounterReading>> entry : byType.entrySet())
        {
            final CounterType type = entry.getKey();
            final String help = "xmit counter " + type.label() + " (type id " + type.typeId() + ")";
            if (type.isGauge())
            {
                final GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(PREFIX + type.label()).help(help);
                for (final CounterReading reading : entry.getValue())
                {
                    gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels(reading))
                        .value(reading.value()).build());
                }
                metrics.add(gauge.build());
            }
            else
            {
                final CounterSnapshot.Builder counter = CounterSnapshot.builder().name(PREFIX + type.label()).help(help);
                for (final CounterReading reading : entry.getValue())
                {
                    counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels(reading))
                        .value(reading.value()).build());
                }
                metrics.add(counter.build());
            }
        }
        return new MetricSnapshots(metrics);
    }

    private Labels labels(final CounterReading reading)
    {
        final Labels.Builder labels = Labels.builder().label("pipeline", pipeline);
        CounterReading.labels(reading.scope()).forEach(labels::label);
        return labels.build();
    }
}
