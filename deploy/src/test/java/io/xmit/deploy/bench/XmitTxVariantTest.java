package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.QueueStats;
import io.xmit.actors.trace.TraceConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The xmit variant and its ablations (bypass off, bulk of one) deliver exactly what their senders send, each
 * sender's packets on its own CPU's TX queue (XPS by CPU), with no drop, and stop everything they started. Counts
 * only: nothing here depends on timing except the bounded waits.
 */
class XmitTxVariantTest
{
    // Not a multiple of the sender's burst nor of the bulk limit, so the last burst and bulk are short ones.
    private static final long PACKETS_PER_QUEUE = 300_007;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    @ParameterizedTest(name = "bypass={0} sender-bypass={1} bulk={2}")
    @CsvSource({"true, true, 64", "true, false, 64", "false, true, 64", "true, true, 1"})
    void deliversExactlyEachSendersBudgetOnItsCpusQueueWithoutDrops(final boolean bypass, final boolean senderBypass,
        final int bulk) throws InterruptedException
    {
        final XmitTxVariant variant = new XmitTxVariant("test", bypass, senderBypass, bulk, PACKETS_PER_QUEUE,
            XmitTxVariant.DEFAULT_SPIN_POLLS, TraceConfig.OFF);
        try (variant)
        {
            variant.start();
            final long expected = XmitTxVariant.CPUS * PACKETS_PER_QUEUE;
            Await.exactly("completions", expected, variant::delivered, Duration.ofNanos(WAIT_NANOS));
            assertEquals(expected, variant.delivered(), "completions within " + WAIT_NANOS + " ns");
        }
        assertTrue(variant.isTerminated());
        for (int queue = 0; queue < XmitTxVariant.CPUS; queue++)
        {
            final CounterScope scope = CounterScope.txq(0, queue);
            final QueueStats stats = variant.driverStats(queue);
            assertEquals(PACKETS_PER_QUEUE, variant.sent(queue), "socket_sent of CPU " + queue + "'s socket");
            assertEquals(PACKETS_PER_QUEUE, stats.txPackets(), "driver-accepted on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE * BenchFrames.FRAME_LENGTH, stats.txBytes(), "bytes on queue " + queue);
            assertEquals(0, stats.txErrors(), "driver errors on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE, variant.delivered(queue), "completions on queue " + queue);
            assertEquals(PACKETS_PER_QUEUE, variant.counter(CounterType.QDISC_PACKETS, scope), "qdisc " + scope);
            assertEquals(0, variant.counter(CounterType.QDISC_DROP_OVERFLOW, scope), "overflow drops " + scope);
            assertEquals(0, variant.counter(CounterType.QDISC_DROP_OVERSIZE, scope), "oversize drops " + scope);
            assertEquals(0, variant.counter(CounterType.QDISC_BACKLOG_PACKETS, scope), "backlog left " + scope);
            if (!bypass)
            {
                assertEquals(0, variant.counter(CounterType.QDISC_BYPASSED, scope), "bypassed with bypass off");
                assertEquals(PACKETS_PER_QUEUE, variant.counter(CounterType.QDISC_ENQUEUED, scope), "enqueued");
            }
            if (1 == bulk)
            {
                assertEquals(PACKETS_PER_QUEUE, variant.counter(CounterType.QDISC_BULKS, scope), "one per burst");
            }
        }
    }

    @Test
    void measuresAWindowAndCloseStopsTheSendersThePipelineAndTheActorSystem()
    {
        final XmitTxVariant variant = XmitTxVariant.xmit();
        final TxVariant.Result result;
        try (variant)
        {
            variant.start();
            result = variant.runFor(TimeUnit.MILLISECONDS.toNanos(200));
        }
        assertTrue(variant.isTerminated());
        assertTrue(result.packets() > 0, result.toString());
        assertTrue(result.allocatedBytes() >= 0, result.toString());
        assertTrue(variant.detail().startsWith("bypass "), variant.detail());
    }
}
