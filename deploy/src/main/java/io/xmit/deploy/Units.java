package io.xmit.deploy;

import java.util.Locale;

/**
 * A duration in the unit its size calls for, µs, ms or s, with two or three significant digits: {@code 850 µs},
 * {@code 2.4 ms}, {@code 53 ms}, {@code 1.2 s}. A column of RTTs then reads at a glance whether it is microseconds
 * or the milliseconds of a stall.
 */
public final class Units
{
    private Units()
    {
    }

    /** {@code nanos} nanoseconds, e.g. {@code 850 µs}; {@code n/a} for a value that is not a number. */
    public static String nanos(final double nanos)
    {
        if (!Double.isFinite(nanos))
        {
            return "n/a";
        }
        final double micros = nanos / 1e3;
        // Thresholds after rounding: 999.7 µs is 1.0 ms, not "1000 µs".
        if (Math.abs(micros) < 9.95)
        {
            return String.format(Locale.ROOT, "%.1f µs", micros);
        }
        if (Math.abs(micros) < 999.5)
        {
            return String.format(Locale.ROOT, "%.0f µs", micros);
        }
        final double millis = micros / 1e3;
        if (Math.abs(millis) < 9.95)
        {
            return String.format(Locale.ROOT, "%.1f ms", millis);
        }
        if (Math.abs(millis) < 999.5)
        {
            return String.format(Locale.ROOT, "%.0f ms", millis);
        }
        return String.format(Locale.ROOT, "%.1f s", millis / 1e3);
    }

    /** {@code micros} microseconds, as {@link #nanos}. */
    public static String micros(final double micros)
    {
        return nanos(micros * 1e3);
    }
}
