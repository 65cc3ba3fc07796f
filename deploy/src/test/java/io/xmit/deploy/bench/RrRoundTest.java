package io.xmit.deploy.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.xmit.actors.Accounting;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.XpsPreset;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The closed loop: asked for K transactions per flow, N flows complete exactly N×K, every request answered and every
 * datagram in the books; the hops are counted where the CPUs of socket and queue differ; a variant's keys reach the
 * pipeline's configuration; a request that gets no reply costs its flow one lost transaction, not the rest of the run.
 */
class RrRoundTest
{
    private static final int FLOWS = 6;
    private static final long PER_FLOW = 200;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final long HELD = 10;
    /** Longer than any RTT of a loaded machine, so that only the held request is lost. */
    private static final long REPLY_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    @Test
    void completesExactlyFlowsTimesKTransactionsWithBalancedBooks()
    {
        final RrRound.Result result = new RrRound(variant("xps-rxqs"), FLOWS, 0, REPLY_TIMEOUT_NANOS,
            UnaryOperator.identity()).runTransactions(PER_FLOW, TIMEOUT_NANOS);

        final RrTally tally = result.tally();
        assertEquals(FLOWS * PER_FLOW, tally.transactions());
        assertEquals(FLOWS * PER_FLOW, tally.requests());
        assertEquals(0, tally.refused());
        assertEquals(FLOWS * PER_FLOW, result.rtt().getTotalCount());
        final Accounting books = result.stop().books();
        assertTrue(books.balances(), books.line());
        assertTrue(books.atRest(), books.line());
        // A request and a reply per transaction: each accepted once, sent once, delivered once.
        assertEquals(2 * FLOWS * PER_FLOW, books.accepted(), books.line());
        assertEquals(2 * FLOWS * PER_FLOW, books.transmitted(), books.line());
        assertEquals(0, books.dropped(), books.line());
        assertEquals(2 * FLOWS * PER_FLOW, books.received().stream().mapToLong(r -> r.delivered()).sum(),
            books.line());
        // Under xps-rxqs a reply leaves on the TX queue paired with its request's RX queue: never another CPU's.
        assertEquals(0, tally.crossCpu());
        assertEquals(tally.requestRxHops(), tally.replyTxHops());
        assertTrue(result.cpu().xmit() > 0, () -> "CPU share " + result.cpu().xmit());
        assertEquals(ThreadCpu.ROLES, List.copyOf(result.cpu().roles().keySet()));
    }

    @Test
    void aFlowWhoseRequestGotNoReplyTimesItOutAndGoesOnAndItsLateReplyIsNoRtt()
    {
        final RrRound.Result result = new RrRound(variant("xps-rxqs"), FLOWS, 0, REPLY_TIMEOUT_NANOS,
            RrRoundTest::holdsOneRequest)
            .runTransactions(PER_FLOW, TIMEOUT_NANOS);

        final RrTally tally = result.tally();
        assertEquals(FLOWS * PER_FLOW, tally.transactions());
        assertEquals(FLOWS, tally.lost());
        assertEquals(FLOWS, tally.late());
        assertEquals(FLOWS * (PER_FLOW + 1), tally.requests());
        assertEquals(0, tally.refused());
        assertEquals(0, result.stalled());
        assertFalse(result.complete());
        // Only answered transactions have an RTT; each held request was answered a timeout late, after the next one.
        assertEquals(FLOWS * PER_FLOW, result.rtt().getTotalCount());
        final Accounting books = result.stop().books();
        assertTrue(books.balances(), books.line());
        assertEquals(2 * FLOWS * (PER_FLOW + 1), books.accepted(), books.line());
        assertEquals(0, books.dropped(), books.line());
    }

    @Test
    void underXpsByCpuNoPacketLeavesOnAnotherCpusQueue()
    {
        final RrRound.Result result = new RrRound(variant("xps-cpus"), FLOWS, 0, REPLY_TIMEOUT_NANOS,
            UnaryOperator.identity()).runTransactions(PER_FLOW, TIMEOUT_NANOS);

        assertEquals(FLOWS * PER_FLOW, result.tally().transactions());
        assertEquals(0, result.tally().requestTxHops());
        assertEquals(0, result.tally().replyTxHops());
    }

    /**
     * Under {@code hash} each flow makes exactly the hops its placement class says, every transaction: 2 RX hops if its
     * RX queues are the other CPU's, 2 TX hops if its hash's TX queue is; shifted by one, each flow is in the next
     * class. The handlers see the queues the device and the pipeline really used.
     */
    @Test
    void eachFlowMakesTheHopsOfItsPlacementClass()
    {
        for (int shift = 0; shift < 2; shift++)
        {
            final RrRound.Result result = new RrRound(variant("hash"), RrPlacement.CLASSES.size(), shift,
                REPLY_TIMEOUT_NANOS, UnaryOperator.identity()).runTransactions(PER_FLOW, TIMEOUT_NANOS);

            assertEquals(RrPlacement.CLASSES, result.placed().stream().map(RrRound.Placed::placement).toList());
            for (final RrRound.Placed placed : result.placed())
            {
                final RrTally tally = placed.tally();
                final boolean rxNear = placed.placement().rxNear();
                final boolean hashNear = placed.placement().hashNear();
                final String what = "shift " + shift + " " + placed.placement().label() + ": " + tally;
                assertEquals(1, placed.flows(), what);
                assertEquals(PER_FLOW, tally.transactions(), what);
                assertEquals(PER_FLOW, placed.rtt().getTotalCount(), what);
                // Every request is sent, received and answered (one a reply timeout late on a loaded machine is sent
                // again, and its late reply is not counted at the client): the reply's RX hops are the transactions'.
                final long requests = tally.requests();
                assertEquals(List.of(hashNear ? 0 : requests, rxNear ? 0 : requests, hashNear ? 0 : requests,
                    rxNear ? 0 : PER_FLOW), List.of(tally.requestTxHops(), tally.requestRxHops(),
                    tally.replyTxHops(), tally.replyRxHops()), what);
            }
            assertEquals(RrPlacement.CLASSES.size() * PER_FLOW, result.rtt().getTotalCount());
        }
    }

    @Test
    void aVariantsKeysReachThePipeline()
    {
        final PipelineConfig config = RrRound.config("rr-config", variant("xps-rxqs"));

        assertEquals(XpsPreset.RXQS, config.xpsPreset());
        assertEquals(RrRound.CPUS, config.cpus());
        assertEquals(RrRound.DEVICE, config.device());
        assertEquals("rr-config", config.name());
    }

    /**
     * A network that holds the flow's {@link #HELD}th request and answers it only after the request the client sent
     * next, when the client has given up on it.
     */
    private static DatagramHandler holdsOneRequest(final DatagramHandler echo)
    {
        final UnsafeBuffer held = new UnsafeBuffer(new byte[RrFlow.PAYLOAD_LENGTH]);
        final long[] seen = {0};
        return (socket, request) ->
        {
            seen[0]++;
            if (HELD == seen[0])
            {
                held.putBytes(0, request.buffer(), request.payloadOffset(), RrFlow.PAYLOAD_LENGTH);
                return;
            }
            if (HELD + 1 == seen[0])
            {
                assertTrue(socket.send(held, 0, RrFlow.PAYLOAD_LENGTH) > 0);
            }
            echo.onDatagram(socket, request);
        };
    }

    private static RrVariant variant(final String name)
    {
        return RrBench.VARIANTS.stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
    }
}
