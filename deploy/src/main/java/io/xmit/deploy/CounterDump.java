package io.xmit.deploy;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CountersView;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code xmit stat --all}: every counter of a counters file, one per line as {@code ethtool -S} lists a device's,
 * {@code label  name  value}: the scope's label ({@code port=0 txq=3}, {@code trace}), the counter's name
 * ({@code qdisc_packets}) and its value. Sorted by what the counter belongs to (port, then the port's own, its RX
 * queues, TX queues and sockets by number, then stage and side) and then by name, so the order does not depend on when
 * the pipeline allocated them. A kind this build does not know keeps the name the pipeline wrote into its label.
 */
final class CounterDump
{
    /** Orders counters by scope, numbers as numbers, then by name. */
    private static final Comparator<Line> ORDER = Comparator
        .comparingInt((Line line) -> line.scope().port())
        .thenComparingInt(line -> line.scope().attachment().ordinal())
        .thenComparingInt(line -> line.scope().index())
        .thenComparingInt(line -> line.scope().stage().ordinal())
        .thenComparingInt(line -> line.scope().side().ordinal())
        .thenComparing(Line::name);

    /** One counter as it is shown. */
    record Line(CounterScope scope, String name, long value)
    {
        /** What {@code --filter} is matched against: {@code port=0 txq=3 qdisc_packets}. */
        String key()
        {
            return scope.label() + " " + name;
        }
    }

    private CounterDump()
    {
    }

    /**
     * The {@code --filter} pattern: a regular expression found anywhere in a counter's label and name, so plain text
     * such as {@code txq=3} or {@code drop} works as it reads.
     *
     * @throws UsageException naming the filter and what is wrong with it.
     */
    static Pattern filter(final String text)
    {
        try
        {
            return Pattern.compile(text);
        }
        catch (final PatternSyntaxException ex)
        {
            throw new UsageException("--filter '" + text + "': not a regular expression: " + ex.getDescription() +
                (ex.getIndex() >= 0 ? " at index " + ex.getIndex() : ""));
        }
    }

    /** Every counter of {@code view} whose label and name {@code filter} finds (every one if null), in order. */
    static List<Line> read(final CountersView view, final Pattern filter)
    {
        final List<Line> lines = new ArrayList<>();
        view.forEach((counterId, typeId, scope, label, value) ->
        {
            final Line line = new Line(scope, name(typeId, label), value);
            if (null == filter || filter.matcher(line.key()).find())
            {
                lines.add(line);
            }
        });
        lines.sort(ORDER);
        return lines;
    }

    /** The lines as a table: labels and names left-aligned in columns as wide as the widest shown, values right. */
    static String table(final List<Line> lines)
    {
        int labelWidth = 1;
        int nameWidth = 1;
        int valueWidth = 1;
        for (final Line line : lines)
        {
            labelWidth = Math.max(labelWidth, line.scope().label().length());
            nameWidth = Math.max(nameWidth, line.name().length());
            valueWidth = Math.max(valueWidth, Long.toString(line.value()).length());
        }
        final String format = "%-" + labelWidth + "s  %-" + nameWidth + "s  %" + valueWidth + "d%n";
        final StringBuilder text = new StringBuilder();
        for (final Line line : lines)
        {
            text.append(String.format(Locale.ROOT, format, line.scope().label(), line.name(), line.value()));
        }
        return text.toString();
    }

    /** The counter's name: the first word of its label, which the pipeline writes as the kind's name. */
    private static String name(final int typeId, final String label)
    {
        final int space = label.indexOf(' ');
        final String name = space < 0 ? label : label.substring(0, space);
        return name.isEmpty() ? "type" + typeId : name;
    }
}
