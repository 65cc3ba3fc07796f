package io.xmit.actors.internal.txq;

import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.StageEngine;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.trace.TracePoint;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The completion side of one TX queue (the driver's TX clean-up and kernel-semantics §7): reclaims what the device
 * has sent, releases each packet's socket in completion order (which drives {@code ooo_okay} and send-buffer
 * limits), tells BQL, and wakes the queue and its qdisc when there is room again (§7.3, §7.6).
 */
public final class TxQueueEngine implements StageEngine, TxWatchdog.Watched
{
    private final int txq;
    private final NicDriver driver;
    private final TxQueueState state;
    private final ByteQueueLimits bql;
    private final InFlightFifo inFlight;
    private final SocketTable sockets;
    private final int ringSize;
    private final int wakeRoom;
    private final Runnable wakeQdisc;
    private final Runnable wakeSelf;
    private final TxCompletion completion = new TxCompletion();

    private final AtomicCounter completedPackets;
    private final AtomicCounter completedBytes;
    private final AtomicCounter wakes;
    private final AtomicCounter reclaimErrors;
    private final AtomicCounter bqlLimit;
    private final AtomicCounter inFlightBytes;
    private final AtomicCounter dropShutdown;
    private final AtomicCounter watchdogResets;
    private final AtomicCounter stoppedGauge;
    private final CrashSwitch crash;
    private long pendingPackets;
    private long pendingBytes;
    private TracePoint trace = TracePoint.NONE;

    public TxQueueEngine(
        final int port,
        final int txq,
        final NicDriver driver,
        final TxQueueState state,
        final ByteQueueLimits bql,
        final InFlightFifo inFlight,
        final SocketTable sockets,
        final int bulkLimit,
        final CountersFile counters,
        final Runnable wakeQdisc,
        final Runnable wakeSelf)
    {
        this.txq = txq;
        this.driver = driver;
        this.state = state;
        this.bql = bql;
        this.inFlight = inFlight;
        this.sockets = sockets;
        this.ringSize = driver.ringSize();
        this.wakeRoom = Math.max(1, Math.min(bulkLimit, ringSize / 4));
        this.wakeQdisc = wakeQdisc;
        this.wakeSelf = wakeSelf;
        final CounterScope scope = CounterScope.txq(port, txq);
        completedPackets = counters.allocate(CounterType.TXQ_COMPLETED_PACKETS, scope);
        completedBytes = counters.allocate(CounterType.TXQ_COMPLETED_BYTES, scope);
        wakes = counters.allocate(CounterType.TXQ_WAKES, scope);
        reclaimErrors = counters.allocate(CounterType.TXQ_DRIVER_ERRORS, scope.withSide(CounterScope.Side.RECLAIM));
        bqlLimit = counters.allocate(CounterType.TXQ_BQL_LIMIT, scope);
        inFlightBytes = counters.allocate(CounterType.TXQ_INFLIGHT_BYTES, scope);
        dropShutdown = counters.allocate(CounterType.TXQ_DROP_SHUTDOWN, scope);
        watchdogResets = counters.allocate(CounterType.TXQ_WATCHDOG_RESETS, scope);
        stoppedGauge = counters.allocate(CounterType.TXQ_STOPPED, scope);
        crash = new CrashSwitch("tx queue " + port + "/" + txq);
    }

    /**
     * Reclaims once.
     *
     * @return the packets completed, or 1 while packets are still in flight (a backlogged wire completes them only
     * as time passes, so the queue keeps polling), or 0 when nothing is in flight and the duty cycle may go idle.
     */
    @Override
    public int poll()
    {
        crash.load();
        if (driver.txReclaim(txq, completion) < 0)
        {
            // The shim wrote nothing: the completion still holds the previous call's figures.
            reclaimErrors.incrementRelease();
            return inFlight.size() > 0 ? 1 : 0;
        }
        // The shim reports a completion once: it is held here until booked, so a failure in between loses nothing.
        pendingPackets += completion.packets();
        pendingBytes += completion.bytes();
        final int packets = (int)pendingPackets;
        // The qdisc may run on another thread (a sender's), and appends a burst to the in-flight FIFO just after the
        // tx_burst returns: completions of a burst not yet appended wait, held, for the next poll.
        if (packets > 0 && packets <= inFlight.size())
        {
            crash.point("after reclaiming completions, before booking them");
            book();
        }
        // netif_tx_wake_queue (§7.6) once the driver's ring has room for a bulk (drivers wake with hysteresis, or a
        // full ring would stop and wake the queue once per completed packet): the in-flight FIFO holds exactly what
        // occupies the ring (accepted, not yet reclaimed).
        if ((state.bits() & TxQueueState.DRV_XOFF) != 0 && ringSize - inFlight.size() >= wakeRoom &&
            state.wakeQueue())
        {
            wakes.incrementRelease();
            wakeQdisc.run();
        }
        if (packets > 0)
        {
            return packets;
        }
        return inFlight.size() > 0 ? 1 : 0;
    }

    /** The tracing hooks of this TX queue's completions, set once before the queue runs. */
    public void trace(final TracePoint point)
    {
        trace = point;
    }

    /** Completions reclaimed but not yet booked (a failure came in between): booked now, on restart. */
    @Override
    public void recover()
    {
        if (pendingPackets > 0)
        {
            book();
        }
    }

    @Override
    public void armCrash(final int points)
    {
        crash.arm(points);
    }

    public long completedPackets()
    {
        return completedPackets.get();
    }

    /**
     * Nothing is in the driver and nothing reclaimed waits to be booked: no completion is left for the actor
     * (kernel-semantics §7.7). Read under the channel's token.
     */
    public boolean settled()
    {
        return 0 == pendingPackets && 0 == inFlight.size();
    }

    /** Packets the driver accepted and has not completed (booked). */
    public int inDriver()
    {
        return inFlight.size();
    }

    public long droppedAtStop()
    {
        return dropShutdown.get();
    }

    public long watchdogResets()
    {
        return watchdogResets.get();
    }

    /**
     * A graceful stop's last step for this queue, once its actors have stopped: completions that came meanwhile are
     * booked; what is still in the driver's ring will not be completed, and is counted ({@code txq_drop_shutdown})
     * with its sockets released.
     *
     * @return the packets dropped.
     */
    public int dropLeftovers()
    {
        if (driver.txReclaim(txq, completion) >= 0)
        {
            pendingPackets += completion.packets();
            pendingBytes += completion.bytes();
        }
        if (pendingPackets > 0)
        {
            final int packets = (int)pendingPackets;
            completedPackets.getAndAddRelease(inFlight.remove(packets, sockets));
            completedBytes.getAndAddRelease(pendingBytes);
            pendingPackets = 0;
            pendingBytes = 0;
        }
        final int left = inFlight.size();
        inFlight.remove(left, sockets);
        dropShutdown.getAndAddRelease(left);
        return left;
    }

    /** The TX watchdog's look at the queue, published as the {@code txq_stopped} gauge. */
    @Override
    public void observeStopped(final boolean stopped)
    {
        stoppedGauge.setRelease(stopped ? 1 : 0);
    }

    /**
     * The TX watchdog's action (kernel-semantics §8.2, {@code ndo_tx_timeout}): resets the queue through the shim and
     * wakes it, so its backlog drains. Runs on the watchdog's thread; the shim serialises it with this queue's
     * bursts and reclaims, and the queue state is atomic.
     */
    @Override
    public void watchdogReset()
    {
        watchdogResets.incrementRelease();
        driver.txReset(txq);
        // The emulated NIC re-posts its ring rather than dropping it, so BQL's bytes in flight stay true: only the
        // driver's stop bit is cleared (netif_tx_wake_queue); STACK_XOFF clears when those bytes complete.
        state.txStarted(state.clock().nanoTime());
        state.wakeQueue();
        wakeSelf.run();
        wakeQdisc.run();
    }

    /** Releases the sockets' in-flight counts in completion order, tells BQL, and counts. */
    private void book()
    {
        final int packets = (int)pendingPackets;
        final int bytes = (int)pendingBytes;
        pendingPackets = 0;
        pendingBytes = 0;
        inFlight.traceCompleted(packets, trace);
        // The books count what the in-flight FIFO held: a driver completing more than it was given would otherwise
        // make them disagree without a trace.
        completedPackets.getAndAddRelease(inFlight.remove(packets, sockets));
        completedBytes.getAndAddRelease(bytes);
        // netdev_tx_completed_queue (§7.3): room under the BQL limit again → the qdisc runs.
        if (bql.completed(packets, bytes))
        {
            wakes.incrementRelease();
            wakeQdisc.run();
        }
        bqlLimit.setRelease(bql.dql().limit());
        inFlightBytes.setRelease(bql.dql().inflight());
    }
}
