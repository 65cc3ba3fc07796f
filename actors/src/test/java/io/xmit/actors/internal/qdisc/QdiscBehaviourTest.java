package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.txq.TxQueueState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static io.xmit.actors.internal.qdisc.QdiscEngineSupport.FRAME_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The qdisc engine of one TX queue, driven turn by turn on the test thread (no actors), over a loop device whose
 * port 1 shows what left and in which order: bypass (§4.4), stopped queues and the no-overtaking rule (§4.7b, P2),
 * pfifo_fast bands (§4.2), bulk dequeue bounded by BQL (§6.1, §7.1), the overflow policies and the short
 * {@code tx_burst} (§4.6, §6.3, §7.6).
 */
@Timeout(30)
class QdiscBehaviourTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;

    private static QdiscEngineSupport rig(final String device, final int quota, final int bulk, final int bandLimit,
        final OverflowPolicy overflow)
    {
        return new QdiscEngineSupport(device, QdiscEngineSupport.config(device, quota, bulk, bandLimit, overflow));
    }

    private static List<Long> range(final long from, final long to)
    {
        final List<Long> values = new ArrayList<>();
        for (long i = from; i < to; i++)
        {
            values.add(i);
        }
        return values;
    }

    @Test
    void section4_4IdleQdiscBypassesEveryPacketWhenBqlHasRoom()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            for (int i = 0; i < 300; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
                // Each turn finds the backlog empty and the queue awake: the packet goes straight to the driver.
                assertEquals(1, rig.qdisc.poll());
                rig.txq.poll();
                rig.drainReceiver();
            }
            assertEquals(300, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(300, rig.counter(CounterType.QDISC_BYPASSED));
            assertEquals(0, rig.counter(CounterType.QDISC_ENQUEUED));
            assertEquals(300, rig.counter(CounterType.QDISC_BULK_1));
            assertEquals(range(0, 300), rig.received);
            assertEquals(0, socket.inFlight());
        }
    }

    @Test
    void section7_2FirstPacketBypassesThenBqlAtLimitZeroStopsTheQueueUntilACompletion()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            assertTrue(rig.send(socket, 0) > 0);
            assertEquals(1, rig.qdisc.poll());
            // dql starts at limit 0: the first packet always goes (§6.1), and then avail < 0 sets STACK_XOFF.
            assertEquals(1, rig.counter(CounterType.QDISC_BYPASSED));
            assertEquals(TxQueueState.STACK_XOFF, rig.state.bits());

            assertTrue(rig.send(socket, 1) > 0);
            assertEquals(1, rig.qdisc.poll());
            assertEquals(1, rig.counter(CounterType.QDISC_ENQUEUED));
            assertEquals(1, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(1, rig.qdisc.backlog());

            // The completion raises the limit (starved, §7.4) and clears STACK_XOFF (§7.3).
            assertEquals(1, rig.txq.poll());
            assertEquals(0, rig.state.bits());
            assertEquals(1, rig.qdisc.poll());
            assertEquals(0, rig.qdisc.backlog());
            assertEquals(2, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(1, rig.counter(CounterType.QDISC_BYPASSED));
            rig.pumpUntil("both packets", () -> rig.received.size() == 2);
            assertEquals(range(0, 2), rig.received);
        }
    }

    @Test
    void section4_7StoppedQueueBypassesNothingAndOldPacketsLeaveFirstAfterTheWake()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            for (int i = 0; i < 200; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            int moved = 0;
            for (int turn = 0; turn < 10; turn++)
            {
                moved += rig.qdisc.poll();
            }
            assertEquals(200, moved);
            assertEquals(200, rig.qdisc.backlog());
            assertEquals(200, rig.counter(CounterType.QDISC_ENQUEUED));
            assertEquals(0, rig.counter(CounterType.QDISC_BYPASSED));
            assertEquals(0, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(0, rig.drainReceiver());

            // P2: packets that arrive after the wake must not overtake the backlog through the bypass.
            assertTrue(rig.state.wakeQueue());
            for (int i = 200; i < 300; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            rig.pumpUntil("300 packets", () -> rig.received.size() == 300);
            assertEquals(range(0, 300), rig.received);
            assertEquals(0, rig.counter(CounterType.QDISC_BYPASSED));
            assertEquals(300, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(0, rig.qdisc.backlog());
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
        }
    }

    @Test
    void section4_2BacklogLeavesInBandOrderFifoWithinABand()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl[] byPriority = new UdpSocketImpl[16];
            for (int p = 0; p < 16; p++)
            {
                byPriority[p] = rig.openSocket(p);
            }
            rig.state.stopQueue();
            final List<List<Long>> bands = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < 320; i++)
            {
                final int priority = (i * 7) % 16;
                assertTrue(rig.send(byPriority[priority], i) > 0);
                bands.get(PfifoFast.prio2band(priority)).add((long)i);
            }
            for (int turn = 0; turn < 10; turn++)
            {
                rig.qdisc.poll();
            }
            assertEquals(320, rig.qdisc.backlog());
            // prio2band §4.2: 6, 7 → band 0; 0, 4, 8..15 → band 1; 1, 2, 3, 5 → band 2.
            assertEquals(2 * 20, bands.get(0).size());
            assertEquals(10 * 20, bands.get(1).size());
            assertEquals(4 * 20, bands.get(2).size());

            rig.state.wakeQueue();
            rig.pumpUntil("320 packets", () -> rig.received.size() == 320);
            final List<Long> expected = new ArrayList<>();
            bands.forEach(expected::addAll);
            assertEquals(expected, rig.received);
        }
    }

    @Test
    void section6_1BypassBurstGrowsToTheBulkLimitWhenBqlHasRoom()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            for (int i = 0; i < 200; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            // Quota 64 = bulk limit 64: one turn is one tx_burst of exactly 64.
            assertEquals(64, rig.qdisc.poll());
            assertEquals(1, rig.counter(CounterType.QDISC_BULKS));
            assertEquals(1, rig.counter(CounterType.QDISC_BULK_64_PLUS));
            assertEquals(64, rig.counter(CounterType.QDISC_BYPASSED));
            rig.pumpUntil("200 packets", () -> rig.received.size() == 200);
            assertEquals(range(0, 200), rig.received);
            assertEquals(200, rig.counter(CounterType.QDISC_BYPASSED));
        }
    }

    @Test
    void section6_1BurstStopsWhenTheBqlBudgetIsSpentBypassAndBacklog()
    {
        // limit = 10 frames exactly: the first packet, then more while budget = avail - lengths stays > 0 → 10.
        // That leaves avail = 0, which does not stop the queue (§7.2 stops at avail < 0), so the turn goes on with
        // a burst of one (the first packet always goes), and that one stops it.
        assertBursts(10 * FRAME_LENGTH, 10, 1);
        // One byte more leaves a positive budget after the tenth, so an eleventh goes, and the queue stops.
        assertBursts(10 * FRAME_LENGTH + 1, 11);
        // A budget smaller than one frame still sends the first packet, and only it.
        assertBursts(FRAME_LENGTH - 1, 1);
    }

    private static void assertBursts(final int bqlLimit, final int... bursts)
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(bqlLimit, bqlLimit);
            assertEquals(bqlLimit, rig.bql.avail());
            final UdpSocketImpl socket = rig.openSocket(0);
            for (int i = 0; i < 100; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            final int perTurn = IntStream.of(bursts).sum();
            final String what = "limit " + bqlLimit;

            // Bypass: the qdisc is empty and the queue awake until BQL stops it; the rest moves into the backlog.
            rig.qdisc.poll();
            assertEquals(perTurn, rig.counter(CounterType.QDISC_BYPASSED), what);
            assertEquals(bursts.length, rig.counter(CounterType.QDISC_BULKS), what);
            assertHistogram(rig, 1, what, bursts);
            assertTrue(rig.state.stopped(), what);
            rig.qdisc.poll();
            assertEquals(perTurn, rig.counter(CounterType.QDISC_PACKETS), what);
            assertEquals(100 - perTurn, rig.qdisc.backlog(), what);

            // Completing everything restores avail = limit (the limit is pinned); the backlog then leaves in the
            // same bursts (dequeueBulk, §6.1).
            assertEquals(perTurn, rig.txq.poll());
            assertEquals(bqlLimit, rig.bql.avail(), what);
            assertFalse(rig.state.stopped(), what);
            rig.qdisc.poll();
            assertEquals(2L * bursts.length, rig.counter(CounterType.QDISC_BULKS), what);
            assertEquals(2L * perTurn, rig.counter(CounterType.QDISC_PACKETS), what);
            assertEquals(perTurn, rig.counter(CounterType.QDISC_BYPASSED), what);
            assertHistogram(rig, 2, what, bursts);
            rig.pumpUntil("100 packets", () -> rig.received.size() == 100);
            assertEquals(range(0, 100), rig.received);
        }
    }

    private static void assertHistogram(
        final QdiscEngineSupport rig, final int times, final String what, final int... bursts)
    {
        final CounterType[] buckets = {CounterType.QDISC_BULK_1, CounterType.QDISC_BULK_2_3,
            CounterType.QDISC_BULK_4_7, CounterType.QDISC_BULK_8_15, CounterType.QDISC_BULK_16_31,
            CounterType.QDISC_BULK_32_63, CounterType.QDISC_BULK_64_PLUS};
        final long[] expected = new long[buckets.length];
        for (final int burst : bursts)
        {
            expected[Math.min(31 - Integer.numberOfLeadingZeros(burst), buckets.length - 1)] += times;
        }
        for (int i = 0; i < buckets.length; i++)
        {
            assertEquals(expected[i], rig.counter(buckets[i]), what + ": " + buckets[i].label());
        }
    }

    @Test
    void backPressurePolicyStopsReadingTheRingAndLosesNothing()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 16, OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            long sent = 0;
            long result;
            while ((result = rig.send(socket, sent)) > 0)
            {
                sent++;
                rig.qdisc.poll();
                assertTrue(sent < 100_000, "the ring never filled");
            }
            assertEquals(SendResult.BACK_PRESSURED, result);
            assertEquals(16, rig.qdisc.backlog());
            assertEquals(0, rig.qdisc.poll());
            assertEquals(0, rig.counter(CounterType.QDISC_DROP_OVERFLOW));
            assertEquals(sent, socket.inFlight());
            System.out.println("back-pressure: " + sent + " packets accepted before the ring filled");

            rig.state.wakeQueue();
            final long total = sent;
            rig.pumpUntil(total + " packets", () -> rig.received.size() == total);
            assertEquals(range(0, total), rig.received);
            assertEquals(total, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(0, rig.counter(CounterType.QDISC_DROP_OVERFLOW));
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
        }
    }

    @Test
    void dropPolicyCountsEveryDroppedPacketAndReleasesItsSocket()
    {
        try (QdiscEngineSupport rig = rig(LOOP, 64, 64, 16, OverflowPolicy.DROP))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            for (int i = 0; i < 100; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            for (int turn = 0; turn < 4; turn++)
            {
                rig.qdisc.poll();
            }
            assertEquals(16, rig.qdisc.backlog());
            assertEquals(84, rig.counter(CounterType.QDISC_DROP_OVERFLOW));
            assertEquals(16, socket.inFlight());

            rig.state.wakeQueue();
            rig.pumpUntil("16 packets", () -> rig.received.size() == 16);
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
            // The band kept its first 16 packets; the rest were dropped at the tail: sent = arrived + dropped.
            assertEquals(range(0, 16), rig.received);
            assertEquals(100, rig.received.size() + rig.counter(CounterType.QDISC_DROP_OVERFLOW));
            assertEquals(16, rig.counter(CounterType.QDISC_PACKETS));
        }
    }

    @Test
    void section4_6AFullDriverRingStopsTheQueueAndTheTxQueueWakesIt()
    {
        // A 64-descriptor ring drained by a 20 kpps wire: the qdisc never hands the driver more than its ring's room,
        // so the queue stops when the ring is full and the TX queue wakes it as completions free a bulk's room.
        // (A failed tx_burst, unlike a busy one, drops its packets: QdiscFidelityTest.)
        try (QdiscEngineSupport rig = rig("loop:tx=1,rx=1,ring=64,frame=2048,rate=20kpps", 64, 64, 1000,
            OverflowPolicy.BACKPRESSURE))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            final int count = 600;
            int sent = 0;
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (rig.received.size() < count)
            {
                while (sent < count && rig.send(socket, sent) > 0)
                {
                    sent++;
                }
                rig.qdisc.poll();
                rig.txq.poll();
                rig.drainReceiver();
                assertTrue(System.nanoTime() < deadline, rig.toString());
            }
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
            assertEquals(range(0, count), rig.received);
            assertEquals(count, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(count, rig.receiver.stats(0).rxPackets());
            assertEquals(0, rig.receiver.stats(0).rxMissed());
            assertTrue(rig.counter(CounterType.TXQ_STOPS) > 0, "txq_stops");
            assertTrue(rig.counter(CounterType.TXQ_WAKES) > 0, "txq_wakes");
            assertEquals(0, rig.qdisc.backlog());
            System.out.println("full ring: stops=" + rig.counter(CounterType.TXQ_STOPS) + " requeues=" +
                rig.counter(CounterType.QDISC_REQUEUES) + " wakes=" + rig.counter(CounterType.TXQ_WAKES));
        }
    }
}
