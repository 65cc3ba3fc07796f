package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.NicFault;
import io.xmit.transport.ring.RunToken;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TX completions reaped in the sender's context (kernel-semantics §7.7), step by step on the test thread: a sender
 * whose direct burst the device completed at once reaps it itself and rings nobody; one that finds the channel held
 * leaves a MISSED mark for the holder; one whose packets are still in the driver rings the completion actor.
 */
@Timeout(30)
class SenderReapTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=0";
    private static final int BIG_LIMIT = 1 << 20;

    private static QdiscEngineSupport reapingRig(final String device)
    {
        final PipelineConfig config = QdiscEngineSupport.config(device, 64, 64, 1000, OverflowPolicy.BACKPRESSURE)
            .toBuilder().qdiscSenderBypass(true).build();
        final QdiscEngineSupport rig = QdiscEngineSupport.idleActor(device, config);
        rig.bqlLimits(BIG_LIMIT, BIG_LIMIT);
        rig.reapInSenders();
        return rig;
    }

    private static void assertBooksExact(final QdiscEngineSupport rig, final long packets)
    {
        final QueueBooks books = rig.qdisc.books(rig.txq);
        assertTrue(books.balances(), books.toString());
        assertEquals(packets, books.taken(), "taken");
        assertEquals(packets, books.sent(), "sent");
        assertEquals(packets, books.completed(), "completed");
        assertEquals(0, books.inDriver(), "none left in the driver");
        assertEquals(RunToken.FREE, rig.qdisc.token().state(), "the qdisc's token is free");
        assertEquals(RunToken.FREE, rig.channel.token().state(), "the channel's token is free");
    }

    /**
     * A run of four on {@code loop}, which completes a burst as it takes it: the run's last send hands the staged
     * frames to the driver and reaps them on the test thread (BQL, the socket's in-flight count, the books), and the
     * completion actor is never rung. Before §7.7 the burst rang the completion actor and nothing was completed until
     * it ran.
     */
    @Test
    void aDirectBurstOnAFreeChannelIsCompletedOnTheSendersThreadAndRingsNobody_7_7()
    {
        try (QdiscEngineSupport rig = reapingRig(LOOP))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.sendMoreRun(socket, 3);
            assertTrue(rig.send(socket, 3) > 0);
            assertEquals(4, rig.counter(CounterType.QDISC_DIRECT), "the run went direct");
            assertEquals(1, rig.counter(CounterType.QDISC_BULKS), "one tx_burst");

            assertEquals(4, rig.txq.completedPackets(), "completed by the sender");
            assertEquals(4, rig.counter(CounterType.TXQ_COMPLETED_PACKETS));
            assertEquals(0, socket.inFlight(), "the socket's in-flight released");
            assertEquals(0, rig.bql.dql().inflight(), "BQL told");
            assertEquals(1, rig.counter(CounterType.TXQ_SENDER_REAPS), "one reap, after the one burst");
            assertEquals(0, rig.completionWakes.get(), "the completion actor was not rung");
            assertEquals(0, rig.wakes.get(), "nor the qdisc's");
            assertBooksExact(rig, 4);
        }
    }

    /**
     * The channel held by another runner (its actor, or a busy poller) when the sender's burst completes: the sender
     * reaps nothing and rings nobody, but leaves a MISSED mark; the holder's release finds it (and rings both owners,
     * §9.5), and the completion actor's poll completes the burst. Nothing is stranded.
     */
    @Test
    void aHeldChannelIsMarkedMissedAndItsHolderCompletesTheBurst_7_7_9_5()
    {
        try (QdiscEngineSupport rig = reapingRig(LOOP))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            assertTrue(rig.channel.token().tryAcquire(), "another runner holds the channel");

            assertTrue(rig.sendMore(socket, 0) > 0);
            assertTrue(rig.send(socket, 1) > 0);
            assertEquals(2, rig.counter(CounterType.QDISC_DIRECT));
            assertEquals(0, rig.txq.completedPackets(), "the sender could not reap");
            assertEquals(2, socket.inFlight());
            assertEquals(RunToken.HELD_MISSED, rig.channel.token().state(), "the sender left its mark");
            assertEquals(0, rig.completionWakes.get(), "and rang nobody");
            assertEquals(0, rig.counter(CounterType.TXQ_SENDER_REAPS));

            assertTrue(rig.channel.token().release(), "the holder sees the mark and has the owners rung");
            assertEquals(2, rig.channel.pollCompletions(), "the completion actor completes the burst");
            assertEquals(0, socket.inFlight());
            assertEquals(0, rig.bql.dql().inflight());
            assertBooksExact(rig, 2);
        }
    }

    /**
     * A device that completes later (a stalled {@code loop} queue takes a burst and completes nothing until it is
     * released): the sender reaps what is done, none here, and rings the completion actor for what is still in the
     * driver, the delayed callback of §7.7, which completes it once the device has.
     */
    @Test
    void packetsStillInTheDriverRingTheCompletionActor_7_7()
    {
        try (QdiscEngineSupport rig = reapingRig(LOOP))
        {
            final UdpSocketImpl socket = rig.openSocket(0);
            rig.driver.fault(NicFault.TX_STALL, 0, 1);
            rig.sendMoreRun(socket, 7);
            assertTrue(rig.send(socket, 7) > 0);
            assertEquals(8, rig.counter(CounterType.QDISC_DIRECT));
            assertEquals(8, rig.txq.inDriver(), "the stalled device holds the burst");
            assertEquals(1, rig.counter(CounterType.TXQ_SENDER_REAPS), "the sender reaped");
            assertEquals(0, rig.txq.completedPackets(), "nothing");
            assertEquals(1, rig.completionWakes.get(), "and rang the completion actor for the rest");

            rig.driver.fault(NicFault.TX_STALL, 0, 0);

            Await.until("the completion actor to complete the burst", () ->
            {
                rig.channel.pollCompletions();
                return 0 == socket.inFlight();
            }, rig::toString);
            assertEquals(8, rig.txq.completedPackets());
            assertBooksExact(rig, 8);
        }
    }
}
