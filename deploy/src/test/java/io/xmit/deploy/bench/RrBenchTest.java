package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.xmit.actors.Accounting;
import io.xmit.actors.StopReport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rr scenario's arithmetic from made-up rounds: the variants as a product of axes of pipeline keys, the order
 * rotated per round, figures and per-round ratios to each variant's counterparts, and the targets — not
 * measured without busy polling, held against the busy-polling variants once an axis has them.
 */
class RrBenchTest
{
    private static final long SECOND = 1_000_000_000L;
    private static final RrVariant.Setting BUSY = new RrVariant.Setting(RrBench.BUSY_POLLING, "busy-poll = 50us");

    @Test
    void theVariantsAreTheXpsModesWithBusyPollingOffAndOn()
    {
        assertEquals(List.of("hash", "xps-cpus", "xps-rxqs", "hash+busy-poll", "xps-cpus+busy-poll",
            "xps-rxqs+busy-poll"), RrBench.names());
        assertEquals("xps.preset = rxqs", RrBench.VARIANTS.get(2).keys());
        assertEquals("xps.preset = rxqs\nbusy-poll = 50us\nprefer-busy-poll = on\nqdisc.sender-bypass = on",
            RrBench.VARIANTS.get(5).keys());
    }

    @Test
    void aSecondAxisIsOneSettingAndRunsWithEveryXpsMode()
    {
        final List<RrVariant> variants = busyAxis();

        assertEquals(List.of("hash", "xps-cpus", "xps-rxqs", "hash+busy-poll", "xps-cpus+busy-poll",
            "xps-rxqs+busy-poll"), variants.stream().map(RrVariant::name).toList());
        assertEquals("xps.preset = rxqs\nbusy-poll = 50us", variants.get(5).keys());
    }

    @Test
    void eachRoundRotatesTheOrderByOne()
    {
        final List<List<Integer>> orders = new ArrayList<>();
        for (int round = 0; round < 4; round++)
        {
            final List<Integer> order = new ArrayList<>();
            for (int position = 0; position < 3; position++)
            {
                order.add(RrBench.runsAt(round, position, 3));
            }
            orders.add(order);
        }
        assertEquals(List.of(List.of(0, 1, 2), List.of(1, 2, 0), List.of(2, 0, 1), List.of(0, 1, 2)), orders);
    }

    @Test
    void figuresComeFromTheRoundsAndRatiosFromEachRoundsPair()
    {
        final List<List<RrRound.Result>> results = List.of(
            List.of(round(100_000, 1_000, 50_000), round(100_000, 2_000, 50_000)),
            List.of(round(100_000, 500, 25_000), round(100_000, 500, 25_000)),
            List.of(round(50_000, 250, 0), round(100_000, 1_000, 0)));

        final ScenarioResult summary = RrBench.summarise(offOnly(), results, "setup");

        assertEquals("rr", summary.scenario());
        assertEquals(2, summary.rounds());
        final ScenarioResult.Variant hash = summary.variants().getFirst();
        assertEquals(new Stat(1.5, 1.0, 2.0, List.of(1.0, 2.0)), hash.figures().get("rtt_mean_us"));
        assertEquals(new Stat(100_000, 100_000, 100_000, List.of(100_000.0, 100_000.0)),
            hash.figures().get("transactions_per_s"));
        // Half the transactions made a hop of each of the 4 kinds: 2 hops per transaction.
        assertEquals(2.0, hash.figures().get("hops_per_transaction").median());
        assertEquals(0.5, hash.figures().get("request_tx_hops").median());
        assertEquals(0.0, summary.variants().get(2).figures().get("hops_per_transaction").median());
        assertEquals(0.5, hash.figures().get("interrupts_per_transaction").median(), "an interrupt every other one");
        // xps-rxqs against hash per round: 0.25 and 0.5.
        assertEquals(new Stat(0.375, 0.25, 0.5, List.of(0.25, 0.5)), summary.ratios().get("rtt_mean xps-rxqs/hash"));
        final List<String> ratios = new ArrayList<>();
        for (final String ratio : List.of("rtt_mean xps-cpus/hash", "rtt_mean xps-rxqs/hash"))
        {
            ratios.add(ratio);
            RrPlacement.CLASSES.forEach(placement -> ratios.add(ratio + " [" + placement.label() + "]"));
        }
        assertEquals(ratios, List.copyOf(summary.ratios().keySet()));
        assertEquals(13, hash.curve().size());
    }

    @Test
    void withoutBusyPollingTheTargetsAreNotMeasured()
    {
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < offOnly().size(); v++)
        {
            results.add(List.of(round(100_000, 5_000, 0)));
        }

        final List<Target> targets = RrBench.summarise(offOnly(), results, "setup").targets();

        assertEquals(List.of("rtt_p50_us busy-poll (worst XPS mode and placement class) <= 10",
            "rtt_p99_us busy-poll (worst XPS mode and placement class) <= 50",
            "rtt_mean xps-rxqs+busy-poll/hash+busy-poll <= 0.700"), targets.stream().map(Target::rule).toList());
        for (final Target target : targets)
        {
            assertFalse(target.measured(), target.rule());
            assertFalse(target.met(), target.rule());
            assertEquals(Target.NOT_MEASURED, target.status());
        }
    }

    @Test
    void withBusyPollingTheTargetsHoldTheBusyPollingVariants()
    {
        final List<RrVariant> variants = busyAxis();
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < 3; v++)
        {
            results.add(List.of(round(10_000, 100_000, 0)));
        }
        results.add(List.of(round(100_000, 8_000, 0)));
        results.add(List.of(round(100_000, 12_000, 0)));
        results.add(List.of(round(100_000, 4_000, 0)));

        final ScenarioResult summary = RrBench.summarise(variants, results, "setup");

        final List<Target> targets = summary.targets();
        // The worst busy-polling p50 is xps-cpus's 12 µs: missed; every p99 is under 50 µs; xps-rxqs is 0.5× hash.
        assertTrue(targets.stream().allMatch(Target::measured));
        assertEquals(List.of("MISSED", "met", "met"), targets.stream().map(Target::status).toList());
        assertEquals(12.0, targets.getFirst().value(), 0.1);
        assertEquals(0.5, targets.getLast().value(), 0.01);
        assertEquals(0.08, summary.ratios().get("rtt_mean hash+busy-poll/hash").median(), 0.001);
    }

    @Test
    void aRoundWhoseFlowsStalledOrLostTransactionsMeetsNoTarget()
    {
        final List<RrVariant> variants = busyAxis();
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < 3; v++)
        {
            results.add(List.of(round(10_000, 100_000, 0)));
        }
        // Every flow of hash+busy-poll stalled: no RTT at all, which read as 0 µs and met every bound.
        results.add(List.of(lossy(0, 0, 0, 16)));
        // xps-cpus+busy-poll lost transactions: its RTTs are the flows that kept answering, and would flatter it.
        results.add(List.of(lossy(100_000, 4_000, 3, 0)));
        results.add(List.of(round(100_000, 4_000, 0)));

        final ScenarioResult summary = RrBench.summarise(variants, results, "setup");

        assertEquals(List.of(Target.NOT_MEASURED, Target.NOT_MEASURED, Target.NOT_MEASURED),
            summary.targets().stream().map(Target::status).toList());
        final ScenarioResult.Variant stalled = summary.variants().get(3);
        assertTrue(Double.isNaN(stalled.figures().get("rtt_p50_us").median()));
        assertEquals(16.0, stalled.figures().get("flows_stalled").median());
        final ScenarioResult.Variant lost = summary.variants().get(4);
        assertTrue(Double.isNaN(lost.figures().get("rtt_mean_us").median()));
        assertEquals(3.0, lost.figures().get("transactions_lost").median());
        assertEquals(3.0, lost.figures().get("late_replies").median());
        assertTrue(Double.isNaN(summary.ratios().get("rtt_mean hash+busy-poll/hash").median()));
    }

    @Test
    void theRttFiguresAreThoseOfTheRoundsThatLostNothing()
    {
        final List<List<RrRound.Result>> results = List.of(
            List.of(round(100_000, 1_000, 0), lossy(50_000, 100, 1, 0), round(100_000, 2_000, 0)),
            List.of(round(100_000, 500, 0), round(100_000, 500, 0), round(100_000, 500, 0)),
            List.of(round(100_000, 500, 0), round(100_000, 500, 0), round(100_000, 500, 0)));

        final ScenarioResult summary = RrBench.summarise(offOnly(), results, "setup");

        final Stat mean = summary.variants().getFirst().figures().get("rtt_mean_us");
        assertEquals(1.5, mean.median());
        assertEquals(1.0, mean.min());
        assertEquals(2.0, mean.max());
        assertEquals(3, mean.rounds().size());
        assertTrue(Double.isNaN(mean.rounds().get(1)));
        // The lossy round's throughput is what it was: a loss can only lower it.
        assertEquals(100_000.0, summary.variants().getFirst().figures().get("transactions_per_s").median());
        assertEquals(50_000.0, summary.variants().getFirst().figures().get("transactions_per_s").min());
        final Stat ratio = summary.ratios().get("rtt_mean xps-cpus/hash");
        assertEquals(0.25, ratio.min());
        assertEquals(0.5, ratio.max());
        assertTrue(Double.isNaN(ratio.rounds().get(1)));
    }

    /**
     * One flow, a class per run: each run's class is in the report (its class's {@code flows} figure is 1 in that run,
     * 0 in the others), each class has its own RTT and hops figures and ratios, and the targets hold the worst class:
     * hash's crossing class misses p50 although the median over the runs meets it.
     */
    @Test
    void theReportCarriesEachRunsClassAndTheTargetsHoldTheWorstClass()
    {
        final List<RrVariant> variants = busyAxis();
        final List<List<RrRound.Result>> results = new ArrayList<>();
        for (int v = 0; v < variants.size(); v++)
        {
            final List<RrRound.Result> runs = new ArrayList<>();
            for (final RrPlacement.Placement placement : RrPlacement.CLASSES)
            {
                final boolean busy = v >= 3;
                final boolean hash = 0 == v % 3;
                final boolean hashCrosses = hash && !placement.hashNear();
                final long rtt = !busy ? 60_000 : hashCrosses ? 20_000 : placement.rxNear() ? 6_000 : 16_000;
                runs.add(oneFlow(placement, 100_000, rtt, (placement.rxNear() ? 0 : 2) + (hashCrosses ? 2 : 0)));
            }
            results.add(runs);
        }

        final ScenarioResult summary = RrBench.summarise(variants, results, "setup");

        final ScenarioResult.Variant hashBusy = summary.variants().get(3);
        assertEquals(List.of(0.0, 1.0, 0.0, 0.0), hashBusy.figures().get("flows [rx-far+hash-far]").rounds());
        assertEquals(List.of(1.0, 0.0, 0.0, 0.0), hashBusy.figures().get("flows [rx-near+hash-near]").rounds());
        assertEquals(4.0, hashBusy.figures().get("hops_per_transaction [rx-far+hash-far]").median());
        assertEquals(2.0, hashBusy.figures().get("hops_per_transaction [rx-near+hash-far]").median());
        assertEquals(20.0, hashBusy.figures().get("rtt_p50_us [rx-near+hash-far]").median(), 0.1);
        assertEquals(6.0, hashBusy.figures().get("rtt_p50_us [rx-near+hash-near]").median(), 0.1);
        assertTrue(Double.isNaN(hashBusy.figures().get("rtt_p50_us [rx-near+hash-near]").rounds().get(1)));
        // xps-rxqs against hash in the class where only hash crosses: 6 against 20 µs.
        assertEquals(0.3, summary.ratios().get("rtt_mean xps-rxqs+busy-poll/hash+busy-poll [rx-near+hash-far]")
            .median(), 0.001);
        assertEquals(1.0, summary.ratios().get("rtt_mean xps-rxqs+busy-poll/hash+busy-poll [rx-far+hash-near]")
            .median(), 0.001);
        final List<Target> targets = summary.targets();
        // The worst class is one of hash's two crossing ones, 20 µs: p50 missed; every p99 is under 50 µs.
        assertEquals(20.0, targets.getFirst().value(), 0.1);
        assertEquals(List.of("MISSED", "met"), targets.subList(0, 2).stream().map(Target::status).toList());
    }

    @Test
    void rejectsOptionsOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new RrBench.Options(0, 0, 100, 1));
        assertThrows(IllegalArgumentException.class, () -> new RrBench.Options(1, 0, 100, 0));
        assertThrows(IllegalArgumentException.class, () -> new RrRound(RrBench.VARIANTS.getFirst(), 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RrRound(RrBench.VARIANTS.getFirst(), 1, -1));
        assertThrows(IllegalArgumentException.class,
            () -> new RrRound(RrBench.VARIANTS.getFirst(), 1, 0).runTransactions(0, SECOND));
    }

    private static List<RrVariant> busyAxis()
    {
        return RrVariant.product(List.of(RrBench.XPS_MODES, List.of(RrBench.POLLING.getFirst(), BUSY)));
    }

    /** The XPS modes with busy polling off only. */
    private static List<RrVariant> offOnly()
    {
        return RrVariant.product(List.of(RrBench.XPS_MODES, List.of(RrBench.POLLING.getFirst())));
    }

    /**
     * A second's round: {@code transactions}, every one {@code rttNanos}, {@code hopsPerKind} of each kind of hop, and
     * the two CPU threads half busy.
     */
    private static RrRound.Result round(final long transactions, final long rttNanos, final long hopsPerKind)
    {
        final Histogram rtt = new Histogram(3);
        rtt.recordValueWithCount(rttNanos, transactions);
        final RrTally tally = new RrTally(transactions, transactions, hopsPerKind, hopsPerKind, hopsPerKind,
            hopsPerKind, 0, 0, 0, 0);
        return result(rtt, tally, 0);
    }

    /**
     * A second's round in which {@code stalled} of the flows stopped before the window, and the others answered
     * {@code transactions}, every one in {@code rttNanos}, and lost {@code lost}.
     */
    private static RrRound.Result lossy(final long transactions, final long rttNanos, final long lost,
        final int stalled)
    {
        final Histogram rtt = new Histogram(3);
        if (transactions > 0)
        {
            rtt.recordValueWithCount(rttNanos, transactions);
        }
        return result(rtt, new RrTally(transactions + lost, transactions, 0, 0, 0, 0, 0, 0, lost, lost), stalled);
    }

    /** A round whose every placement class had one flow that saw all of {@code rtt} and {@code tally}. */
    private static RrRound.Result result(final Histogram rtt, final RrTally tally, final int stalled)
    {
        return result(rtt, tally, stalled,
            RrPlacement.CLASSES.stream().map(placement -> new RrRound.Placed(placement, 1, rtt, tally)).toList());
    }

    /**
     * A second's round of one flow in class {@code placement}: {@code transactions}, every one {@code rttNanos}, with
     * {@code hops} hops per transaction.
     */
    private static RrRound.Result oneFlow(final RrPlacement.Placement placement, final long transactions,
        final long rttNanos, final long hops)
    {
        final Histogram rtt = new Histogram(3);
        rtt.recordValueWithCount(rttNanos, transactions);
        final long each = hops * transactions / 4;
        final RrTally tally = new RrTally(transactions, transactions, each, each, each, each, 0, 0, 0, 0);
        final List<RrRound.Placed> placed = new ArrayList<>();
        for (final RrPlacement.Placement other : RrPlacement.CLASSES)
        {
            placed.add(other.equals(placement) ? new RrRound.Placed(other, 1, rtt, tally) :
                new RrRound.Placed(other, 0, new Histogram(3), RrTally.ZERO));
        }
        return result(rtt, tally, 0, placed);
    }

    private static RrRound.Result result(final Histogram rtt, final RrTally tally, final int stalled,
        final List<RrRound.Placed> placed)
    {
        return new RrRound.Result(rtt, tally, new ThreadCpu.Usage(new double[] {0.5, 0.5},
            Map.of(ThreadCpu.AKKA, 0.1), SECOND), SECOND, stalled, Map.of(),
            new StopReport(true, Duration.ZERO, 0, 0, 0,
                new Accounting(2 * tally.transactions(), List.of(), List.of())),
            tally.transactions() / 2, placed);
    }
}
