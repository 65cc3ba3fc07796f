package io.xmit.deploy.bench;

import java.util.Locale;

/**
 * A figure a bench is held against (the targets), and whether this run met it. A missed target is reported,
 * not an error: the machines are noisy, and the figure is what the reader needs.
 *
 * @param figure  what is compared, e.g. {@code xmit/akka-naive} (a ratio's name) or {@code xmit bytes_per_packet}.
 * @param atLeast true if the figure must be at least {@code bound}, false if at most.
 * @param value   the median measured.
 */
public record Target(String figure, boolean atLeast, double bound, double value)
{
    public boolean met()
    {
        return atLeast ? value >= bound : value <= bound;
    }

    /** E.g. {@code xmit/akka-naive >= 5}. */
    public String rule()
    {
        return figure + (atLeast ? " >= " : " <= ") + format(bound);
    }

    private static String format(final double bound)
    {
        return bound == Math.rint(bound) ? Long.toString((long)bound) :
            String.format(Locale.ROOT, "%.3f", bound);
    }
}
