package io.xmit.deploy;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One counter of a pipeline's counters file as the exports show it: its kind, what it belongs to and its value at
 * the moment it was read. Read from the mapped file in another process, never from the pipeline's hot path.
 */
record CounterReading(CounterType type, CounterScope scope, long value)
{
    private static final Map<Integer, CounterType> TYPES = new HashMap<>();

    static
    {
        for (final CounterType type : CounterType.values())
        {
            TYPES.put(type.typeId(), type);
        }
    }

    /**
     * Every counter of a kind this build knows, in the file's order. A kind from a newer pipeline is left out (it
     * has no name here yet), and so is a second counter of one kind and scope, as {@link CountersView#value} reads
     * only the first.
     */
    static List<CounterReading> read(final CountersView view)
    {
        final List<CounterReading> readings = new ArrayList<>();
        final Set<CounterReading> seen = new HashSet<>();
        view.forEach((counterId, typeId, scope, label, value) ->
        {
            final CounterType type = TYPES.get(typeId);
            if (null != type && seen.add(new CounterReading(type, scope, 0)))
            {
                readings.add(new CounterReading(type, scope, value));
            }
        });
        return readings;
    }

    /**
     * The scope as names and values, in the order of its label: {@code port=0 txq=3 stage=qdisc} is port 0, txq 3,
     * stage qdisc; the tracer's scope ({@code trace}) has none.
     */
    static Map<String, String> labels(final CounterScope scope)
    {
        final Map<String, String> labels = new LinkedHashMap<>();
        for (final String pair : scope.label().split(" "))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0)
            {
                labels.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return labels;
    }
}
