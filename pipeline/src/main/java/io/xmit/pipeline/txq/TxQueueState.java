package io.xmit.pipeline.txq;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state word of one TX queue (kernel-semantics §7.6): DRV_XOFF (the driver's ring is full), STACK_XOFF (BQL
 * says enough bytes are in flight) and FROZEN (the queue is locked for a reset or a watchdog timeout), kept as
 * bits of one int changed by atomic read-modify-write operations, plus the last transmit start time the watchdog
 * reads (§8.3).
 * <p>
 * The qdisc, the completion side and the watchdog run on different threads, so every bit change is a volatile
 * atomic; nothing here allocates.
 */
public final class TxQueueState
{
    public static final int DRV_XOFF = 1;
    public static final int STACK_XOFF = 1 << 1;
    public static final int FROZEN = 1 << 2;

    private static final int STOPPED = DRV_XOFF | STACK_XOFF;
    private static final int FROZEN_OR_STOPPED = DRV_XOFF | STACK_XOFF | FROZEN;
    private static final int DRV_XOFF_OR_FROZEN = DRV_XOFF | FROZEN;

    private static final VarHandle STATE;
    private static final VarHandle TRANS_START;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(TxQueueState.class, "state", int.class);
            TRANS_START = lookup.findVarHandle(TxQueueState.class, "transStart", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final NanoClock clock;
    private int state;
    private long transStart;

    public TxQueueState(final NanoClock clock)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.clock = clock;
        this.transStart = clock.nanoTime();
    }

    /** The clock this queue reads; BQL bound to this queue uses the same one. */
    public NanoClock clock()
    {
        return clock;
    }

    /** netif_tx_stop_queue: stamp transStart first so the watchdog never sees a stopped queue with a stale time (§7.6, §8.3). */
    public void stopQueue()
    {
        TRANS_START.setRelease(this, clock.nanoTime());
        STATE.getAndBitwiseOr(this, DRV_XOFF);
    }

    /** netif_tx_wake_queue (§7.6): true if this call cleared DRV_XOFF, and the caller must then schedule the qdisc. */
    public boolean wakeQueue()
    {
        return ((int)STATE.getAndBitwiseAnd(this, ~DRV_XOFF) & DRV_XOFF) != 0;
    }

    /** netif_tx_start_queue (§7.6): clears DRV_XOFF without scheduling anything. */
    public void startQueue()
    {
        STATE.getAndBitwiseAnd(this, ~DRV_XOFF);
    }

    /** The FROZEN half of netif_tx_lock (§7.6). */
    public void freeze()
    {
        STATE.getAndBitwiseOr(this, FROZEN);
    }

    /** The FROZEN half of netif_tx_unlock (§7.6): true if the queue is not stopped, so the caller must schedule. */
    public boolean unfreeze()
    {
        final int after = (int)STATE.getAndBitwiseAnd(this, ~FROZEN) & ~FROZEN;
        return (after & STOPPED) == 0;
    }

    /** BQL over its limit (§7.2). */
    public void setStackXoff()
    {
        STATE.getAndBitwiseOr(this, STACK_XOFF);
    }

    /** BQL room again, or a reset (§7.2, §7.5). */
    public void clearStackXoff()
    {
        STATE.getAndBitwiseAnd(this, ~STACK_XOFF);
    }

    /** The completion side's test_and_clear_bit (§7.3): true if this call cleared STACK_XOFF. */
    public boolean testAndClearStackXoff()
    {
        return ((int)STATE.getAndBitwiseAnd(this, ~STACK_XOFF) & STACK_XOFF) != 0;
    }

    /** netif_xmit_stopped (§7.6): DRV_XOFF or STACK_XOFF. */
    public boolean stopped()
    {
        return ((int)STATE.getVolatile(this) & STOPPED) != 0;
    }

    /** netif_xmit_frozen_or_stopped (§7.6): DRV_XOFF, STACK_XOFF or FROZEN. */
    public boolean frozenOrStopped()
    {
        return ((int)STATE.getVolatile(this) & FROZEN_OR_STOPPED) != 0;
    }

    /** netif_xmit_frozen_or_drv_stopped (§7.6): what the direct-xmit paths test, BQL's STACK_XOFF excluded. */
    public boolean drvXoffOrFrozen()
    {
        return ((int)STATE.getVolatile(this) & DRV_XOFF_OR_FROZEN) != 0;
    }

    /** The raw bits, for counters and tests. */
    public int bits()
    {
        return (int)STATE.getVolatile(this);
    }

    /** When a transmit last started or the queue last stopped, in this queue's clock (§8.3). */
    public long transStart()
    {
        return (long)TRANS_START.getAcquire(this);
    }

    /**
     * {@code dev_watchdog}'s test of one queue (§8.2): stopped (DRV_XOFF or STACK_XOFF) and
     * {@code now > transStart + timeout}, strictly, so a queue stopped exactly {@code timeout} ago has not timed out.
     * A queue that transmits or stops again moves {@code transStart} (§8.3), and an awake queue never times out.
     * The stop bits are read first, then the stamp, as dev_watchdog does (§8.2): a stop stamps {@code transStart}
     * before it sets its bit (§7.6, §7.2), so a queue seen stopped is seen with its stop's stamp. Read the other way
     * round, a queue idle for longer than the timeout that stops between the two reads would be taken for hung.
     */
    public boolean timedOut(final long timeoutNanos)
    {
        return stopped() && clock.nanoTime() - (transStart() + timeoutNanos) > 0;
    }

    /** txq_trans_update after an accepted transmit, or BQL stopping the queue (§6.3, §7.2, §8.3). */
    public void txStarted(final long now)
    {
        TRANS_START.setRelease(this, now);
    }

    @Override
    public String toString()
    {
        final int bits = bits();
        return "TxQueueState{" +
            ((bits & DRV_XOFF) != 0 ? "DRV_XOFF " : "") +
            ((bits & STACK_XOFF) != 0 ? "STACK_XOFF " : "") +
            ((bits & FROZEN) != 0 ? "FROZEN " : "") +
            "transStart=" + transStart() + "}";
    }
}
