package io.xmit.pipeline.xps;

import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.txq.NanoClock;

import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SelectionAllocationTest
{
    private static final int OPERATIONS = 1_000_000;

    private final QueueMap single = QueueMap.create(1, 4, 4);
    private final QueueMap multi = QueueMap.create(8, 4, 4)
        .withXpsRxqs(5, XpsMask.of(4, 1))
        .withXpsCpus(1, XpsMask.of(4, 0))
        .withXpsCpus(2, XpsMask.of(4, 0))
        .withXpsCpus(3, XpsMask.of(4, 0));
    private final SocketQueueState cachedSocket = new SocketQueueState();
    private final SocketQueueState rxqSocket = new SocketQueueState();
    private final SocketQueueState reselectingSocket = new SocketQueueState();
    /** Busy, with a 1 ns reselection period: its cached queue has aged at nearly every pick (§1.6). */
    private final SocketQueueState agingSocket = new SocketQueueState(NanoClock.SYSTEM, 1);
    private final long[] ruleCounts = new long[SelectionRule.values().length];

    SelectionAllocationTest()
    {
        cachedSocket.connect();
        cachedSocket.setTxQueue(4);
        cachedSocket.packetSent();
        rxqSocket.connect();
        rxqSocket.recordRxQueue(1);
        reselectingSocket.connect();
        agingSocket.connect();
        agingSocket.packetSent();
    }

    // Cycles through every rule: single, cached, xps-rxqs, xps-cpus, hash, a connected re-caching socket and a busy
    // one whose cached queue ages.
    private long run(final int operations)
    {
        long sum = 0;
        for (int i = 0; i < operations; i++)
        {
            final int hash = i * 0x9E37_79B9;
            final int picked = switch (i % 7)
            {
                case 0 -> TxQueueSelector.pickTx(single, cachedSocket, 0, hash);
                case 1 -> TxQueueSelector.pickTx(multi, cachedSocket, 0, hash);
                case 2 -> TxQueueSelector.pickTx(multi, rxqSocket, 0, hash);
                case 3 -> TxQueueSelector.pickTx(multi, null, 0, hash);
                case 4 -> TxQueueSelector.pickTx(multi, null, -1, hash);
                case 5 -> TxQueueSelector.pickTx(multi, reselectingSocket, i & 3, hash);
                default -> TxQueueSelector.pickTx(multi, agingSocket, i & 3, hash);
            };
            ruleCounts[TxQueueSelector.rule(picked).ordinal()]++;
            sum += TxQueueSelector.queue(picked);
        }
        return sum;
    }

    @Test
    void pickTxAllocatesNothingAcrossAllRules()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, 2 * OPERATIONS, OPERATIONS);

        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + OPERATIONS + " pickTx calls");
        assertTrue(m.result() > 0);
        for (final SelectionRule r : SelectionRule.values())
        {
            assertTrue(ruleCounts[r.ordinal()] > 0, "rule " + r.label() + " never chosen");
        }
    }
}
