package io.xmit.transport.nic;

/**
 * Fault injection for tests (XMIT_NIC_FAULT_*); a value of 0 turns the fault off.
 */
public enum NicFault
{
    /** Every fault of the port off; queue and value ignored. */
    CLEAR(0, false),
    /** Every value-th {@code txBurst} on the TX queue fails with {@code -EIO} and accepts nothing. */
    TX_FAIL_EVERY(1, true),
    /** Value 1: the TX queue sends and completes nothing until released with value 0 (for the watchdog). */
    TX_STALL(2, true),
    /** Every value-th frame arriving on the RX queue is dropped (counted as rx_dropped). */
    RX_DROP_EVERY(3, false),
    /** Every value-th frame arriving on the RX queue keeps half its length (counted as rx_truncated). */
    RX_TRUNCATE_EVERY(4, false),
    /**
     * Every value-th {@code txBurst} on the TX queue accepts only the first half of the burst (rounded down), as a
     * driver short of descriptors does: the rest is refused, not failed, and may be offered again.
     */
    TX_BUSY_EVERY(5, true);

    final int code;
    final boolean txSide;

    NicFault(final int code, final boolean txSide)
    {
        this.code = code;
        this.txSide = txSide;
    }
}
