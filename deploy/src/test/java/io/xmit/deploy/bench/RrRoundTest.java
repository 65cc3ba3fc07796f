package io.xmit.deploy.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.xmit.actors.Accounting;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.XpsPreset;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The closed loop: asked for K transactions per flow, N flows complete exactly N×K, every request answered and every
 * datagram in the books; the hops are counted where the CPUs of socket and queue differ; a variant's keys reach the
 * pipeline's configuration.
 */
class RrRoundTest
{
    private static final int FLOWS = 6;
    private static final long PER_FLOW = 200;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void completesExactlyFlowsTimesKTransactionsWithBalancedBooks()
    {
        final RrRound.Result result = new RrRound(variant("xps-rxqs"), FLOWS).runTransactions(PER_FLOW, TIMEOUT_NANOS);

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
    void underXpsByCpuNoPacketLeavesOnAnotherCpusQueue()
    {
        final RrRound.Result result = new RrRound(variant("xps-cpus"), FLOWS).runTransactions(PER_FLOW, TIMEOUT_NANOS);

        assertEquals(FLOWS * PER_FLOW, result.tally().transactions());
        assertEquals(0, result.tally().requestTxHops());
        assertEquals(0, result.tally().replyTxHops());
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

    private static RrVariant variant(final String name)
    {
        return RrBench.VARIANTS.stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
    }
}
