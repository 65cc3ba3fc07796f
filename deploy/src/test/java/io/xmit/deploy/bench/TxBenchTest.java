package io.xmit.deploy.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The summary arithmetic, the options' checks, the locked qdisc and bare Aeron delivering exactly what they send, and
 * each measuring a window and stopping its threads.
 */
class TxBenchTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void runsTheIssuesVariantsInOrderWithXmitFirst()
    {
        assertEquals(List.of("xmit", "sender-bypass", "no-bypass", "bulk-1", "locked-qdisc", "akka-naive",
            "aeron-raw"), TxBench.TX_VARIANTS);
        assertEquals(List.of("xmit", "trace-miss", "trace-1k"), TxBench.TRACE_VARIANTS);
        assertEquals(TxBench.REFERENCE, TxBench.Options.FULL.variants().getFirst());
    }

    @Test
    void rejectsUnknownVariantsAndEmptyRounds()
    {
        assertThrows(IllegalArgumentException.class, () -> new TxBench.Options(1, 100, List.of("nope")));
        assertThrows(IllegalArgumentException.class, () -> new TxBench.Options(0, 100, List.of("xmit")));
        assertThrows(IllegalArgumentException.class, () -> new TxBench.Options(1, 100, List.of()));
    }

    @Test
    void figuresAreMediansWithMinAndMaxAndRatiosAreMediansOfPerRoundRatios()
    {
        final List<List<TxVariant.Result>> results = List.of(
            List.of(result(2_000_000, 0), result(4_000_000, 0), result(8_000_000, 0)),
            List.of(result(1_000_000, 3), result(1_000_000, 1), result(4_000_000, 0)));

        final ScenarioResult summary = TxBench.summarise(TxBench.SCENARIO, List.of("xmit", "akka-naive"), results, "setup");

        assertEquals("tx", summary.scenario());
        assertEquals(3, summary.rounds());
        assertEquals(new Stat(4.0, 2.0, 8.0, List.of(2.0, 4.0, 8.0)), summary.variants().get(0).figures().get("mpps"));
        assertEquals(new Stat(1.0, 1.0, 4.0, List.of(1.0, 1.0, 4.0)), summary.variants().get(1).figures().get("mpps"));
        assertEquals(new Stat(1.0, 0.0, 3.0, List.of(3.0, 1.0, 0.0)), summary.variants().get(1).figures().get("bytes_per_packet"));
        // Per round 2, 4, 2: their median, not 4 / 1; and akka-naive's own ratio to xmit 0.5, 0.25, 0.5.
        assertEquals(new Stat(2.0, 2.0, 4.0, List.of(2.0, 4.0, 2.0)), summary.ratios().get("xmit/akka-naive"));
        assertEquals(new Stat(0.5, 0.25, 0.5, List.of(0.5, 0.25, 0.5)), summary.variants().get(1).figures().get("ratio_to_xmit"));
        final Target naive = summary.targets().getFirst();
        assertEquals("xmit/akka-naive >= 5", naive.rule());
        assertFalse(naive.met());
        final Target bytes = summary.targets().getLast();
        assertEquals("xmit bytes_per_packet <= 0", bytes.rule());
        assertTrue(bytes.met());
    }

    /** Issue 17's target: the bypass in the sender's context against bare Aeron IPC, round by round, at least 0.8. */
    @Test
    void theSenderBypassIsHeldToFourFifthsOfBareAeron()
    {
        final List<List<TxVariant.Result>> results = List.of(
            List.of(result(5_000_000, 0), result(5_000_000, 0), result(5_000_000, 0)),
            List.of(result(8_000_000, 0), result(6_000_000, 0), result(9_000_000, 0)),
            List.of(result(10_000_000, 0), result(10_000_000, 0), result(10_000_000, 0)));

        final ScenarioResult summary = TxBench.summarise(TxBench.SCENARIO,
            List.of("xmit", "sender-bypass", "aeron-raw"), results, "setup");

        assertEquals(new Stat(0.8, 0.6, 0.9, List.of(0.8, 0.6, 0.9)), summary.ratios().get("sender-bypass/aeron-raw"));
        final Target target = summary.targets().stream()
            .filter(t -> "sender-bypass/aeron-raw".equals(t.figure())).findFirst().orElseThrow();
        assertEquals("sender-bypass/aeron-raw >= 0.800", target.rule());
        assertTrue(target.met());
        assertTrue(summary.targets().stream().anyMatch(t -> "sender-bypass bytes_per_packet".equals(t.figure())));
    }

    @ParameterizedTest
    @ValueSource(strings = {"locked-qdisc", "aeron-raw"})
    void measuresAWindowAndStopsItsThreads(final String name)
    {
        final TxVariant.Result result;
        try (TxVariant variant = TxBench.VARIANTS.get(name).get())
        {
            variant.start();
            result = variant.runFor(TimeUnit.MILLISECONDS.toNanos(200));
        }
        assertTrue(result.packets() > 0, result.toString());
        assertTrue(result.allocatedBytes() >= 0, result.toString());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (liveThreads(name) > 0 && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(0, liveThreads(name));
    }

    @Test
    void theLockedQdiscDeliversEveryPacketOnceThroughTheDriver()
    {
        final long perThread = 100_003;
        try (LockedQdiscVariant variant = new LockedQdiscVariant(perThread))
        {
            variant.start();
            NaivePipelineTest.awaitDelivered(variant, LockedQdiscVariant.THREADS * perThread);
            // Whichever thread ran the qdisc sent on its own queue, so only the sum over the queues is known.
            assertEquals(LockedQdiscVariant.THREADS * perThread,
                variant.driverStats(0).txPackets() + variant.driverStats(1).txPackets());
            assertEquals(0, variant.driverStats(0).txErrors() + variant.driverStats(1).txErrors());
        }
    }

    @Test
    void bareAeronDeliversEveryPacketOnceThroughTheDriver()
    {
        final long perThread = 100_003;
        try (AeronRawVariant variant = new AeronRawVariant(perThread))
        {
            variant.start();
            NaivePipelineTest.awaitDelivered(variant, AeronRawVariant.THREADS * perThread);
            assertEquals(perThread, variant.driverStats(0).txPackets());
            assertEquals(perThread, variant.driverStats(1).txPackets());
        }
    }

    private static long liveThreads(final String prefix)
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(prefix + "-") && thread.isAlive())
            .count();
    }

    /** A one-second window with {@code packets} delivered and {@code bytes} allocated per packet. */
    private static TxVariant.Result result(final long packets, final long bytesPerPacket)
    {
        return new TxVariant.Result(packets, SECOND, packets * bytesPerPacket);
    }
}
