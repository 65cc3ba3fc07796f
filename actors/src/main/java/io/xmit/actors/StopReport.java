package io.xmit.actors;

import java.time.Duration;

/**
 * What a graceful stop ({@link Pipeline#stop}) did: whether everything accepted left before the deadline, and if
 * not, what was dropped where (each also counted: {@code qdisc_drop_shutdown}, {@code txq_drop_shutdown}), with the
 * pipeline's final books.
 *
 * @param drained         true if rings, backlogs and the driver were empty, and every frame received was delivered,
 *                        before the deadline.
 * @param took            how long the stop took, close included.
 * @param droppedQueued   packets left in TX rings or qdisc backlogs at the deadline.
 * @param droppedInDriver packets the driver had accepted and not completed at the deadline.
 * @param droppedAwaitingArp datagrams held for a next hop's resolution (ports with ARP), counted as
 *                        {@code neigh_drop_shutdown}; outside the books, which count them only once sent.
 * @param books           the final books (at rest: nothing in flight).
 */
public record StopReport(boolean drained, Duration took, long droppedQueued, long droppedInDriver,
    long droppedAwaitingArp, Accounting books)
{
    /** One line for a log or a summary. */
    public String line()
    {
        return (drained ? "drained" : "not drained by the deadline: dropped " + droppedQueued + " queued and " +
            droppedInDriver + " in the driver") +
            (droppedAwaitingArp > 0 ? ", " + droppedAwaitingArp + " awaiting ARP dropped" : "") +
            " in " + took.toMillis() + " ms; " + books.line();
    }
}
