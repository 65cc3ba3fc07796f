package io.xmit.deploy.bench;

import java.util.List;
import java.util.Map;

import io.xmit.deploy.cluster.data.EdgeDataPlane;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The failover phase's bookkeeping, without JVMs: which flows must move when a node is killed, when each was first
 * answered by a survivor, the per-kill max and median, the summary over the kills whose books balance, and the books'
 * verdict.
 */
class FailoverBookTest
{
    private static final long MS = 1_000_000;

    @Test
    void aKilledNodesFlowsMoveWhenASurvivorFirstAnswersEachAndNotBefore()
    {
        final FailoverBook book = new FailoverBook(5);
        book.answered(0, 1, 10);
        book.answered(1, 2, 11);
        book.answered(2, 1, 12);
        book.answered(3, 1, 13);
        book.answered(4, 2, 14);
        book.answered(3, 2, 15);
        assertEquals(List.of(2, 3), List.of(book.servedBy(1), book.servedBy(2)));

        assertEquals(2, book.arm(1));
        // The dead node's own late answers and the survivor's flows move nothing.
        book.answered(0, 1, 20);
        book.answered(1, 2, 21);
        book.answered(4, 2, 22);
        assertEquals(List.of(), book.movedAt(), "flow 2 has not moved yet");
        book.answered(0, 2, 30 * MS);
        assertEquals(List.of(), book.movedAt(), "flow 2 has not moved yet");
        book.answered(2, 3, 70 * MS);
        book.answered(0, 3, 90 * MS);
        book.answered(2, 2, 95 * MS);
        assertEquals(List.of(30 * MS, 70 * MS), book.movedAt(), "the first answer of each by another node");
        assertEquals(List.of(0, 4, 1), List.of(book.servedBy(1), book.servedBy(2), book.servedBy(3)));
        assertEquals(2, book.answeredSince(30 * MS), "flows 0 and 2 were answered after 30 ms; 1, 3 and 4 not");

        assertEquals(4, book.arm(2), "a new arming takes the flows node 2 answers now and forgets the last");
        assertEquals(List.of(), book.movedAt());
        assertThrows(IllegalArgumentException.class, () -> book.arm(FailoverBook.NONE));
    }

    @Test
    void aKillsFailoverIsItsSlowestFlowWithTheMedianBesideIt()
    {
        final FailoverResult.Kill kill = FailoverResult.Kill.of(1_000 * MS, List.of(4_500 * MS, 3_000 * MS,
            6_000 * MS, 3_500 * MS), 8_250 * MS, 17, "");
        assertEquals(new FailoverResult.Kill(5_000, 3_000, 7_250, 4, 17, ""), kill);
        assertThrows(IllegalArgumentException.class, () -> FailoverResult.Kill.of(0, List.of(), 1, 0, ""));
    }

    @Test
    void theSummaryIsOverTheKillsWhoseBooksBalanceOnly()
    {
        final FailoverResult result = new FailoverResult("setup", List.of(
            new FailoverResult.Kill(4_000, 3_000, 7_000, 8, 10, ""),
            new FailoverResult.Kill(90_000, 90_000, 90_000, 9, 999, "3 requests sent and neither answered …"),
            new FailoverResult.Kill(6_000, 5_000, 8_000, 6, 20, ""),
            new FailoverResult.Kill(5_000, 4_000, 9_000, 10, 30, "")));
        assertEquals(1, result.unbalanced());
        final Map<String, Stat> summary = result.summary();
        assertEquals(FailoverResult.FIGURES, List.copyOf(summary.keySet()));
        assertEquals(new Stat(5_000, 4_000, 6_000, List.of(4_000.0, 6_000.0, 5_000.0)), summary.get("failover_ms"));
        assertEquals(new Stat(8_000, 7_000, 9_000, List.of(7_000.0, 8_000.0, 9_000.0)), summary.get("removal_ms"));
        assertEquals(List.of(8.0, 20.0), List.of(summary.get("flows_moved").median(), summary.get("lost").median()));
        assertEquals(Map.of(), new FailoverResult("setup", List.of(result.kills().get(1))).summary());
    }

    @Test
    void theBooksBalanceWhenEveryRequestIsAnsweredDroppedOrLeftByTheKilledNodeWithinItsBounds()
    {
        final EdgeDataPlane.NodeBooks survivor = books("a", true, 500, 500, 0, 500, 0, 0);
        // Killed: 300 published, 280 read, 15 unconfirmed, 5 never sent; 278 replies relayed, 2 left in its streams:
        // 22 unanswered, as many as its books allow (5 <= 22 <= 15 + 5 + 2).
        final EdgeDataPlane.NodeBooks killed = books("b", false, 300, 280, 15, 278, 2, 5);
        final FailoverEdge.Balance balance = FailoverEdge.balance(812, 760, 30, 0, List.of(survivor, killed), "b");
        assertEquals(new FailoverEdge.Balance(812, 812, 0, 22, ""), balance);
        assertEquals(0, balance.residual());

        final FailoverEdge.Balance short1 = FailoverEdge.balance(813, 760, 30, 0, List.of(survivor, killed), "b");
        assertEquals(1, short1.residual());

        final EdgeDataPlane.NodeBooks tooMany = books("b", false, 300, 280, 15, 200, 2, 5);
        assertEquals("killed b left 100 unanswered, live, not bounded by its books or with frames rejected, refused " +
            "or stale: " + tooMany, FailoverEdge.balance(890, 760, 30, 0, List.of(survivor, tooMany), "b").problems());

        final EdgeDataPlane.NodeBooks survivorShort = books("a", true, 500, 500, 0, 499, 0, 0);
        assertEquals("live a left 1 unanswered",
            FailoverEdge.balance(812, 759, 30, 0, List.of(survivorShort, killed), "b").problems());
    }

    private static EdgeDataPlane.NodeBooks books(final String node, final boolean live, final long published,
        final long received, final long unconfirmed, final long relayed, final long txNodeDown, final long rxNodeDown)
    {
        return new EdgeDataPlane.NodeBooks(node, 1, live, 2, live ? 2 : 0, published, received, unconfirmed, relayed,
            0, 0, txNodeDown, 0, rxNodeDown, 0);
    }
}
