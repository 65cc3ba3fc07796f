package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RunToken;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The qdisc's run token and the bypass in the sender's context (kernel-semantics §4.4, §5.2, §5.5), step by step on
 * the test thread and one sender thread held inside its turn: who runs the qdisc, who rings its doorbell, and that
 * every frame leaves once. The rig's doorbell counts the Polls the actor would get ({@code wakes}); the test delivers
 * them through the actor's duty cycle.
 */
@Timeout(30)
class QdiscSenderBypassTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;

    private static QdiscEngineSupport idleRig(final boolean senderBypass, final int quota)
    {
        final PipelineConfig config = QdiscEngineSupport.config(LOOP, quota, 64, 1000, OverflowPolicy.BACKPRESSURE)
            .toBuilder().qdiscSenderBypass(senderBypass).build();
        final QdiscEngineSupport rig = QdiscEngineSupport.idleActor(LOOP, config);
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

    /** Completions and the receiver, until {@code packets} arrived and the sockets have nothing in flight. */
    private static void drain(final QdiscEngineSupport rig, final int packets, final UdpSocketImpl... sockets)
    {
        Await.until(packets + " packets received and completed", () ->
        {
            rig.txq.poll();
            rig.drainReceiver();
            long inFlight = 0;
            for (final UdpSocketImpl socket : sockets)
            {
                inFlight += socket.inFlight();
            }
            return rig.received.size() >= packets && 0 == inFlight;
        }, rig::toString);
    }

    private static void assertBooksBalance(final QdiscEngineSupport rig, final long sent)
    {
        final QueueBooks books = rig.qdisc.books(rig.txq);
        assertTrue(books.balances(), books.toString());
        assertEquals(sent, books.taken(), "taken from the rings or handed over directly");
        assertEquals(sent, books.sent(), "sent to the driver");
        assertEquals(RunToken.FREE, rig.qdisc.token().state(), "the token is free");
    }

    /**
     * §4.4a: an idle, empty qdisc, an awake queue, the token won: the sender's packet goes to the driver on its
     * thread without entering the ring (the direct path), and the actor is not woken.
     */
    @Test
    void anIdleEmptyQdiscTakesTheSendersPacketDirectlyAndTheActorIsNotWoken_4_4a()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            for (int i = 0; i < 3; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
                assertEquals(i + 1, rig.counter(CounterType.QDISC_PACKETS), "sent before the send returned");
            }
            assertEquals(3, rig.counter(CounterType.QDISC_DIRECT), "each handed to the qdisc directly");
            assertEquals(0, rig.counter(CounterType.QDISC_RING_TAKEN), "none through the ring");
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS), "no turn: nothing to read from a ring");
            assertEquals(3, rig.counter(CounterType.QDISC_BYPASSED), "none enqueued");
            assertEquals(3, rig.counter(CounterType.QDISC_BULKS), "a tx_burst per send: no run of sendMore");
            assertEquals(0, rig.wakes.get(), "the actor was never woken");
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state());
            drain(rig, 3, socket);
            assertEquals(range(0, 3), rig.received);
            assertBooksBalance(rig, 3);
        }
    }

    /** qdisc.sender-bypass = off: the sender rings the idle actor, which sends in its own turn. */
    @Test
    void withTheSenderBypassOffTheSenderWakesTheActor()
    {
        try (QdiscEngineSupport rig = idleRig(false, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            assertTrue(rig.send(socket, 0) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_PACKETS), "nothing sent by the sender");
            assertEquals(1, rig.wakes.get(), "the actor's Poll");
            assertEquals(1, rig.actorCycle.onPoll());
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS));
            drain(rig, 1, socket);
            assertEquals(range(0, 1), rig.received);
            assertBooksBalance(rig, 1);
        }
    }

    /** A sender that finds the actor scheduled or running rings (a no-op then) and leaves the turn to it. */
    @Test
    void aSenderThatFindsTheActorScheduledOrRunningLeavesTheTurnToIt()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.doorbell.ring();
            assertEquals(RingDoorbell.SCHEDULED, rig.doorbell.state(), "the actor's Poll is on its way");
            assertTrue(rig.send(socket, 0) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS), "scheduled: no turn in the sender");
            assertEquals(1, rig.actorCycle.onPoll(), "the actor sends it");
            assertEquals(RingDoorbell.RUNNING, rig.doorbell.state(), "it found work, so it polls again");
            assertTrue(rig.send(socket, 1) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS), "running: no turn in the sender");
            assertEquals(1, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(1, rig.actorCycle.onPoll(), "the actor's next Poll sends it");
            assertEquals(3, rig.wakes.get(), "the test's, and the next Poll after each of the actor's turns");
            drain(rig, 2, socket);
            assertEquals(range(0, 2), rig.received);
            assertBooksBalance(rig, 2);
        }
    }

    /**
     * §5.2, §5.5, two senders racing and the actor's Poll in between: sender A holds the token inside its direct send
     * (after its {@code tx_burst}); sender B finds the token held, so its packet goes into the ring, and its commit
     * loses the token too (it marks MISSED and leaves, without ringing); the actor's Poll finds the token held and
     * does nothing; A's release, seeing MISSED, rings the doorbell, so the actor runs again and sends B's frame.
     * Nothing is sent twice.
     */
    @Test
    void aSenderHoldingTheTokenLeavesTheActorNothingAndItsReleaseRings_5_2_5_5() throws InterruptedException
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl a = rig.openSocket(0);
            final UdpSocketImpl b = rig.openSocket(0);
            final HeldTurn held = HeldTurn.install(rig);
            final Thread senderA = held.start(() -> rig.send(a, 0));
            Await.until("sender A inside its direct send", held.inside::get, rig::toString);
            assertEquals(RunToken.HELD, rig.qdisc.token().state(), "A holds the token");
            assertEquals(1, rig.counter(CounterType.QDISC_PACKETS), "A's packet is in the driver");

            assertTrue(rig.send(b, 1) > 0, "B's packet is queued: its send succeeds");
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "B's went into the ring, not directly");
            assertEquals(RunToken.HELD_MISSED, rig.qdisc.token().state(), "B lost and marked MISSED");
            assertEquals(0, rig.wakes.get(), "B did not ring: A's release will");
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS), "B ran no turn");

            rig.doorbell.ring();
            assertEquals(1, rig.wakes.get(), "a Poll for the actor");
            assertEquals(0, rig.actorCycle.onPoll(), "the actor's turn finds the token held and does nothing");
            assertEquals(1, rig.counter(CounterType.QDISC_PACKETS), "the actor sent nothing");
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state(), "the actor went idle");

            held.resume.set(true);
            senderA.join();
            assertNull(held.failure.get());
            assertEquals(2, rig.wakes.get(), "A's release found MISSED and rang");
            assertEquals(RingDoorbell.SCHEDULED, rig.doorbell.state());
            assertEquals(1, rig.actorCycle.onPoll(), "the actor runs again and sends B's frame");
            assertEquals(2, rig.counter(CounterType.QDISC_PACKETS));
            drain(rig, 2, a, b);
            assertEquals(range(0, 2), rig.received);
            assertBooksBalance(rig, 2);
        }
    }

    /**
     * §4.8: a sender's turn ends at the quota like the actor's, and work left (here a backlog) is the actor's: the
     * sender rings the idle actor without any MISSED mark, and the actor sends the rest.
     */
    @Test
    void aSenderThatLeavesWorkBehindRingsTheActor_4_8()
    {
        try (QdiscEngineSupport rig = idleRig(true, 1))
        {
            final UdpSocketImpl a = rig.openSocket(0);
            final UdpSocketImpl b = rig.openSocket(0);
            rig.state.stopQueue();
            assertTrue(rig.send(b, 1) > 0);
            assertTrue(rig.send(b, 2) > 0);
            assertEquals(1, rig.actorCycle.onPoll());
            assertEquals(1, rig.actorCycle.onPoll());
            assertEquals(0, rig.actorCycle.onPoll());
            assertEquals(2, rig.qdisc.backlog(), "B's two wait in the backlog of the stopped queue");
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state());
            rig.state.wakeQueue();
            final long wakes = rig.wakes.get();

            assertTrue(rig.send(a, 0) > 0);
            assertEquals(1, rig.counter(CounterType.QDISC_SENDER_RUNS), "A ran a turn");
            assertEquals(1, rig.counter(CounterType.QDISC_PACKETS), "one packet: the quota");
            assertEquals(RunToken.FREE, rig.qdisc.token().state(), "no MISSED mark");
            assertEquals(wakes + 1, rig.wakes.get(), "A rang for the rest");
            assertEquals(1, rig.actorCycle.onPoll());
            assertEquals(1, rig.actorCycle.onPoll());
            assertEquals(0, rig.actorCycle.onPoll());
            drain(rig, 3, a, b);
            assertEquals(List.of(1L, 2L, 0L), rig.received, "the backlog first, then A's");
            assertBooksBalance(rig, 3);
        }
    }

    /**
     * §6.4 (xmit_more), §4.4a: a run of sends with more to follow on an idle, empty qdisc stages its frames; its last
     * send hands them to the driver in one {@code tx_burst}, and wakes nobody.
     */
    @Test
    void aRunOfSendsWithMoreReachesTheDriverInOneBurst_6_4()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.sendMoreRun(socket, 9);
            assertEquals(0, rig.counter(CounterType.QDISC_PACKETS), "the run waits in the staging");
            assertEquals(9, rig.qdisc.backlog(), "staged: the head of the qdisc");
            assertEquals(0, rig.wakes.get(), "nobody woken yet");
            assertTrue(rig.send(socket, 9) > 0);
            assertEquals(10, rig.counter(CounterType.QDISC_DIRECT), "the whole run, directly");
            assertEquals(1, rig.counter(CounterType.QDISC_BULKS), "one tx_burst");
            assertEquals(10, rig.counter(CounterType.QDISC_PACKETS));
            assertEquals(0, rig.wakes.get());
            drain(rig, 10, socket);
            assertEquals(range(0, 10), rig.received);
            assertBooksBalance(rig, 10);
        }
    }

    /** With the sender bypass off, a run wakes the actor once, at its end, and the actor sends it in one burst. */
    @Test
    void aRunOfSendsWithMoreWakesTheActorOnceAtItsEnd_6_4()
    {
        try (QdiscEngineSupport rig = idleRig(false, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.sendMoreRun(socket, 4);
            assertEquals(0, rig.wakes.get(), "nobody woken within the run");
            assertTrue(rig.send(socket, 4) > 0);
            assertEquals(1, rig.wakes.get(), "one wake-up for the run");
            assertEquals(5, rig.actorCycle.onPoll());
            assertEquals(1, rig.counter(CounterType.QDISC_BULKS), "one tx_burst");
            drain(rig, 5, socket);
            assertEquals(range(0, 5), rig.received);
            assertBooksBalance(rig, 5);
        }
    }

    /** A refused send ends a run: its frames are not left waiting for a send that may not come. */
    @Test
    void aRefusedSendEndsTheRun()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.sendMoreRun(socket, 3);
            assertEquals(SendResult.TOO_LONG, socket.send(new UnsafeBuffer(new byte[4096]), 0, 4096));
            assertEquals(1, rig.counter(CounterType.QDISC_SENDER_RUNS), "the run ended at the refusal");
            assertEquals(3, rig.counter(CounterType.QDISC_PACKETS));
            drain(rig, 3, socket);
            assertEquals(range(0, 3), rig.received);
            assertBooksBalance(rig, 3);
        }
    }

    /** A stopped TX queue is no bypass: the sender rings the actor, which keeps the frame in the backlog. */
    @Test
    void aStoppedQueueSendsTheSenderToTheActor_4_4()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.state.stopQueue();
            assertTrue(rig.send(socket, 0) > 0);
            assertEquals(0, rig.counter(CounterType.QDISC_SENDER_RUNS));
            assertEquals(1, rig.wakes.get());
            assertEquals(1, rig.actorCycle.onPoll(), "taken into the backlog");
            assertEquals(1, rig.qdisc.backlog());
            rig.state.wakeQueue();
            assertEquals(1, rig.actorCycle.onPoll(), "sent once the queue is awake");
            drain(rig, 1, socket);
            assertEquals(range(0, 1), rig.received);
            assertBooksBalance(rig, 1);
        }
    }

    /**
     * A direct send (a turn in the sender's context) fails after its {@code tx_burst}, before booking it: the sender
     * recovers under the token (the burst is booked, nothing resent), counts a restart of the qdisc stage, releases
     * and rings; its send's result stands. Every packet leaves once, in order.
     */
    @Test
    void aCrashInTheSendersTurnLosesAndDuplicatesNothing()
    {
        try (QdiscEngineSupport rig = idleRig(true, 64))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.doorbell.ring();
            for (int i = 0; i < 5; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            assertEquals(5, rig.actorCycle.onPoll(), "the actor's burst of five");
            assertEquals(0, rig.actorCycle.onPoll());
            assertEquals(RingDoorbell.IDLE, rig.doorbell.state());
            final long wakes = rig.wakes.get();

            rig.qdisc.armCrash(1);
            assertTrue(rig.send(socket, 5) > 0, "the send succeeds: its packet was queued before the turn failed");
            assertEquals(1, rig.counter(CounterType.QDISC_DIRECT), "sent on the direct path");
            assertEquals(1, rig.counters.value(CounterType.STAGE_RESTARTS,
                QdiscEngineSupport.SCOPE.withStage(CounterScope.Stage.QDISC)), "a restart of the qdisc stage");
            assertEquals(6, rig.counter(CounterType.QDISC_PACKETS), "the failed turn's burst, booked by recover()");
            assertEquals(RunToken.FREE, rig.qdisc.token().state(), "released after the recovery");
            assertEquals(wakes + 1, rig.wakes.get(), "the actor is rung to take over");

            assertEquals(0, rig.actorCycle.onPoll(), "nothing left: the burst is not sent again");
            for (int i = 6; i < 9; i++)
            {
                assertTrue(rig.send(socket, i) > 0);
            }
            assertEquals(4, rig.counter(CounterType.QDISC_DIRECT), "later sends take the direct path again");
            drain(rig, 9, socket);
            assertEquals(range(0, 9), rig.received, "once each, in order");
            assertBooksBalance(rig, 9);
        }
    }

    /**
     * Holds the first turn a given thread runs inside the qdisc (where it asks the TX queue to look for room, after
     * its first {@code tx_burst}), with the run token held, until the test lets it go on.
     */
    private static final class HeldTurn
    {
        final AtomicBoolean inside = new AtomicBoolean();
        final AtomicBoolean resume = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final QdiscEngineSupport rig;
        private volatile Thread sender;

        private HeldTurn(final QdiscEngineSupport rig)
        {
            this.rig = rig;
        }

        static HeldTurn install(final QdiscEngineSupport rig)
        {
            final HeldTurn held = new HeldTurn(rig);
            rig.onWakeTxQueue = held::onWake;
            return held;
        }

        Thread start(final Runnable send)
        {
            final Thread thread = new Thread(() ->
            {
                try
                {
                    send.run();
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            }, "sender-a");
            sender = thread;
            thread.start();
            return thread;
        }

        private void onWake()
        {
            if (Thread.currentThread() == sender && !inside.get())
            {
                inside.set(true);
                Await.until("the test to let sender A go on", resume::get, rig::toString);
            }
        }
    }
}
