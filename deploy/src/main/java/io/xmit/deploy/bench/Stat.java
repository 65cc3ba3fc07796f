package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One figure over the measured rounds: the median, with the smallest and largest round beside it.
 *
 * @param median the middle round, or the mean of the two middle ones.
 */
public record Stat(double median, double min, double max)
{
    /** @throws IllegalArgumentException if there are no rounds. */
    public static Stat of(final List<Double> rounds)
    {
        if (rounds.isEmpty())
        {
            throw new IllegalArgumentException("no rounds");
        }
        final List<Double> sorted = new ArrayList<>(rounds);
        Collections.sort(sorted);
        final int middle = sorted.size() / 2;
        final double median = 0 == sorted.size() % 2 ?
            (sorted.get(middle - 1) + sorted.get(middle)) / 2 : sorted.get(middle);
        return new Stat(median, sorted.getFirst(), sorted.getLast());
    }
}
