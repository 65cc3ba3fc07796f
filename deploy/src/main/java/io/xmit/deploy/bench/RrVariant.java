package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One variant of the {@code rr} scenario: the pipeline keys it sets over the round's base configuration, one
 * {@link Setting} per axis (XPS mode, busy polling). The variants are the product of the axes, so that a new value
 * of an axis is one setting: a pipeline key and a label, and every combination with the other axes runs.
 *
 * @param name     the settings' labels joined by {@code +}, an empty label left out: {@code xps-rxqs}.
 * @param settings one per axis, in the axes' order.
 */
public record RrVariant(String name, List<Setting> settings)
{
    /** Joins the labels of a variant's name; not {@code /}, which names a ratio. */
    public static final String JOIN = "+";

    /**
     * One value of an axis.
     *
     * @param label its part of the variant's name; empty for an axis' default, so that a variant with only defaults
     *              beside its XPS mode keeps the mode's name.
     * @param keys  HOCON under {@code xmit { … }}, e.g. {@code xps.preset = rxqs}; empty to keep the base's.
     */
    public record Setting(String label, String keys)
    {
    }

    public RrVariant
    {
        settings = List.copyOf(settings);
    }

    /** Every combination of one setting per axis, the first axis varying fastest: a, b, c, a+on, b+on, c+on. */
    public static List<RrVariant> product(final List<List<Setting>> axes)
    {
        List<List<Setting>> combinations = List.of(List.of());
        for (final List<Setting> axis : axes)
        {
            final List<List<Setting>> longer = new ArrayList<>();
            for (final Setting setting : axis)
            {
                for (final List<Setting> combination : combinations)
                {
                    final List<Setting> next = new ArrayList<>(combination);
                    next.add(setting);
                    longer.add(next);
                }
            }
            combinations = longer;
        }
        return combinations.stream().map(RrVariant::of).toList();
    }

    /** The variant of these settings, named by their labels. */
    public static RrVariant of(final List<Setting> settings)
    {
        return new RrVariant(settings.stream().map(Setting::label).filter(label -> !label.isEmpty())
            .collect(Collectors.joining(JOIN)), settings);
    }

    /** The keys of every setting, a line each. */
    public String keys()
    {
        return settings.stream().map(Setting::keys).filter(keys -> !keys.isEmpty()).collect(Collectors.joining("\n"));
    }

    /** This variant with {@code axis}'s setting replaced by {@code setting}. */
    public RrVariant with(final int axis, final Setting setting)
    {
        final List<Setting> changed = new ArrayList<>(settings);
        changed.set(axis, setting);
        return of(changed);
    }
}
