package io.xmit.pipeline.txq;

import java.lang.management.ManagementFactory;

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
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

        long schedules = run(CYCLES / 2);
        final long before = threads.getCurrentThreadAllocatedBytes();
        schedules += run(CYCLES);
        final long after = threads.getCurrentThreadAllocatedBytes();

        assertEquals(0, after - before, "bytes allocated over " + CYCLES + " cycles");
        assertTrue(schedules > 0);
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
            for (int p = 0; p < 8 && !state.frozenOrStopped(); p++)
            {
                final int bytes = 64 + ((i * 31 + p * 17) & 1023);
                bql.sentMore(bytes, p < 7);
                inflight += bytes;
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
