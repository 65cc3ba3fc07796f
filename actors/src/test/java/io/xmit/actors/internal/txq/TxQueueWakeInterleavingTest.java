package io.xmit.actors.internal.txq;

import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.NicFault;
import io.xmit.transport.nic.QueueStats;
import io.xmit.transport.nic.RxBurst;
import io.xmit.transport.nic.TxCompletion;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.xmit.transport.ring.LastPollWindows.AFTER_POLL;
import static io.xmit.transport.ring.LastPollWindows.AFTER_REPOLL;
import static io.xmit.transport.ring.LastPollWindows.AFTER_RETURN;
import static io.xmit.transport.ring.LastPollWindows.BEFORE_POLL;
import static io.xmit.transport.ring.LastPollWindows.BEFORE_REPOLL;
import static io.xmit.transport.ring.LastPollWindows.WINDOWS;
import static io.xmit.transport.ring.LastPollWindows.name;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The stop/wake hand-over between a qdisc and its TX queue (kernel-semantics §7.6, with the wake-up rule of §5.5),
 * one step at a time on the test thread, for the interleavings the pipeline's stress and soak tests meet only by
 * chance. The TX queue is the real {@link TxQueueEngine} in its {@link RingDutyCycle}, over a driver whose ring has
 * room and nothing in flight. The qdisc is a model with the two steps that matter here: its stop (DRV_XOFF, then
 * ringing the TX queue, as {@code QdiscEngine} does when the driver's ring is full), and a turn that sends its
 * backlog only while the queue is neither stopped nor frozen (§4.7b). The two actors' mailboxes are counts of
 * queued {@code Poll}s.
 */
class TxQueueWakeInterleavingTest
{
    private static final int RING_SIZE = 64;

    @TempDir
    Path counterDirectory;
    private int fixtures;

    @Test
    void aQdiscStopInAnyWindowOfTheTxQueuesLastPollIsWokenAndTheBacklogLeaves_7_6()
    {
        // kernel-semantics §7.6, §5.5: the qdisc sets DRV_XOFF after the TX queue's last look at it, and rings a TX
        // queue that may still be RUNNING (no wake-up). Either its ring wakes the TX queue, or the TX queue's re-poll
        // after IDLE sees DRV_XOFF; either way netif_tx_wake_queue runs once and the qdisc sends what it held.
        for (int stop = BEFORE_POLL; stop < WINDOWS; stop++)
        {
            for (int ring = stop; ring < WINDOWS; ring++)
            {
                final String schedule = "stop " + name(stop) + ", ring " + name(ring);
                try (Fixture f = new Fixture(false))
                {
                    f.backlog = 1;
                    f.stopWindow = stop;
                    f.ringWindow = ring;
                    f.txqLastPoll();
                    f.runUntilQuiet();

                    assertEquals(1, f.sent, schedule + ": the qdisc's backlog was stranded behind a stopped queue");
                    assertEquals(0, f.state.bits(), schedule + ": " + f.state);
                    assertEquals(1, f.wakes(), schedule + ": netif_tx_wake_queue");
                    assertEquals(RingDoorbell.IDLE, f.txqDoorbell.state(), schedule);
                    assertEquals(RingDoorbell.IDLE, f.qdiscDoorbell.state(), schedule);
                }
            }
        }
    }

    @Test
    void theQdiscTheTxQueueWakesFindsItsQueueAwake_7_6()
    {
        // kernel-semantics §7.6: netif_tx_wake_queue clears DRV_XOFF, then schedules the qdisc. The qdisc here runs
        // the moment it is woken (another CPU that was waiting): had the wake come first, it would find the queue
        // stopped, go idle with its backlog, and nobody would wake it again.
        try (Fixture f = new Fixture(true))
        {
            f.backlog = 1;
            f.state.stopQueue();
            f.txqDoorbell.ring();
            f.runUntilQuiet();

            assertEquals(1, f.sent, "the qdisc's backlog was stranded: " + f.state);
            assertEquals(0, f.qdiscTurnsWhileStopped);
            assertEquals(1, f.wakes());
        }
    }

    @Test
    void theQdiscAWatchdogResetWakesFindsItsQueueAwake_8_2()
    {
        // kernel-semantics §8.2, §7.6: ndo_tx_timeout resets the queue and wakes it; the qdisc it schedules, running
        // at once, must find DRV_XOFF already cleared.
        try (Fixture f = new Fixture(true))
        {
            f.backlog = 1;
            f.state.stopQueue();
            f.txq.watchdogReset();
            f.runUntilQuiet();

            assertEquals(1, f.sent, "the qdisc's backlog was stranded: " + f.state);
            assertEquals(0, f.qdiscTurnsWhileStopped);
            assertEquals(1, f.driver.resets);
        }
    }

    /** One TX queue, its model qdisc and their doorbells; a counters file of its own. */
    private final class Fixture implements AutoCloseable
    {
        /** Whether a woken qdisc runs inside the wake-up, as if on another CPU that was waiting for it. */
        final boolean qdiscRunsAtOnce;
        int backlog;
        int sent;
        int qdiscTurnsWhileStopped;
        int stopWindow = -1;
        int ringWindow = -1;
        int txqQueued;
        int qdiscQueued;
        boolean inQdisc;
        boolean txqUnderTest;
        int txqPolls;
        final CountersFile counters =
            CountersFile.create("txq-wake-" + fixtures++, counterDirectory, CountersFile.DEFAULT_CAPACITY);
        final IdleDriver driver = new IdleDriver();
        final TxQueueState state = new TxQueueState(System::nanoTime);
        final RingDoorbell txqDoorbell = new RingDoorbell(() -> txqQueued++);
        final RingDoorbell qdiscDoorbell = new RingDoorbell(this::qdiscWoken);
        final TxQueueEngine txq = new TxQueueEngine(0, 0, driver, state, new ByteQueueLimits(state),
            new InFlightFifo(RING_SIZE), new SocketTable(), 16, counters, qdiscDoorbell::ring, txqDoorbell::ring);
        final RingDutyCycle txqCycle = new RingDutyCycle(txqDoorbell, this::txqPoll, 0);
        final RingDutyCycle qdiscCycle = new RingDutyCycle(qdiscDoorbell, this::qdiscTurn, 0);

        Fixture(final boolean qdiscRunsAtOnce)
        {
            this.qdiscRunsAtOnce = qdiscRunsAtOnce;
        }

        /** Starts the TX queue (one Poll), takes that Poll and runs it with the qdisc's steps in their windows. */
        void txqLastPoll()
        {
            txqDoorbell.ring();
            txqQueued--;
            txqUnderTest = true;
            txqCycle.onPoll();
            qdiscStepsIn(AFTER_RETURN);
            txqUnderTest = false;
        }

        /** Runs queued Polls, the TX queue's and the qdisc's in turn, until neither has one. */
        void runUntilQuiet()
        {
            while (txqQueued > 0 || qdiscQueued > 0)
            {
                if (txqQueued > 0)
                {
                    txqQueued--;
                    txqCycle.onPoll();
                }
                runQdisc();
            }
        }

        long wakes()
        {
            return counters.value(CounterType.TXQ_WAKES, CounterScope.txq(0, 0));
        }

        private int txqPoll()
        {
            final int call = txqPolls++;
            if (txqUnderTest)
            {
                qdiscStepsIn(0 == call ? BEFORE_POLL : BEFORE_REPOLL);
            }
            final int work = txq.poll();
            if (txqUnderTest)
            {
                qdiscStepsIn(0 == call ? AFTER_POLL : AFTER_REPOLL);
            }
            return work;
        }

        /** The qdisc's stop, due by {@code window}: a window the Poll never reached passes to the next. */
        private void qdiscStepsIn(final int window)
        {
            if (stopWindow >= 0 && window >= stopWindow)
            {
                stopWindow = -1;
                state.stopQueue();
            }
            if (ringWindow >= 0 && window >= ringWindow)
            {
                ringWindow = -1;
                txqDoorbell.ring();
            }
        }

        private void qdiscWoken()
        {
            qdiscQueued++;
            if (qdiscRunsAtOnce)
            {
                runQdisc();
            }
        }

        private void runQdisc()
        {
            if (inQdisc)
            {
                return;
            }
            inQdisc = true;
            while (qdiscQueued > 0)
            {
                qdiscQueued--;
                qdiscCycle.onPoll();
            }
            inQdisc = false;
        }

        /** §4.7b: nothing leaves a stopped or frozen queue. */
        private int qdiscTurn()
        {
            if (state.frozenOrStopped())
            {
                qdiscTurnsWhileStopped++;
                return 0;
            }
            final int leaving = backlog;
            backlog = 0;
            sent += leaving;
            return leaving;
        }

        @Override
        public void close()
        {
            counters.close();
        }
    }

    /** A driver whose TX ring is empty and stays so: reclaims complete nothing; a reset is counted. */
    private static final class IdleDriver implements NicDriver
    {
        int resets;

        @Override
        public int port()
        {
            return 0;
        }

        @Override
        public int txQueueCount()
        {
            return 1;
        }

        @Override
        public int rxQueueCount()
        {
            return 1;
        }

        @Override
        public int ringSize()
        {
            return RING_SIZE;
        }

        @Override
        public int maxFrame()
        {
            return 1514;
        }

        @Override
        public int txBurst(final int queue, final DescriptorBatch batch)
        {
            throw new UnsupportedOperationException("txBurst: the TX queue never sends");
        }

        @Override
        public int txReclaim(final int queue, final TxCompletion out)
        {
            return 0;
        }

        @Override
        public int rxBurst(final int queue, final RxBurst burst)
        {
            throw new UnsupportedOperationException("rxBurst");
        }

        @Override
        public int rxRelease(final int queue, final int count)
        {
            throw new UnsupportedOperationException("rxRelease");
        }

        @Override
        public int armRx(final int queue, final boolean armed)
        {
            throw new UnsupportedOperationException("armRx");
        }

        @Override
        public QueueStats stats(final int queue)
        {
            throw new UnsupportedOperationException("stats");
        }

        @Override
        public void fault(final NicFault fault, final int queue, final long value)
        {
            throw new UnsupportedOperationException("fault");
        }

        @Override
        public void txReset(final int queue)
        {
            resets++;
        }

        @Override
        public void setRssKey(final byte[] key)
        {
            throw new UnsupportedOperationException("setRssKey");
        }

        @Override
        public void setRssIndirection(final int[] table)
        {
            throw new UnsupportedOperationException("setRssIndirection");
        }
    }
}
