package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One figure over the measured rounds: the median, with the smallest and largest round beside it, and every round's
 * value so that a reader of {@code --json} can see the spread for themselves.
 *
 * @param median the middle round, or the mean of the two middle ones.
 * @param rounds each measured round's value, in the order the rounds ran.
 */
public record Stat(double median, double min, double max, List<Double> rounds)
{
    public Stat
    {
        rounds = List.copyOf(rounds);
    }

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
        return new Stat(median, sorted.getFirst(), sorted.getLast(), rounds);
    }
}
