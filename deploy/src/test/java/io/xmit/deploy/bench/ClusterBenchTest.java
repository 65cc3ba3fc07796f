package io.xmit.deploy.bench;

import java.util.List;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The cluster scenario's arithmetic from made-up rounds: figures per variant, the ratios of the cluster to bare Aeron
 * UDP and to the single node taken round by round, and the target on replies per CPU-second.
 */
class ClusterBenchTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theTargetIsTheClustersRepliesPerCpuSecondOverBareAeronRoundByRound()
    {
        // Round 1: single 1,000 replies on 0.1 s of CPU, cluster 1,000 on 0.4 s, bare Aeron 1,000 on 0.25 s.
        // Round 2: single 2,000 on 0.2 s, cluster 2,000 on 0.5 s, bare Aeron 2,000 on 0.2 s.
        final ScenarioResult result = ClusterBench.summarise(List.of(
            List.of(round(1_000, SECOND / 10, 100_000), round(2_000, SECOND / 5, 100_000)),
            List.of(round(1_000, 4 * SECOND / 10, 800_000), round(2_000, SECOND / 2, 400_000)),
            List.of(round(1_000, SECOND / 4, 200_000), round(2_000, SECOND / 5, 200_000))), "made up");

        assertEquals(List.of(0.625, 0.4), result.ratios().get("replies_per_cpu_s cluster/aeron-udp").rounds());
        assertEquals(List.of(0.25, 0.4), result.ratios().get("replies_per_cpu_s cluster/single").rounds());
        assertRounds(List.of(4.0, 2.0), result.ratios().get("rtt_p50 cluster/aeron-udp").rounds());
        final Target target = result.targets().getFirst();
        assertEquals("replies_per_cpu_s cluster/aeron-udp >= 0.500", target.rule());
        assertEquals(0.5125, target.value(), 1e-9);
        assertEquals("met", target.status());

        final ScenarioResult.Variant cluster = result.variants().get(1);
        assertEquals("cluster", cluster.name());
        assertEquals(List.of(400.0, 250.0), cluster.figures().get("cpu_ms_per_1k_replies").rounds());
        assertEquals(List.of(1_000.0, 2_000.0), cluster.figures().get("replies_per_s").rounds());
        assertEquals(List.of(0.5, 0.25), cluster.figures().get("bytes_per_request_upper_bound").rounds());
        assertEquals(List.of(0.0, 0.0), cluster.figures().get("bytes_per_packet_marginal").rounds());
        assertEquals(List.of(0.0, 0.0), cluster.figures().get("requests_lost").rounds());
    }

    @Test
    void optionsOutOfRangeAreRefusedByName()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new ClusterBench.Options(1, 0, 1_000, 0, 16));
        assertEquals("cluster options out of range: 1 rounds, 0 ms warm, 1000 ms, 0 requests/s, 16 flows",
            ex.getMessage());
    }

    /**
     * A round of one second's window with every RTT {@code rttNanos}; 500 bytes allocated in it and in each of
     * the slow window, which had a quarter of the replies, and the fast one after; nothing lost.
     */
    private static ClusterBench.Round round(final long replies, final long cpuNanos, final long rttNanos)
    {
        final Histogram rtt = new Histogram(3);
        rtt.recordValueWithCount(rttNanos, replies);
        final List<AllocationWindow> fast = List.of(new AllocationWindow(500, replies, SECOND));
        return new ClusterBench.Round(replies, SECOND, rtt, cpuNanos, fast,
            List.of(new AllocationWindow(500, replies / 4, SECOND)), fast, replies, replies, 0, 0, 0, 1);
    }

    /** Each round's value within HdrHistogram's 3 digits. */
    private static void assertRounds(final List<Double> expected, final List<Double> actual)
    {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++)
        {
            assertEquals(expected.get(i), actual.get(i), 0.01, "round " + (i + 1));
        }
    }
}
