package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each crash point of the qdisc engine, hit deterministically on the test thread (no actors, no timing): the turn
 * fails there, {@link QdiscEngine#recover()} runs as a supervisor restart would run it, and the next turns send every
 * packet once, in order, with the books exact.
 */
@Timeout(30)
class QdiscCrashRecoveryTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;
    private static final int PACKETS = 10;

    private static QdiscEngineSupport rig()
    {
        final QdiscEngineSupport rig = new QdiscEngineSupport(LOOP,
            QdiscEngineSupport.config(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE));
        rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
        return rig;
    }

    private static List<Long> range(final long from, final long to)
    {
        final List<Long> values = new ArrayList<>();
        for (long i = from; i < to; i++)
        {
            values.add(i);
        }
        return values;
    }

    private static void sendAll(final QdiscEngineSupport rig, final UdpSocketImpl socket)
    {
        for (int i = 0; i < PACKETS; i++)
        {
            assertTrue(rig.send(socket, i) > 0);
        }
    }

    private static void crashOnNextPoll(final QdiscEngineSupport rig, final int point, final String where)
    {
        rig.qdisc.armCrash(point);
        final CrashSwitch.InjectedCrash crash = assertThrows(CrashSwitch.InjectedCrash.class, rig.qdisc::poll);
        assertTrue(crash.getMessage().endsWith(where), crash.getMessage());
        rig.qdisc.recover();
    }

    /** After the recovery: every packet leaves once, in order, and the books close. */
    private static void assertAllSentOnceInOrder(final QdiscEngineSupport rig, final UdpSocketImpl socket)
    {
        rig.pumpUntil(PACKETS + " packets", () -> rig.received.size() >= PACKETS);
        rig.pumpUntil("completions", () -> 0 == socket.inFlight());
        for (int turn = 0; turn < 4; turn++)
        {
            rig.qdisc.poll();
            rig.txq.poll();
            rig.drainReceiver();
        }
        assertEquals(range(0, PACKETS), rig.received, "sent once each, in order");
        assertEquals(PACKETS, rig.counter(CounterType.QDISC_PACKETS), "qdisc_packets");
        assertEquals(PACKETS, rig.counter(CounterType.QDISC_RING_TAKEN), "qdisc_ring_taken");
        assertEquals(0, rig.qdisc.backlog(), "backlog");
        assertEquals(PACKETS, rig.receiver.stats(0).rxPackets(), "frames on the wire");
    }

    @Test
    void crashWhileTakingRingFramesIntoTheBacklogKeepsTheFramesTakenAndRereadsTheRest()
    {
        try (QdiscEngineSupport rig = rig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            sendAll(rig, socket);
            // The third ring frame's enqueue fails: the two before it are in the backlog, the rest still in the ring.
            crashOnNextPoll(rig, 3, "before taking a ring frame into the backlog");
            assertEquals(2, rig.qdisc.backlog(), "frames taken before the crash");
            assertEquals(2, rig.counter(CounterType.QDISC_RING_TAKEN), "their ring space released");
            assertEquals(2, rig.counter(CounterType.QDISC_ENQUEUED), "qdisc_enqueued");

            rig.state.wakeQueue();
            assertAllSentOnceInOrder(rig, socket);
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_ENQUEUED), "each frame enqueued once");
        }
    }

    @Test
    void crashAfterABypassTxBurstBooksTheBurstAndReleasesItsRingFrames()
    {
        try (QdiscEngineSupport rig = rig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            sendAll(rig, socket);
            // The first tx_burst (bypass: descriptors point into the ring) is in the driver, not yet booked.
            crashOnNextPoll(rig, 1, "after tx_burst, before booking its result");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_PACKETS), "the burst booked by the recovery");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_BYPASSED), "qdisc_bypassed");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_RING_TAKEN), "its ring frames released");
            assertEquals(0, rig.qdisc.backlog(), "nothing requeued");
            assertAllSentOnceInOrder(rig, socket);
        }
    }

    @Test
    void crashAfterABacklogTxBurstBooksTheBurstAndDoesNotSendItAgain()
    {
        try (QdiscEngineSupport rig = rig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            sendAll(rig, socket);
            rig.qdisc.poll();
            assertEquals(PACKETS, rig.qdisc.backlog(), "all in the backlog while the queue is stopped");
            rig.state.wakeQueue();
            // The ring is empty, so the first crash point is after the backlog's tx_burst.
            crashOnNextPoll(rig, 1, "after tx_burst, before booking its result");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_PACKETS), "the burst booked by the recovery");
            assertEquals(0, rig.qdisc.backlog(), "the sent slots left the backlog");
            assertAllSentOnceInOrder(rig, socket);
        }
    }

    /** §4.5: a failed tx_burst consumed its packets; booked by the recovery, they are dropped once, not resent. */
    @Test
    void crashAfterAFailedTxBurstDropsItsPacketsOnce_4_5()
    {
        try (QdiscEngineSupport rig = rig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            sendAll(rig, socket);
            // Every tx_burst fails (-EIO) while the fault is on: the crash comes before that result is booked.
            rig.driver.fault(NicFault.TX_FAIL_EVERY, 0, 1);
            crashOnNextPoll(rig, 1, "after tx_burst, before booking its result");
            rig.driver.fault(NicFault.TX_FAIL_EVERY, 0, 0);
            assertEquals(0, rig.counter(CounterType.QDISC_PACKETS), "nothing sent");
            assertEquals(1, rig.counter(CounterType.TXQ_DRIVER_ERRORS), "the failed burst booked");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_DROP_DRIVER_ERROR), "its packets dropped");
            assertEquals(0, rig.counter(CounterType.QDISC_REQUEUES), "none requeued");
            assertEquals(0, rig.qdisc.backlog(), "none in the backlog");
            assertEquals(PACKETS, rig.counter(CounterType.QDISC_RING_TAKEN), "their ring frames released");
            assertEquals(0, socket.inFlight(), "released from their socket");
            for (int turn = 0; turn < 4; turn++)
            {
                assertEquals(0, rig.qdisc.poll(), "nothing left to send");
                rig.drainReceiver();
            }
            assertEquals(List.of(), rig.received, "nothing sent twice");
            assertTrue(rig.qdisc.books(rig.txq).balances(), rig.qdisc.books(rig.txq).toString());
        }
    }
}
