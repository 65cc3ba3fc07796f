package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.NicFault;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RunToken;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct path (kernel-semantics §4.4a), step by step on the test thread: when a sender's packet goes to the driver
 * without entering the ring, when it must not (a frame of the qdisc's still in a ring or the backlog), and what
 * happens to staged frames the driver refuses or a stop finds.
 */
@Timeout(30)
class QdiscDirectPathTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;

    private static QdiscEngineSupport idleRig()
    {
        final PipelineConfig config = QdiscEngineSupport.config(LOOP, 64, 64, 1000, OverflowPolicy.BACKPRESSURE)
            .toBuilder().qdiscSenderBypass(true).build();
        final QdiscEngineSupport rig = QdiscEngineSupport.idleActor(LOOP, config);
        rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
        return rig;
    }

    private static void drain(final QdiscEngineSupport rig, final int packets, final UdpSocketImpl socket)
    {
        Await.until(packets + " packets received and completed", () ->
        {
            rig.txq.poll();
            rig.drainReceiver();
            return rig.received.size() >= packets && 0 == socket.inFlight();
        }, rig::toString);
    }

    private static void assertBooksBalance(final QdiscEngineSupport rig, final long taken)
    {
        final QueueBooks books = rig.qdisc.books(rig.txq);
        assertTrue(books.balances(), books.toString());
        assertEquals(taken, books.taken(), "taken from the rings or handed over directly");
        assertEquals(RunToken.FREE, rig.qdisc.token().state(), "the token is free");
    }

    /**
     * The ordering rule of §4.4a: a socket's frame in the ring, not yet taken by the qdisc, with the actor idle, the
     * queue awake and the token free (a run of {@code sendMore} left it there while the queue was stopped, and the
     * queue woke without a turn since): the socket's next packets must go into the ring behind it, not directly to
     * the driver ahead of it.
     */
    @Test
    void aFrameStillInTheRingSendsTheNextPacketsThroughTheRing_4_4a()
    {
        try (QdiscEngineSupport rig = idleRig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            assertTrue(rig.sendMore(socket, 0) > 0);
            rig.state.wakeQueue();
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state(), "the actor is idle");
            assertEquals(RunToken.FREE, rig.qdisc.token().state(), "the token is free");

            assertTrue(rig.sendMore(socket, 1) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_DIRECT), "the ring holds the socket's frame 0: not direct");
            assertTrue(rig.send(socket, 2) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_DIRECT), "still not direct");
            assertEquals(1, rig.counter(CounterType.QDISC_SENDER_RUNS), "the run's end ran a turn for the ring");
            assertEquals(3, rig.counter(CounterType.QDISC_RING_TAKEN));

            assertTrue(rig.send(socket, 3) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "the ring is empty again: direct");
            drain(rig, 4, socket);
            assertEquals(List.of(0L, 1L, 2L, 3L), rig.received, "in the socket's order");
            assertBooksBalance(rig, 4);
        }
    }

    /**
     * The streak of §4.4a: a socket whose latest packet was staged, and none of whose packets went into a ring since,
     * does not read the band rings' positions. Another socket's frame left in a ring (its run of {@code sendMore},
     * committed while the token was held) no longer sends the streak's next packet through the ring: that frame is
     * another socket's, so each socket's order holds. Before the streak, the rings' positions were read for every
     * packet, and the frame in the ring sent this socket's packet 1 there too.
     */
    @Test
    void anotherSocketsFrameInTheRingDoesNotEndADirectStreak_4_4a()
    {
        try (QdiscEngineSupport rig = idleRig())
        {
            final UdpSocketImpl streaking = rig.openSocket(0);
            final UdpSocketImpl other = rig.openSocket(0);
            assertTrue(rig.sendMore(streaking, 0) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "the qdisc was empty: direct");

            assertTrue(rig.qdisc.token().tryAcquireQuietly(), "the test holds the token");
            assertTrue(rig.sendMore(other, 100) > 0);
            assertTrue(rig.sendMore(other, 101) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "the token held: the other socket's into the ring");
            assertEquals(false, rig.qdisc.token().release(), "nobody marked the token");

            assertTrue(rig.sendMore(streaking, 1) > 0);
            assertTrue(rig.send(streaking, 2) > 0);
            assertEquals(3, rig.counter(CounterType.QDISC_DIRECT), "the streak goes on past the other socket's frames");
            assertTrue(rig.send(other, 102) > 0);
            assertEquals(3, rig.counter(CounterType.QDISC_RING_TAKEN), "the other socket's run, from the ring");
            drain(rig, 6, streaking);
            Await.until("the other socket's packets completed", () -> 0 == other.inFlight(), rig::toString);
            assertEquals(List.of(0L, 1L, 2L, 100L, 101L, 102L), rig.received, "each socket in its own order");
            assertBooksBalance(rig, 6);
        }
    }

    /**
     * The streak ends with the socket's first packet that goes into a ring (the token was held): the next one reads
     * the rings again, finds that packet there and follows it into the ring instead of overtaking it.
     */
    @Test
    void aSocketsOwnFrameInTheRingEndsItsStreak_4_4a()
    {
        try (QdiscEngineSupport rig = idleRig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            assertTrue(rig.sendMore(socket, 0) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "the qdisc was empty: direct");

            assertTrue(rig.qdisc.token().tryAcquireQuietly(), "the test holds the token");
            assertTrue(rig.sendMore(socket, 1) > 0);
            assertEquals(false, rig.qdisc.token().release(), "nobody marked the token");

            assertTrue(rig.sendMore(socket, 2) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "its frame 1 is in the ring: not direct");
            assertTrue(rig.send(socket, 3) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "still not direct");
            drain(rig, 4, socket);
            assertEquals(List.of(0L, 1L, 2L, 3L), rig.received, "in the socket's order");
            assertBooksBalance(rig, 4);
        }
    }

    /**
     * §4.4a, §4.6: the driver takes half of a staged burst; the rest is requeued at the head of the backlog and the
     * queue stops, exactly as for a burst from the ring. The socket's next packet then finds a backlog and goes into
     * the ring behind it, even once the queue is awake again.
     */
    @Test
    void aStagedBurstTheDriverRefusesIsRequeuedAndStopsTheQueue_4_4a_4_6()
    {
        try (QdiscEngineSupport rig = idleRig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.driver.fault(NicFault.TX_BUSY_EVERY, 0, 1);
            rig.sendMoreRun(socket, 3);
            assertTrue(rig.send(socket, 3) > 0);
            assertEquals(4, rig.counter(CounterType.QDISC_DIRECT));
            assertEquals(2, rig.counter(CounterType.QDISC_PACKETS), "the busy driver took the first half");
            assertEquals(2, rig.counter(CounterType.QDISC_REQUEUES), "the rest requeued");
            assertEquals(1, rig.counter(CounterType.TXQ_STOPS));
            assertTrue(rig.state.frozenOrStopped(), "the queue is stopped");
            assertEquals(2, rig.qdisc.backlog());
            assertEquals(1, rig.wakes.get(), "the actor is rung for the backlog");
            assertEquals(0, rig.actorCycle.onPoll(), "nothing leaves a stopped queue");
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state());
            rig.driver.fault(NicFault.TX_BUSY_EVERY, 0, 0);

            rig.state.wakeQueue();
            assertTrue(rig.send(socket, 4) > 0);
            assertEquals(4, rig.counter(CounterType.QDISC_DIRECT), "a backlog: not direct");
            assertEquals(1, rig.counter(CounterType.QDISC_SENDER_RUNS), "the send's turn sent the backlog, then it");
            drain(rig, 5, socket);
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L), rig.received, "the requeued first, then the next");
            assertBooksBalance(rig, 5);
        }
    }

    /** A graceful stop finds frames staged by an unfinished run: each is dropped under a reason and released. */
    @Test
    void aStopDropsStagedFramesAndCountsThem()
    {
        try (QdiscEngineSupport rig = idleRig())
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.sendMoreRun(socket, 3);
            assertEquals(3, rig.qdisc.backlog(), "staged");
            assertEquals(3, rig.qdisc.dropLeftovers());
            assertEquals(3, rig.counter(CounterType.QDISC_DROP_SHUTDOWN));
            assertEquals(0, socket.inFlight(), "released from the socket");
            assertEquals(0, rig.qdisc.backlog());
            assertBooksBalance(rig, 3);
        }
    }
}
