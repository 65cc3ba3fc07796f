package io.xmit.pipeline.xps;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
