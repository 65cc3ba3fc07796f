package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Accounting;
import io.xmit.actors.BusyPoll;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Busy polling end to end (kernel-semantics §9): sockets that busy-poll their channels get every datagram once and in
 * order, take some of them by busy polling, and leave nothing behind when one of them closes mid-traffic or the
 * pipeline stops under them.
 */
@Timeout(120)
class BusyPollTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final BusyPoll FIFTY_MICROS = BusyPoll.of(Duration.of(50, ChronoUnit.MICROS));

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void socketsThatBusyPollGetEveryDatagramOnceInOrderAndAStopUnderThemLosesNothing()
    {
        // A rated wire with deep rings: a CPU whose sockets busy-poll runs its RX queues' actors late, and an unrated
        // wire would overflow a device ring meanwhile (counted as missed, but this test wants every datagram).
        final PipelineConfig config = EndToEndSupport.loopConfig("busy-poll", 2, XpsPreset.NONE).toBuilder()
            .device("loop:tx=4,rx=4,ring=4096,frame=2048,rate=200kpps")
            .busyPoll(FIFTY_MICROS.preferred(true))
            .build();
        final Pipeline pipeline = Pipeline.start(KIT.system(), config);
        final SequencedTraffic traffic = new SequencedTraffic(pipeline, 16, 4);
        traffic.send(100_000, 100_000, sent -> { });
        traffic.assertAllArrivedOnceInOrder();
        final long busyPolled = pipeline.total(CounterType.BUSY_POLL_PACKETS, 0);
        assertTrue(busyPolled > 0, "the receivers took datagrams by busy polling: " + busyPolled);
        assertTrue(pipeline.total(CounterType.BUSY_POLL_HANDBACKS, 0) > 0, "and handed their channels back");
        assertTrue(busyPolled <= pipeline.total(CounterType.RX_PACKETS, 0), "a share of rx_packets");

        // The stop comes while a sender keeps sending and the receivers keep busy-polling.
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicLong accepted = new AtomicLong();
        final Thread sender = Thread.ofPlatform().name("busy-poll-sender").start(() ->
        {
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(30_000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", SequencedTraffic.RECEIVER_PORT)));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            long result;
            do
            {
                result = client.send(payload, 0, payload.capacity());
                if (result > 0)
                {
                    accepted.incrementAndGet();
                }
            }
            while (!stopped.get() && (result > 0 || SendResult.BACK_PRESSURED == result));
        });
        EndToEndSupport.await("the late sender's datagrams flowing", () -> accepted.get() > 1000, accepted::get);
        final StopReport report = pipeline.stop(Duration.ofSeconds(2));
        stopped.set(true);
        join(sender);
        final Accounting books = report.books();
        assertTrue(books.balances(), report.line());
        assertTrue(books.atRest(), "nothing in flight after the stop: " + report.line());
        assertEquals(100_000 + accepted.get(), books.accepted(), report.line());
    }

    /**
     * One RX queue, so one channel for both sockets: the busy-polling one, which prefers busy polling (so it leaves
     * the channel's interrupt off between its loops), closes while datagrams flow to both; the other, which does not
     * busy-poll, still gets every one of its datagrams, once and in order, so the closed socket's hand-back stranded
     * none.
     */
    @Test
    void aBusyPollingSocketClosedMidTrafficLeavesItsChannelToTheOthers()
    {
        final PipelineConfig config = EndToEndSupport.loopConfig("busy-poll-close", 2, XpsPreset.NONE).toBuilder()
            .device("loop:tx=1,rx=1,ring=1024,frame=2048,rate=200kpps")
            .build();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            final AtomicLong quietNext = new AtomicLong();
            final AtomicLong quietOutOfOrder = new AtomicLong();
            final UdpSocket busy = pipeline.openUdp(SocketOptions.udp4(9000).onPort(0).onCpu(0)
                .busyPoll(FIFTY_MICROS.preferred(true)).handler((socket, datagram) -> { }));
            final DatagramHandler inOrder = (socket, datagram) ->
            {
                if (datagram.buffer().getLong(datagram.payloadOffset()) != quietNext.getAndIncrement())
                {
                    quietOutOfOrder.incrementAndGet();
                }
            };
            pipeline.openUdp(SocketOptions.udp4(9001).onPort(0).onCpu(1).receiveBuffer(4 << 20).handler(inOrder));
            final UdpSocket toQuiet = pipeline.openUdp(SocketOptions.udp4(20_001).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 9001)));
            final UdpSocket toBusy = pipeline.openUdp(SocketOptions.udp4(20_000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 9000)));
            // The busy socket closes from another thread while datagrams flow to it, so that it is between two loops,
            // its channel deferred with the interrupt off; after the close they are dropped (no socket) and counted.
            final Thread closer = Thread.ofPlatform().name("closer").start(() ->
            {
                EndToEndSupport.await("half the traffic sent, some of it busy-polled", () -> quietNext.get() > 10_000 &&
                    pipeline.counter(CounterType.BUSY_POLL_PACKETS, CounterScope.rxq(0, 0)) > 0,
                    () -> pipeline.counters());
                busy.close();
            });
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            final int each = 20_000;
            for (long i = 0; i < each; i++)
            {
                // At most 256 datagrams ahead of the quiet socket, so that no ring overflows on a loaded machine; a
                // channel left without an owner would stop it here.
                final long sent = i;
                EndToEndSupport.await("the quiet socket within 256 datagrams of the sender",
                    () -> sent - quietNext.get() <= 256, () -> quietNext.get() + " of " + sent + " received; " +
                    pipeline.accounting().line());
                toBusy.send(payload, 0, payload.capacity());
                sendRidingBackPressure(toQuiet, payload, i);
            }
            join(closer);
            EndToEndSupport.await("every datagram to the quiet socket received", () -> quietNext.get() >= each,
                () -> quietNext.get() + "; " + pipeline.accounting().line() + "; " + pipeline.counters());
            assertEquals(each, quietNext.get());
            assertEquals(0, quietOutOfOrder.get(), "the quiet socket's datagrams arrived once each, in order");
            EndToEndSupport.await("the books at rest", () -> pipeline.accounting().atRest(),
                () -> pipeline.accounting().line());
            final Accounting books = pipeline.verify();
            assertTrue(books.balances(), books.line());
        }
    }

    private static void sendRidingBackPressure(final UdpSocket socket, final UnsafeBuffer payload, final long seq)
    {
        payload.putLong(0, seq);
        long result;
        while ((result = socket.send(payload, 0, payload.capacity())) == SendResult.BACK_PRESSURED)
        {
            Thread.onSpinWait();
        }
        final long last = result;
        assertTrue(last > 0, () -> "send " + seq + ": " + SendResult.name(last));
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(Duration.ofSeconds(10));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        assertFalse(thread.isAlive(), "the sender ended");
    }
}
