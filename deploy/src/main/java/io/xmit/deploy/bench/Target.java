package io.xmit.deploy.bench;

import java.util.Locale;

/**
 * A figure a bench is held against (the targets), and whether this run met it. A missed target is reported,
 * not an error: the machines are noisy, and the figure is what the reader needs. A target whose variants did not run
 * (busy polling before the pipeline has it) is not measured, and is neither met nor missed.
 *
 * @param figure  what is compared, e.g. {@code xmit/akka-naive} (a ratio's name) or {@code xmit bytes_per_packet}.
 * @param atLeast true if the figure must be at least {@code bound}, false if at most.
 * @param value   the median measured; NaN if not measured.
 */
public record Target(String figure, boolean atLeast, double bound, double value)
{
    /** What {@link #status()} says of a target that was not measured. */
    public static final String NOT_MEASURED = "not measured yet";

    /** A target this run has no figure for. */
    public static Target notMeasured(final String figure, final boolean atLeast, final double bound)
    {
        return new Target(figure, atLeast, bound, Double.NaN);
    }

    public boolean measured()
    {
        return !Double.isNaN(value);
    }

    /** False if missed or not measured. */
    public boolean met()
    {
        return measured() && (atLeast ? value >= bound : value <= bound);
    }

    /** {@code met}, {@code MISSED} or {@link #NOT_MEASURED}. */
    public String status()
    {
        return !measured() ? NOT_MEASURED : met() ? "met" : "MISSED";
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
