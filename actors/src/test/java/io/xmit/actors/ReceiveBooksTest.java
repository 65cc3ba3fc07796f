package io.xmit.actors;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive books on hand-built counts: books that balance at rest and in flight, and books in which a stage counted
 * more than it was given, which {@link ReceiveBooks#balances()} refuses and {@link ReceiveBooks#gaps()} names.
 */
class ReceiveBooksTest
{
    /**
     * Port B of a loop device at rest: 1000 arrived (the other port sent 1000) = 900 placed + 90 missed + 10 dropped by
     * the device; 900 taken = 800 to sockets + 40 to the host + 60 dropped by the RX queues; 800 = 795 delivered + 5
     * left at close; 40 taken by the host = 35 handled + 4 ignored + 1 failed.
     */
    static final ReceiveBooks AT_REST = new ReceiveBooks(1, 1000, 900, 90, 10, 900, 800, 40, 5, 6, 7, 30, 1, 2, 9, 795,
        5, 40, 4, 1, 0);

    /**
     * In flight: 20 in the device's rings (900 placed, 880 taken), 14 in a burst (880 taken, 866 handed on or
     * dropped), 5 in socket rings (770 given, 760 delivered, 5 left at close), 2 in the host ring (38 given, 36 taken);
     * the other port's count, read first, is 10 behind.
     */
    static final ReceiveBooks BUSY = new ReceiveBooks(1, 990, 900, 90, 10, 880, 770, 38, 5, 6, 7, 30, 1, 0, 9, 760, 5,
        36, 4, 1, 0);

    private static final List<String> TERMS = List.of("port", "wireSent", "devicePlaced", "missed", "deviceDropped",
        "taken", "toSockets", "toHost", "dropMalformed", "dropUnsupported", "dropNoSocket", "dropSocketRingFull",
        "dropFailed", "dropShutdown", "dropHostRingFull", "socketDelivered", "socketDropClosed", "hostTaken",
        "hostIgnored", "hostFailed", "dropNodeDown");

    @Test
    void booksAtRestBalanceExactlyWithEveryDropByReasonAndTheMissed()
    {
        assertTrue(AT_REST.balances(), AT_REST.line());
        assertTrue(AT_REST.atRest(), AT_REST.line());
        assertEquals(1000, AT_REST.arrived());
        assertEquals(830, AT_REST.delivered());
        assertEquals(35, AT_REST.hostHandled());
        assertEquals(80, AT_REST.dropped());
        assertEquals(0, AT_REST.inFlight());
        assertEquals(AT_REST.arrived(), AT_REST.delivered() + AT_REST.inFlight() + AT_REST.dropped() +
            AT_REST.missed());
        assertEquals(Map.ofEntries(Map.entry("nic_rx_dropped", 10L), Map.entry("rx_drop_malformed", 5L),
            Map.entry("rx_drop_unsupported", 6L), Map.entry("rx_drop_no_socket", 7L),
            Map.entry("rx_drop_socket_ring_full", 30L), Map.entry("rx_drop_failed", 1L),
            Map.entry("rx_drop_shutdown", 2L), Map.entry("host_drop_ring_full", 9L),
            Map.entry("socket_drop_closed", 5L), Map.entry("host_ignored", 4L), Map.entry("host_drop_failed", 1L)),
            AT_REST.dropsByReason());
        assertEquals("port B: arrived 1000 = delivered 830 (sockets 795, host 35) + in flight 0 (device rings 0, " +
            "bursts 0, socket rings 0, host ring 0) + dropped 80 (nic_rx_dropped=10, rx_drop_malformed=5, " +
            "rx_drop_unsupported=6, rx_drop_no_socket=7, rx_drop_socket_ring_full=30, rx_drop_failed=1, " +
            "rx_drop_shutdown=2, host_drop_ring_full=9, socket_drop_closed=5, host_ignored=4, host_drop_failed=1) + " +
            "missed 90 (the other port transmitted 1000)", AT_REST.line());
        assertEquals(List.of(), AT_REST.gaps());
    }

    /** Missed 90, dropped by the device 10 and by the RX queues 5 + 6 + 7 + 30 + 3 + 1 + 2; not the host's 9. */
    @Test
    void droppedOnArrivalIsTheDevicesAndTheRxQueuesDropsAndTheMissed()
    {
        assertEquals(151, AT_REST.droppedOnArrival());
        assertEquals(154, new ReceiveBooks(1, 1003, 903, 90, 10, 903, 800, 40, 5, 6, 7, 30, 1, 2, 9, 795, 5, 40, 4, 1,
            3).droppedOnArrival(), "rx_drop_node_down counts");
    }

    @Test
    void booksInFlightBalanceAndShowWhatIsInEachRing()
    {
        assertTrue(BUSY.balances(), BUSY.line());
        assertFalse(BUSY.atRest(), BUSY.line());
        assertEquals(20, BUSY.inDeviceRings());
        assertEquals(14, BUSY.inBursts());
        assertEquals(5, BUSY.inSocketRings());
        assertEquals(2, BUSY.inHostRing());
        assertEquals(41, BUSY.inFlight());
        assertEquals(BUSY.arrived(), BUSY.delivered() + BUSY.inFlight() + BUSY.dropped() + BUSY.missed());
        assertTrue(BUSY.line().contains(" + in flight 41 (device rings 20, bursts 14, socket rings 5, host ring 2) + "),
            BUSY.line());
    }

    /** Everything in its rings, but the other port sent a frame that never arrived: not at rest (the wire lost it). */
    @Test
    void aLoopPortIsAtRestOnlyWhenEveryFrameTheOtherPortSentArrived()
    {
        final ReceiveBooks behind = with(AT_REST, 1, 999);
        assertTrue(behind.balances(), behind.line());
        assertFalse(behind.atRest(), behind.line());
        final ReceiveBooks outside = with(AT_REST, 1, ReceiveBooks.NO_WIRE);
        assertTrue(outside.atRest(), outside.line());
        assertFalse(outside.line().contains("other port"), outside.line());
    }

    /**
     * Each count moved the way that makes a stage count more than it was given (a downstream count up, or an upstream
     * one down), at rest and in flight: the books do not balance, and the gap is named with its size.
     */
    @Test
    void aStageThatCountsMoreThanItWasGivenDoesNotBalanceAndIsNamed()
    {
        final Map<String, String> gapOf = Map.ofEntries(
            Map.entry("wireSent", "the other port transmitted 1 more than arrived"),
            Map.entry("devicePlaced", "the RX queues took 1 more than the device placed"),
            Map.entry("missed", "the other port transmitted 1 more than arrived"),
            Map.entry("deviceDropped", "the other port transmitted 1 more than arrived"),
            Map.entry("taken", "the RX queues took 1 more than the device placed"),
            Map.entry("toSockets", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("toHost", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropMalformed", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropUnsupported", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropNoSocket", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropSocketRingFull", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropNodeDown", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropFailed", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropShutdown", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("dropHostRingFull", "the RX queues handed on or dropped 1 more than they took"),
            Map.entry("socketDelivered", "the sockets delivered or dropped 1 more than their rings were given"),
            Map.entry("socketDropClosed", "the sockets delivered or dropped 1 more than their rings were given"),
            Map.entry("hostTaken", "the host took 1 more than its ring was given"));
        final List<String> upstream = List.of("devicePlaced", "missed", "deviceDropped");
        for (final Map.Entry<String, String> entry : gapOf.entrySet())
        {
            final int term = TERMS.indexOf(entry.getKey());
            final ReceiveBooks atRest = moved(AT_REST, term, upstream.contains(entry.getKey()));
            assertUnbalanced(atRest, entry.getValue(), entry.getKey() + " at rest");
        }
        // In flight a ring absorbs a count one off; off by more than a ring holds, the books refuse it.
        final ReceiveBooks sockets = with(BUSY, TERMS.indexOf("socketDelivered"), BUSY.socketDelivered() + 6);
        assertUnbalanced(sockets, "the sockets delivered or dropped 1 more than their rings were given",
            "socketDelivered + 6 in flight");
        final ReceiveBooks host = with(BUSY, TERMS.indexOf("hostIgnored"), BUSY.hostTaken() + 2);
        assertUnbalanced(host, "the host ignored or failed 3 more than it took", "hostIgnored past hostTaken");
    }

    private static void assertUnbalanced(final ReceiveBooks books, final String gap, final String what)
    {
        assertFalse(books.balances(), what + ": " + books.line());
        assertTrue(books.gaps().stream().anyMatch(g -> g.endsWith(gap)), what + ": " + books.gaps());
    }

    /** {@code books} with term {@code term} one more ({@code down} false) or one less ({@code down} true). */
    private static ReceiveBooks moved(final ReceiveBooks books, final int term, final boolean down)
    {
        return with(books, term, values(books)[term] + (down ? -1 : 1));
    }

    /** {@code books} with socketDelivered {@code value}. */
    static ReceiveBooks withSocketDelivered(final ReceiveBooks books, final long value)
    {
        return with(books, TERMS.indexOf("socketDelivered"), value);
    }

    private static ReceiveBooks with(final ReceiveBooks b, final int term, final long value)
    {
        final long[] v = values(b);
        v[term] = value;
        return new ReceiveBooks((int)v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
            v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20]);
    }

    private static long[] values(final ReceiveBooks b)
    {
        return new long[] {b.port(), b.wireSent(), b.devicePlaced(), b.missed(), b.deviceDropped(), b.taken(),
            b.toSockets(), b.toHost(), b.dropMalformed(), b.dropUnsupported(), b.dropNoSocket(), b.dropSocketRingFull(),
            b.dropFailed(), b.dropShutdown(), b.dropHostRingFull(), b.socketDelivered(), b.socketDropClosed(),
            b.hostTaken(), b.hostIgnored(), b.hostFailed(), b.dropNodeDown()};
    }
}
