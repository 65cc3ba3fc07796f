package io.xmit.actors;

/**
 * The books of one TX queue, read on its qdisc's thread between turns, where the qdisc and the TX queue's completion
 * side (which share that thread) agree exactly:
 * <pre>
 * taken                = sent to the driver + in the backlog
 *                        + dropped by the qdisc (overflow, oversize, a failed tx_burst, stop)
 * sent to the driver   = completed + in the driver's ring + dropped at stop (still in the driver at the deadline)
 * </pre>
 *
 * @param port               the device port.
 * @param txq                the TX queue.
 * @param taken              frames the qdisc took from the queue's rings (one per band), and those senders handed it
 *                           directly ({@code qdisc_direct}, kernel-semantics §4.4a).
 * @param backlog            packets in the qdisc's backlog, and staged by the direct path.
 * @param sent               packets the driver accepted ({@code qdisc_packets}).
 * @param completed          packets the driver completed ({@code txq_completed_packets}).
 * @param inDriver           packets accepted and not completed (the in-flight FIFO).
 * @param dropOverflow       {@code qdisc_drop_overflow}.
 * @param dropOversize       {@code qdisc_drop_oversize}.
 * @param dropDriverError    {@code qdisc_drop_driver_error}: in a {@code tx_burst} that failed (§4.5).
 * @param dropStopQueued     {@code qdisc_drop_shutdown}: left in the ring or the backlog by a stop's deadline.
 * @param dropStopInDriver   {@code txq_drop_shutdown}: still in the driver at a stop's deadline.
 * @param watchdogResets     {@code txq_watchdog_resets}.
 */
public record QueueBooks(
    int port,
    int txq,
    long taken,
    long sent,
    long completed,
    long inDriver,
    long backlog,
    long dropOverflow,
    long dropOversize,
    long dropDriverError,
    long dropStopQueued,
    long dropStopInDriver,
    long watchdogResets)
{
    /** Packets dropped under a reason, at the qdisc or at stop. */
    public long dropped()
    {
        return dropOverflow + dropOversize + dropDriverError + dropStopQueued + dropStopInDriver;
    }

    /** True if both equations hold. */
    public boolean balances()
    {
        return taken == sent + backlog + dropOverflow + dropOversize + dropDriverError + dropStopQueued &&
            sent == completed + inDriver + dropStopInDriver;
    }
}
