package io.xmit.deploy.bench;

import java.util.List;
import java.util.Map;

/**
 * What one scenario of {@code xmit bench} measured, for the summary table, {@code --json} and {@code --report}.
 *
 * @param scenario  {@code tx} or {@code rr}.
 * @param setup     one line on the conditions: device, CPUs, rounds and window.
 * @param rounds    measured rounds (the warm-up round excluded).
 * @param variants  in the order they ran in each round.
 * @param ratios    by name ({@code a/b}): the median of the per-round ratios, with their min and max.
 * @param targets   the targets and whether this run met them.
 */
public record ScenarioResult(
    String scenario, String setup, int rounds, List<Variant> variants, Map<String, Stat> ratios, List<Target> targets)
{
    /**
     * One variant's figures.
     *
     * @param figures by name (e.g. {@code mpps}, {@code rtt_mean_us}), in the order they are printed.
     * @param curve   for latency: {percentile, µs} points of the RTT distribution over all measured rounds merged;
     *                empty for throughput.
     */
    public record Variant(String name, Map<String, Stat> figures, List<double[]> curve)
    {
    }
}
