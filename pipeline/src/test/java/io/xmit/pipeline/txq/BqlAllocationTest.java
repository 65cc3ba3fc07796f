package io.xmit.pipeline.txq;

import io.xmit.pipeline.AllocationMeter;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BQL sent/completed and the TX queue state bits allocate nothing. */
class BqlAllocationTest
{
    private static final int CYCLES = 1_000_000;

    private final ManualClock clock = new ManualClock(0);
    private final TxQueueState state = new TxQueueState(clock);
    private final ByteQueueLimits bql = new ByteQueueLimits(state, 1_000_000L);

    @Test
    void sentCompletedAndStateChangesAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, CYCLES / 2, CYCLES);

        assertEquals(0, m.allocatedBytes(), "bytes allocated over " + CYCLES + " cycles");
        assertTrue(m.result() > 0);
        assertTrue(bql.dql().limit() > 0);
    }

    private long run(final int cycles)
    {
        long schedules = 0;
        int inflight = 0;
        for (int i = 0; i < cycles; i++)
        {
            clock.advance(1_000 + (i & 1023));
            // Send a burst while BQL allows it, then complete part of what is in flight.
            int burst = 0;
            int last = 0;
            for (int p = 0; p < 8; p++)
            {
                last = 64 + ((i * 31 + p * 17) & 1023);
                burst += last;
            }
            if (!state.frozenOrStopped())
            {
                bql.sentBurst(burst, last);
                inflight += burst;
            }
            final int done = (i & 3) == 3 ? inflight : inflight / 2;
            if (bql.completed(1, done))
            {
                schedules++;
            }
            inflight -= done;
            if ((i & 4095) == 0)
            {
                state.stopQueue();
                state.freeze();
                state.unfreeze();
                if (state.wakeQueue())
                {
                    schedules++;
                }
                state.txStarted(clock.nanoTime());
            }
        }
        return schedules;
    }
}
