package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static io.xmit.actors.internal.qdisc.QdiscEngineSupport.FRAME_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where the qdisc engine once differed from the kernel, each with the scenario that showed it, driven turn by turn on
 * the test thread over a loop device: strict band priority for everything queued, in the band rings or the backlog
 * (§4.2), a full band that holds up only its own senders (§4.2), a failed {@code tx_burst} that drops instead of
 * retrying forever (§4.5), and BQL told packet by packet (§6.4, §7.2).
 */
@Timeout(30)
class QdiscFidelityTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;
    /** Priorities and their bands (§4.2): 6 → band 0, 0 → band 1, 1 → band 2. */
    private static final int BAND0 = 6;
    private static final int BAND2 = 1;

    private static QdiscEngineSupport rig(final int bandLimit, final OverflowPolicy overflow)
    {
        final QdiscEngineSupport rig = new QdiscEngineSupport(LOOP,
            QdiscEngineSupport.config(LOOP, 64, 64, bandLimit, overflow));
        rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
        return rig;
    }

    private static List<Long> sequence(final long... ranges)
    {
        final List<Long> values = new ArrayList<>();
        for (int r = 0; r < ranges.length; r += 2)
        {
            for (long i = ranges[r]; i < ranges[r + 1]; i++)
            {
                values.add(i);
            }
        }
        return values;
    }

    private static void sendRange(final QdiscEngineSupport rig, final UdpSocketImpl socket, final long from,
        final long to)
    {
        for (long i = from; i < to; i++)
        {
            assertTrue(rig.send(socket, i) > 0, "send " + i);
        }
    }

    /**
     * All fifteen packets were queued while the qdisc was busy (no turn in between), so pfifo_fast dequeues them by
     * band: the five band-0 packets first, although the ten band-2 packets arrived before them. A single ring read in
     * arrival order used to bypass all fifteen as 0..14.
     */
    @Test
    void section4_2PacketsQueuedWhileTheQdiscWasBusyLeaveByBandNotByArrival()
    {
        try (QdiscEngineSupport rig = rig(1000, OverflowPolicy.BACKPRESSURE))
        {
            final UdpSocketImpl low = rig.openSocket(BAND2);
            final UdpSocketImpl high = rig.openSocket(BAND0);
            sendRange(rig, low, 0, 10);
            sendRange(rig, high, 10, 15);
            rig.qdisc.poll();
            rig.pumpUntil("15 packets", () -> rig.received.size() == 15);
            assertEquals(sequence(10, 15, 0, 10), rig.received);
            assertEquals(15, rig.counter(CounterType.QDISC_BYPASSED), "the backlog was empty: all bypassed");
            rig.pumpUntil("completions", () -> 0 == low.inFlight() && 0 == high.inFlight());
        }
    }

    /**
     * A band whose ring is not yet read to its end holds back every lower-priority band: band 0 is full (16), four
     * more band-0 packets wait in its ring, and the eight band-2 packets in the backlog leave only after all twenty.
     */
    @Test
    void section4_2ABacklogBandWaitsForAHigherBandStillInItsRing()
    {
        try (QdiscEngineSupport rig = rig(16, OverflowPolicy.BACKPRESSURE))
        {
            final UdpSocketImpl low = rig.openSocket(BAND2);
            final UdpSocketImpl high = rig.openSocket(BAND0);
            rig.state.stopQueue();
            sendRange(rig, low, 0, 8);
            rig.qdisc.poll();
            assertEquals(8, rig.qdisc.backlog());
            sendRange(rig, high, 8, 28);
            rig.state.wakeQueue();
            rig.pumpUntil("28 packets", () -> rig.received.size() == 28);
            assertEquals(sequence(8, 28, 0, 8), rig.received);
            rig.pumpUntil("completions", () -> 0 == low.inFlight() && 0 == high.inFlight());
        }
    }

    /**
     * The audit's scenario under back-pressure: band 2 is full (16) and one more band-2 packet waits in its ring, yet
     * the four band-0 packets sent after it enter their band and leave first. The kernel would drop the seventeenth
     * band-2 packet; back-pressure keeps it in its ring, and it leaves last. Nothing is dropped.
     */
    @Test
    void section4_2AFullBandBackPressuresOnlyItsOwnSenders()
    {
        assertAFullBandHoldsUpOnlyItself(OverflowPolicy.BACKPRESSURE, 0, sequence(17, 21, 0, 17));
    }

    /** A full band under back-pressure: its senders see BACK_PRESSURED, another band's still send and leave. */
    @Test
    void section4_2AFullBandRingRefusesOnlyItsOwnSenders()
    {
        try (QdiscEngineSupport rig = rig(16, OverflowPolicy.BACKPRESSURE))
        {
            final UdpSocketImpl low = rig.openSocket(BAND2);
            final UdpSocketImpl high = rig.openSocket(BAND0);
            rig.state.stopQueue();
            long sent = 0;
            long result;
            while ((result = rig.send(low, sent)) > 0)
            {
                sent++;
                rig.qdisc.poll();
                assertTrue(sent < 100_000, "band 2's ring never filled");
            }
            assertEquals(SendResult.BACK_PRESSURED, result);
            final long lowSent = sent;
            sendRange(rig, high, lowSent, lowSent + 4);
            rig.qdisc.poll();
            assertEquals(16 + 4, rig.qdisc.backlog());
            rig.state.wakeQueue();
            rig.pumpUntil("the four band-0 packets", () -> rig.received.size() >= 4);
            assertEquals(sequence(lowSent, lowSent + 4), rig.received.subList(0, 4));
            rig.pumpUntil(lowSent + 4 + " packets", () -> rig.received.size() == lowSent + 4);
            assertEquals(sequence(lowSent, lowSent + 4, 0, lowSent), rig.received);
            rig.pumpUntil("completions", () -> 0 == low.inFlight() && 0 == high.inFlight());
        }
    }

    /** Under the drop policy, as pfifo_fast: only the packet for the full band is dropped; band 0 leaves first. */
    @Test
    void section4_2AFullBandDropsOnlyItsOwnPacketUnderTheDropPolicy()
    {
        assertAFullBandHoldsUpOnlyItself(OverflowPolicy.DROP, 1, sequence(17, 21, 0, 16));
    }

    /**
     * Band limit 16, queue stopped: seventeen band-2 packets, then four band-0 packets. The backlog takes sixteen and
     * four whatever the policy, and after the wake the packets leave in {@code order}, with {@code dropped} counted.
     */
    private static void assertAFullBandHoldsUpOnlyItself(final OverflowPolicy overflow, final long dropped,
        final List<Long> order)
    {
        try (QdiscEngineSupport rig = rig(16, overflow))
        {
            final UdpSocketImpl low = rig.openSocket(BAND2);
            final UdpSocketImpl high = rig.openSocket(BAND0);
            rig.state.stopQueue();
            sendRange(rig, low, 0, 17);
            sendRange(rig, high, 17, 21);
            for (int turn = 0; turn < 4; turn++)
            {
                rig.qdisc.poll();
            }
            assertEquals(20, rig.qdisc.backlog(), "band 2 full (16), band 0 took its four");
            assertEquals(20 + dropped, rig.counter(CounterType.QDISC_RING_TAKEN), "taken, or left in band 2's ring");
            assertEquals(dropped, rig.counter(CounterType.QDISC_DROP_OVERFLOW));
            rig.state.wakeQueue();
            rig.pumpUntil(order.size() + " packets", () -> rig.received.size() == order.size());
            assertEquals(order, rig.received);
            rig.pumpUntil("completions", () -> 0 == low.inFlight() && 0 == high.inFlight());
        }
    }

    /**
     * The audit's scenario: every {@code tx_burst} fails (-EIO). The kernel treats an error as complete: the ten
     * packets are dropped once, counted, released from their socket, and the qdisc goes idle. It used to requeue
     * them and retry every turn, forever, with the socket's in-flight count stuck at ten.
     */
    @Test
    void section4_5AFailingTxBurstDropsItsPacketsAndTheQdiscGoesIdle()
    {
        try (QdiscEngineSupport rig = rig(1000, OverflowPolicy.BACKPRESSURE))
        {
            rig.driver.fault(NicFault.TX_FAIL_EVERY, 0, 1);
            final UdpSocketImpl socket = rig.openSocket(0);
            sendRange(rig, socket, 0, 10);
            assertEquals(10, rig.qdisc.poll(), "the ten left the qdisc, dropped");
            for (int turn = 0; turn < 100; turn++)
            {
                assertEquals(0, rig.qdisc.poll(), "turn " + turn);
                rig.txq.poll();
            }
            assertEquals(10, rig.counter(CounterType.QDISC_DROP_DRIVER_ERROR));
            assertEquals(1, rig.counter(CounterType.TXQ_DRIVER_ERRORS), "one failed call");
            assertEquals(0, rig.counter(CounterType.QDISC_REQUEUES));
            assertEquals(0, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(0, socket.inFlight(), "released from the socket");
            assertEquals(0, rig.qdisc.backlog());
            final QueueBooks books = rig.qdisc.books(rig.txq);
            assertTrue(books.balances(), books.toString());
            assertEquals(10, books.dropDriverError());

            // The driver recovers: the next packets are sent as usual.
            rig.driver.fault(NicFault.TX_FAIL_EVERY, 0, 0);
            sendRange(rig, socket, 10, 15);
            rig.pumpUntil("5 packets", () -> rig.received.size() == 5);
            assertEquals(sequence(10, 15), rig.received);
        }
    }

    /** A failure in the backlog path drops the dequeued bulk and frees its slots; the rest of the backlog follows. */
    @Test
    void section4_5AFailedBulkFromTheBacklogIsDroppedAndItsSlotsFreed()
    {
        try (QdiscEngineSupport rig = new QdiscEngineSupport(LOOP, QdiscEngineSupport.config(LOOP, 64, 4, 1000,
            OverflowPolicy.BACKPRESSURE)))
        {
            rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            sendRange(rig, socket, 0, 10);
            rig.qdisc.poll();
            assertEquals(10, rig.qdisc.backlog());
            // Every second call fails: bulks of four go 0..3 sent, 4..7 dropped, 8..9 sent.
            rig.driver.fault(NicFault.TX_FAIL_EVERY, 0, 2);
            rig.state.wakeQueue();
            rig.pumpUntil("6 packets", () -> rig.received.size() == 6);
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
            assertEquals(sequence(0, 4, 8, 10), rig.received);
            assertEquals(4, rig.counter(CounterType.QDISC_DROP_DRIVER_ERROR));
            assertEquals(0, rig.qdisc.backlog());
            assertTrue(rig.qdisc.books(rig.txq).balances(), rig.qdisc.books(rig.txq).toString());
        }
    }

    /**
     * §6.4, §7.2: BQL hears of each packet of a burst, as a driver calls {@code netdev_tx_sent_queue} per skb, so
     * DQL's last object is one packet, not the burst (see DynamicQueueLimitsTest for where the limit then differs).
     */
    @Test
    void section6_4BqlIsToldPacketByPacketSoItsLastObjectIsOnePacket()
    {
        try (QdiscEngineSupport rig = rig(1000, OverflowPolicy.BACKPRESSURE))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            sendRange(rig, socket, 0, 5);
            assertEquals(5, rig.qdisc.poll());
            assertEquals(1, rig.counter(CounterType.QDISC_BULKS), "one burst of five");
            assertEquals(5 * FRAME_LENGTH, rig.bql.dql().numQueued());
            assertEquals(FRAME_LENGTH, rig.bql.dql().lastObjCnt());
            rig.pumpUntil("completions", () -> 0 == socket.inFlight());
        }
    }
}
