package io.xmit.pipeline.xps;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SocketQueueStateTest
{
    @Test
    void startsUnconnectedWithNoQueuesAndNothingInFlight()
    {
        final SocketQueueState sk = new SocketQueueState();
        assertFalse(sk.connected());
        assertEquals(-1, sk.txQueue());
        assertEquals(-1, sk.rxQueue());
        assertEquals(0, sk.inFlight());
        assertTrue(sk.oooOkay());
    }

    @Test
    void txQueueSetRefusesNoQueueMappingAndAbove()
    {
        // kernel-semantics §1.3: set refuses values >= 0xFFFF.
        final SocketQueueState sk = new SocketQueueState();
        assertTrue(sk.setTxQueue(0xFFFE));
        assertEquals(0xFFFE, sk.txQueue());
        assertFalse(sk.setTxQueue(0xFFFF));
        assertFalse(sk.setTxQueue(0x10000));
        assertFalse(sk.setTxQueue(-1));
        assertEquals(0xFFFE, sk.txQueue());
    }

    @Test
    void dstChangesClearTheCachedTxQueue()
    {
        // §1.4: cleared on every dst change.
        final SocketQueueState sk = new SocketQueueState();
        sk.connect();
        sk.setTxQueue(3);
        sk.connect();
        assertEquals(-1, sk.txQueue());
        sk.setTxQueue(3);
        sk.disconnect();
        assertEquals(-1, sk.txQueue());
        sk.setTxQueue(3);
        sk.clearTxQueue();
        assertEquals(-1, sk.txQueue());
    }

    @Test
    void cachedQueueReadsAsNoneOnlyOnceStrictlyOlderThanTheReselectionPeriod()
    {
        // §1.6: sk_tx_queue_get answers -1 when now > setAt + txq_reselection (time_is_before_jiffies).
        final long[] now = {1_000};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], 500);
        sk.setTxQueue(2);
        now[0] = 1_500;
        assertEquals(2, sk.txQueueGet());
        now[0] = 1_501;
        assertEquals(-1, sk.txQueueGet());
        assertEquals(2, sk.txQueue());
    }

    @Test
    void aNewQueueIsStampedAndTheSameQueueIsRefreshedOnlyPastOneSecond()
    {
        // §1.6: sk_tx_queue_set stamps a changed value; an unchanged one only when its stamp is older than HZ.
        final long second = SocketQueueState.REFRESH_NANOS;
        final long[] now = {0};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], 2 * second);
        sk.setTxQueue(1);
        now[0] = second;
        sk.setTxQueue(1);
        now[0] = 2 * second + 1;
        assertEquals(-1, sk.txQueueGet(), "refreshed at exactly 1 s, which is not older than HZ");

        sk.setTxQueue(1);
        now[0] = 4 * second + 1;
        assertEquals(1, sk.txQueueGet(), "refreshed at 2 s + 1 ns");
        sk.setTxQueue(3);
        now[0] = 6 * second + 1;
        assertEquals(3, sk.txQueueGet(), "a changed value is stamped whatever the age");
        now[0]++;
        assertEquals(-1, sk.txQueueGet());
    }

    @Test
    void aQueueSetAfterAClearIsStampedAnew()
    {
        final long[] now = {0};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], 100);
        sk.setTxQueue(2);
        now[0] = 150;
        sk.clearTxQueue();
        assertEquals(-1, sk.txQueueGet());
        sk.setTxQueue(2);
        now[0] = 250;
        assertEquals(2, sk.txQueueGet());
    }

    @Test
    void withoutAReselectionPeriodTheCachedQueueNeverAgesAndTheClockIsNotRead()
    {
        final SocketQueueState sk = new SocketQueueState(() ->
        {
            throw new AssertionError("clock read");
        }, SocketQueueState.NEVER_RESELECT);
        sk.setTxQueue(2);
        sk.setTxQueue(2);
        assertEquals(2, sk.txQueueGet());
    }

    @Test
    void refusesANegativePeriodOrNoClock()
    {
        assertEquals("TX queue reselection period -1 ns is negative; 0 means never",
            assertThrows(IllegalArgumentException.class, () -> new SocketQueueState(() -> 0, -1)).getMessage());
        assertEquals("clock must not be null",
            assertThrows(IllegalArgumentException.class, () -> new SocketQueueState(null, 0)).getMessage());
    }

    @Test
    void unconnectedSocketNeverRecordsRxQueue()
    {
        // §2.4: unconnected UDP never records it.
        final SocketQueueState sk = new SocketQueueState();
        sk.recordRxQueue(2);
        assertEquals(-1, sk.rxQueue());
    }

    @Test
    void connectedSocketRecordsRxQueueWhenPacketHasOne()
    {
        // §2.4 sk_mark_napi_id: writes only if it differs; a packet without a recorded queue changes nothing.
        final SocketQueueState sk = new SocketQueueState();
        sk.connect();
        sk.recordRxQueue(2);
        assertEquals(2, sk.rxQueue());
        sk.recordRxQueue(-1);
        assertEquals(2, sk.rxQueue());
        sk.recordRxQueue(5);
        assertEquals(5, sk.rxQueue());
    }

    @Test
    void disconnectKeepsRecordedRxQueue()
    {
        final SocketQueueState sk = new SocketQueueState();
        sk.connect();
        sk.recordRxQueue(1);
        sk.disconnect();
        assertEquals(1, sk.rxQueue());
        sk.recordRxQueue(4);
        assertEquals(1, sk.rxQueue());
    }

    @Test
    void oooOkayOnlyWhenNothingInFlight()
    {
        // §1.5 (6.19+, non-TCP): ooo_okay = nothing of the socket's still queued.
        final SocketQueueState sk = new SocketQueueState();
        assertEquals(1, sk.packetSent());
        assertFalse(sk.oooOkay());
        assertEquals(2, sk.packetSent());
        assertEquals(1, sk.packetCompleted());
        assertFalse(sk.oooOkay());
        assertEquals(0, sk.packetCompleted());
        assertTrue(sk.oooOkay());
    }

    @Test
    void completionsFromAnotherThreadBalanceSends() throws InterruptedException
    {
        final SocketQueueState sk = new SocketQueueState();
        final int packets = 200_000;
        for (int i = 0; i < packets; i++)
        {
            sk.packetSent();
        }
        final Thread completer = new Thread(() ->
        {
            for (int i = 0; i < packets; i++)
            {
                sk.packetCompleted();
            }
        });
        completer.start();
        for (int i = 0; i < packets; i++)
        {
            sk.packetSent();
        }
        completer.join();
        assertEquals(packets, sk.inFlight());
    }

    @Test
    void aRunOfCompletionsReleasesItsPacketsAtOnce()
    {
        final SocketQueueState sk = new SocketQueueState();
        for (int i = 0; i < 5; i++)
        {
            sk.packetSent();
        }
        assertEquals(2, sk.packetsCompleted(3));
        assertFalse(sk.oooOkay());
        assertEquals(0, sk.packetsCompleted(2));
        assertTrue(sk.oooOkay(), "§1.5: nothing in flight any more");
    }
}
