package io.xmit.actors.internal.txq;

import io.xmit.pipeline.txq.TxQueueState;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The watchdog's look over a port's queues (kernel-semantics §8.2), with a clock the test steps: which queues it
 * resets, and the departure xmit chose, every timed-out queue in one look rather than the kernel's first one.
 */
class TxWatchdogTest
{
    private static final long TIMEOUT = 5_000;

    private final long[] now = {1_000};

    private static final class Queue implements TxWatchdog.Watched
    {
        private final TxQueueState state;
        private boolean observedStopped;
        private int resets;

        Queue(final TxQueueState state)
        {
            this.state = state;
        }

        @Override
        public void observeStopped(final boolean stopped)
        {
            observedStopped = stopped;
        }

        @Override
        public void watchdogReset()
        {
            resets++;
            state.txStarted(state.clock().nanoTime());
            state.wakeQueue();
        }
    }

    private final TxQueueState[] states = new TxQueueState[4];
    private final List<Queue> queues = new ArrayList<>();

    TxWatchdogTest()
    {
        for (int q = 0; q < states.length; q++)
        {
            states[q] = new TxQueueState(() -> now[0]);
            queues.add(new Queue(states[q]));
        }
    }

    @Test
    void everyQueueStoppedPastTheTimeoutIsResetInOneLookAndNoOther()
    {
        states[0].stopQueue();
        states[1].stopQueue();
        now[0] += 1;
        states[2].stopQueue();
        now[0] += TIMEOUT;

        assertEquals(2, TxWatchdog.look(0, states, queues, TIMEOUT), "tx-0 and tx-1, not only the first");
        assertEquals(List.of(1, 1, 0, 0), resets());
        assertEquals(List.of(true, true, true, false), observed(), "as they were when looked at");

        assertEquals(0, TxWatchdog.look(0, states, queues, TIMEOUT), "tx-2 is stopped exactly the timeout");
        now[0] += 1;
        assertEquals(1, TxWatchdog.look(0, states, queues, TIMEOUT));
        assertEquals(List.of(1, 1, 1, 0), resets());
        assertEquals(List.of(false, false, true, false), observed());
    }

    @Test
    void aStoppedQueueThatKeepsTransmittingIsNeverReset()
    {
        states[0].stopQueue();
        for (int i = 0; i < 50; i++)
        {
            now[0] += TIMEOUT / 2;
            states[0].txStarted(now[0]);
            now[0] += TIMEOUT / 2;
            assertEquals(0, TxWatchdog.look(0, states, queues, TIMEOUT), "look " + i);
        }
        assertEquals(List.of(0, 0, 0, 0), resets());
        assertEquals(List.of(true, false, false, false), observed());
    }

    private List<Integer> resets()
    {
        return queues.stream().map(q -> q.resets).toList();
    }

    private List<Boolean> observed()
    {
        return queues.stream().map(q -> q.observedStopped).toList();
    }
}
