package io.xmit.actors;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The books' checks on hand-built {@link QueueBooks} and {@link ReceiveBooks}: books that balance, and books off by one
 * in each term of the identity, which {@link Accounting#balances()} refuses and {@link Accounting#line()} names.
 */
class AccountingTest
{
    /** Balanced with something in every term: 105 = 90 + 4 + 3 + 2 + 5 + 1 taken; 90 = 80 + 7 + 3 sent. */
    private static final QueueBooks BUSY = new QueueBooks(1, 2, 105, 90, 80, 7, 4, 3, 2, 5, 1, 3, 0);

    /** Balanced and at rest: 50 = 50 taken, 50 = 48 + 2 sent (two dropped in the driver at a stop). */
    private static final QueueBooks AT_REST = new QueueBooks(1, 3, 50, 50, 48, 0, 0, 0, 0, 0, 0, 2, 1);

    /** Taken by the two queues (155), and five more accepted still in the rings. */
    private static final long ACCEPTED = 160;

    @Test
    void booksInFlightBalanceAndMakeTheIdentity()
    {
        final Accounting books = new Accounting(ACCEPTED, List.of(BUSY, AT_REST), List.of());
        assertTrue(BUSY.balances());
        assertTrue(AT_REST.balances());
        assertTrue(books.balances(), books.line());
        assertFalse(books.atRest(), books.line());
        assertEquals(5, books.inRings());
        assertEquals(4, books.inBacklogs());
        assertEquals(7, books.inDriver());
        assertEquals(16, books.inFlight());
        assertEquals(128, books.transmitted());
        assertEquals(16, books.dropped());
        assertEquals(ACCEPTED, books.transmitted() + books.inFlight() + books.dropped(), books.line());
        assertEquals(Map.of("qdisc_drop_overflow", 3L, "qdisc_drop_oversize", 2L, "qdisc_drop_driver_error", 5L,
            "qdisc_drop_shutdown", 1L, "txq_drop_shutdown", 5L), books.dropsByReason());
        assertEquals("tx: accepted 160 = transmitted 128 + in flight 16 (rings 5, backlogs 4, driver 7) + dropped 16 " +
            "(qdisc_drop_overflow=3, qdisc_drop_oversize=2, qdisc_drop_driver_error=5, qdisc_drop_shutdown=1, " +
            "txq_drop_shutdown=5): balanced",
            books.line());
    }

    @Test
    void booksAtRestBalanceWithNothingInFlight()
    {
        final Accounting books = new Accounting(50, List.of(AT_REST), List.of());
        assertTrue(books.balances(), books.line());
        assertTrue(books.atRest(), books.line());
        assertEquals(0, books.inFlight());
        assertEquals(50, books.transmitted() + books.dropped());
        assertTrue(books.line().endsWith(": balanced"), books.line());
    }

    /** One accepted frame never taken from a ring (a send committed after a stop emptied them) is not at rest. */
    @Test
    void aFrameLeftInARingBalancesButIsNotAtRest()
    {
        final Accounting books = new Accounting(51, List.of(AT_REST), List.of());
        assertTrue(books.balances(), books.line());
        assertEquals(1, books.inRings());
        assertFalse(books.atRest(), books.line());
        assertTrue(books.line().contains("(rings 1, "), books.line());
    }

    /** A qdisc that took more than the sockets accepted (a frame taken twice): the rings' part is negative. */
    @Test
    void moreTakenThanAcceptedDoesNotBalance()
    {
        final Accounting books = new Accounting(49, List.of(AT_REST), List.of());
        assertEquals(-1, books.inRings());
        assertNotBalanced(books, "accepted one short");
        final Accounting busy = new Accounting(154, List.of(BUSY, AT_REST), List.of());
        assertNotBalanced(busy, "accepted one short, in flight");
    }

    /** Each term of the two equations off by one, either way, in either queue: the books do not balance. */
    @Test
    void booksOffByOneInAnyTermDoNotBalance()
    {
        final List<String> terms = List.of("taken", "sent", "completed", "inDriver", "backlog", "dropOverflow",
            "dropOversize", "dropDriverError", "dropStopQueued", "dropStopInDriver");
        for (int term = 0; term < terms.size(); term++)
        {
            for (final long delta : new long[] {1, -1})
            {
                final String what = terms.get(term) + (delta > 0 ? " + 1" : " - 1");
                final QueueBooks busy = offBy(BUSY, term, delta);
                assertFalse(busy.balances(), what + ": " + busy);
                // One more accepted keeps the rings' part non-negative: only the queue's equation refuses the books.
                assertNotBalanced(new Accounting(ACCEPTED + 1, List.of(busy, AT_REST), List.of()), what);
                final QueueBooks rest = offBy(AT_REST, term, delta);
                assertFalse(rest.balances(), what + " at rest: " + rest);
                assertNotBalanced(new Accounting(ACCEPTED + 1, List.of(BUSY, rest), List.of()), what + " at rest");
            }
        }
    }

    /** The receive side is part of the books: a port whose sockets delivered more than they were given unbalances them. */
    @Test
    void aReceivePortThatDoesNotBalanceUnbalancesTheBooksAndIsNamed()
    {
        final ReceiveBooks portB = ReceiveBooksTest.withSocketDelivered(ReceiveBooksTest.AT_REST,
            ReceiveBooksTest.AT_REST.socketDelivered() + 3);
        final Accounting books = new Accounting(50, List.of(AT_REST), List.of(ReceiveBooksTest.AT_REST, portB));
        assertNotBalanced(books, "port B's sockets delivered 3 more than they were given");
        assertTrue(books.line().endsWith(
            "; port B rx: the sockets delivered or dropped 3 more than their rings were given"), books.line());
    }

    /** Both directions at rest, each on its own side of the line. */
    @Test
    void booksAtRestInBothDirectionsBalanceAndShowTheReceiveIdentity()
    {
        final Accounting books = new Accounting(50, List.of(AT_REST), List.of(ReceiveBooksTest.AT_REST));
        assertTrue(books.balances(), books.line());
        assertTrue(books.atRest(), books.line());
        assertEquals(ReceiveBooksTest.AT_REST.arrived(), books.arrived());
        assertTrue(books.line().startsWith("tx: accepted 50 = "), books.line());
        assertTrue(books.line().contains("; rx " + ReceiveBooksTest.AT_REST.line() + ": balanced"), books.line());
    }

    private static void assertNotBalanced(final Accounting books, final String what)
    {
        assertFalse(books.balances(), what + ": " + books.line());
        assertTrue(books.line().contains(": NOT BALANCED"), what + ": " + books.line());
        assertFalse(books.line().contains(": balanced"), what + ": " + books.line());
        for (final QueueBooks queue : books.queues())
        {
            // The queues that do not balance are named, those that do are not.
            assertEquals(!queue.balances(), books.line().contains(queue.toString()), what + ": " + books.line());
        }
    }

    /** {@code books} with term {@code term} (taken, sent, … in declaration order) moved by {@code delta}. */
    private static QueueBooks offBy(final QueueBooks b, final int term, final long delta)
    {
        final long[] v = {b.taken(), b.sent(), b.completed(), b.inDriver(), b.backlog(), b.dropOverflow(),
            b.dropOversize(), b.dropDriverError(), b.dropStopQueued(), b.dropStopInDriver()};
        v[term] += delta;
        return new QueueBooks(b.port(), b.txq(), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
            b.watchdogResets());
    }
}
