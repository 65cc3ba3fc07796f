package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Accounting;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.ReceiveBooks;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterType;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xmit.tests.EndToEndSupport.await;
import static io.xmit.tests.EndToEndSupport.sendTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The books in both directions over the loop device, with replies lost on receive: a server on port A answers every
 * request from clients on port B, whose reply socket stops reading (its ring overflows: {@code
 * rx_drop_socket_ring_full}) and whose RX queue's CPU is then held (the device's RX ring fills: {@code nic_rx_missed}).
 * Every reply is still accounted for: the receive books balance in flight, and at rest, after the stop, exactly,
 * with what port A's device transmitted equal to what port B's device took in or missed.
 */
@Timeout(120)
class BooksBothDirectionsTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    /** Descriptors in each device ring: what port B's RX ring holds while its queue is held. */
    private static final int RING = 64;
    /** Replies sent into the reply socket once it stopped reading: far more than its 64 KiB ring holds. */
    private static final int INTO_FULL_SOCKET = 1_000;
    /** Replies sent once port B's RX queue is held: far more than its device ring holds. */
    private static final int INTO_FULL_DEVICE = 500;
    /** Requests sent and not yet served, at most: half port A's RX ring. */
    private static final int WINDOW = RING / 2;
    private static final int SERVER_CPU = 3;
    private static final int REPLY_SOCKET_CPU = 2;
    /** The CPU of port B's RX queue 1 (RX queue q runs on CPU q), which the blocking socket holds. */
    private static final int RXQ_CPU = 1;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void repliesLostToAFullSocketRingAndAFullDeviceRingAreAllInTheBooks() throws InterruptedException
    {
        final PipelineConfig config = PipelineConfig.builder()
            .name("books-both")
            .cpus(4)
            .device("loop:tx=1,rx=2,ring=" + RING + ",frame=2048,rate=0")
            .qdiscRingTerm(1 << 20)
            .socketRingTerm(1 << 16)
            .xpsPreset(XpsPreset.NONE)
            .build();
        final CountDownLatch release = new CountDownLatch(1);
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            // Requests arrive on port A's RX queue 0 (CPU 0), replies on port B's RX queue 1 (CPU 1).
            pipeline.driver(0).setRssIndirection(indirection(0));
            pipeline.driver(1).setRssIndirection(indirection(1));

            final AtomicInteger served = new AtomicInteger();
            final AtomicInteger replyFailures = new AtomicInteger();
            final UnsafeBuffer replyBuffer = new UnsafeBuffer(new byte[64]);
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7).onCpu(SERVER_CPU).handler(
                (socket, request) ->
                {
                    final byte[] reply = EndToEndSupport.transform(request.payload());
                    replyBuffer.putBytes(0, reply);
                    final long deadline = System.nanoTime() + EndToEndSupport.WAIT_NANOS;
                    long result;
                    while ((result = socket.reply(request, replyBuffer, 0, reply.length)) ==
                        SendResult.BACK_PRESSURED && System.nanoTime() - deadline < 0)
                    {
                        Thread.onSpinWait();
                    }
                    if (result < 0)
                    {
                        replyFailures.incrementAndGet();
                    }
                    served.incrementAndGet();
                }));
            final Endpoint serverEndpoint = server.local();

            // The reply socket reads one reply and then holds its CPU until released: its ring fills.
            final CountDownLatch replySocketHeld = new CountDownLatch(1);
            final UdpSocket replies = pipeline.openUdp(SocketOptions.udp4(7000).onPort(1).onCpu(REPLY_SOCKET_CPU)
                .handler((socket, datagram) -> hold(replySocketHeld, release)));
            // The blocking socket shares the CPU of port B's RX queue 1: once it holds it, that queue takes nothing.
            final CountDownLatch rxQueueHeld = new CountDownLatch(1);
            final UdpSocket blocking = pipeline.openUdp(SocketOptions.udp4(8000).onPort(1).onCpu(RXQ_CPU)
                .handler((socket, datagram) -> hold(rxQueueHeld, release)));

            final byte[] request = "request".getBytes(StandardCharsets.US_ASCII);
            sendTo(replies, serverEndpoint, request);
            assertTrue(replySocketHeld.await(10, TimeUnit.SECONDS), "the reply socket took its first reply");
            for (int i = 0; i < INTO_FULL_SOCKET; i++)
            {
                sendWindowed(replies, serverEndpoint, request, served, 1 + i);
            }
            final int intoSocket = 1 + INTO_FULL_SOCKET;
            await("every reply so far taken in by port B", () -> served.get() == intoSocket &&
                takenInByPortB(pipeline.accounting()), () -> pipeline.accounting().line());

            sendTo(blocking, serverEndpoint, request);
            assertTrue(rxQueueHeld.await(10, TimeUnit.SECONDS), "the blocking socket took its reply");
            final ReceiveBooks beforeHeld = pipeline.accounting().received().get(1);
            assertEquals(0, beforeHeld.inDeviceRings(), beforeHeld.line());
            for (int i = 0; i < INTO_FULL_DEVICE; i++)
            {
                sendWindowed(replies, serverEndpoint, request, served, 2 + INTO_FULL_SOCKET + i);
            }
            final int requests = 2 + INTO_FULL_SOCKET + INTO_FULL_DEVICE;
            await("every reply left port A", () ->
            {
                final Accounting books = pipeline.accounting();
                return served.get() == requests && 0 == books.inFlight() &&
                    portB(books).wireSent() == portB(books).arrived();
            }, () -> pipeline.accounting().line());

            // In flight: port B's RX ring is full (its queue is held), the rest of the replies missed it.
            final Accounting held = pipeline.verify();
            final ReceiveBooks portB = held.received().get(1);
            assertFalse(held.atRest(), held.line());
            assertEquals(RING, portB.inDeviceRings(), held.line());
            assertEquals(portB.arrived() - beforeHeld.arrived() - RING, portB.missed() - beforeHeld.missed(),
                held.line());
            assertTrue(portB.dropSocketRingFull() > 0, held.line());

            release.countDown();
            await("the books at rest", () -> pipeline.accounting().atRest(), () -> pipeline.accounting().line());

            final Accounting rest = pipeline.verify();
            assertEquals(0, replyFailures.get(), "replies refused");
            assertExact(rest, requests);

            final StopReport report = pipeline.stop(Duration.ofSeconds(10));
            assertTrue(report.drained(), report.line());
            assertTrue(report.books().balances(), report.line());
            assertTrue(report.books().atRest(), report.line());
            assertExact(report.books(), requests);
            assertEquals(rest.received(), report.books().received(), report.line());
            assertTrue(report.line().contains("rx port B: arrived " + requests + " = "), report.line());
            assertTrue(report.line().contains("rx_drop_socket_ring_full=" + portB(report.books())
                .dropSocketRingFull()), report.line());
            assertTrue(report.line().contains(" + missed " + portB(report.books()).missed()), report.line());
        }
        finally
        {
            release.countDown();
        }
    }

    /**
     * A socket closed with datagrams it has not read: what it delivered stays in the books once its own counters are
     * gone ({@code socket_delivered_retired}), and whatever its actor left in its ring is {@code socket_drop_closed},
     * so port B's books are exact at rest after the close.
     */
    @Test
    void aSocketClosedWithDatagramsUnreadKeepsItsPartOfTheBooks()
    {
        final int datagrams = 200;
        // One TX and one RX queue per port, on CPU 0: the reader holding CPU 1 holds nothing else.
        final PipelineConfig config = PipelineConfig.builder().name("books-close").cpus(2)
            .device("loop:tx=1,rx=1,ring=1024,frame=2048,rate=0").qdiscRingTerm(1 << 20).socketRingTerm(1 << 16)
            .xpsPreset(XpsPreset.NONE).build();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            final CountDownLatch held = new CountDownLatch(1);
            final UdpSocket reader = pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).onCpu(1).handler(
                (socket, datagram) ->
                {
                    // Reads one datagram, then nothing until it is closed: the rest wait in its ring.
                    held.countDown();
                    final long deadline = System.nanoTime() + EndToEndSupport.WAIT_NANOS;
                    while (!socket.isClosed() && System.nanoTime() - deadline < 0)
                    {
                        Thread.onSpinWait();
                    }
                }));
            final UdpSocket sender = pipeline.openUdp(SocketOptions.udp4(9001).onCpu(0));
            final byte[] payload = "unread".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < datagrams; i++)
            {
                sendTo(sender, reader.local(), payload);
            }
            await("every datagram in the reader's ring", () ->
            {
                final Accounting books = pipeline.accounting();
                return takenInByPortB(books) && portB(books).toSockets() == datagrams && 0 == held.getCount();
            }, () -> pipeline.accounting().line());
            // The datagram in the handler counts as delivered once the handler returns: all are in the ring's part.
            final Accounting before = pipeline.verify();
            assertEquals(datagrams, portB(before).inSocketRings(), before.line());

            reader.close();
            final Accounting books = pipeline.verify();
            final ReceiveBooks portB = portB(books);
            assertTrue(books.atRest(), books.line());
            assertEquals(datagrams, portB.arrived(), books.line());
            assertEquals(datagrams, portB.socketDelivered() + portB.socketDropClosed(), books.line());
            assertEquals(portB.socketDropClosed(), pipeline.total(CounterType.SOCKET_DROP_CLOSED, 1), books.line());
            assertEquals(portB.socketDelivered(), pipeline.total(CounterType.SOCKET_DELIVERED_RETIRED, 1),
                books.line());
        }
    }

    /**
     * Both ports' books at rest: port A took in every request and delivered it; every reply port A's device
     * transmitted arrived at port B's device, and was delivered, dropped at the full socket ring, or missed.
     */
    private static void assertExact(final Accounting books, final int requests)
    {
        assertTrue(books.balances(), books.line());
        final ReceiveBooks portA = books.received().get(0);
        final ReceiveBooks portB = portB(books);
        assertEquals(requests, portA.arrived(), books.line());
        assertEquals(requests, portA.socketDelivered(), books.line());
        assertEquals(Map.of(), portA.dropsByReason(), books.line());
        assertEquals(0, portA.missed(), books.line());
        assertEquals(portA.wireSent(), portA.arrived(), books.line());

        assertEquals(requests, portB.wireSent(), "port A's device transmitted every reply: " + books.line());
        assertEquals(portB.wireSent(), portB.devicePlaced() + portB.missed(), books.line());
        assertEquals(portB.arrived(), portB.delivered() + portB.dropped() + portB.missed(), books.line());
        assertEquals(0, portB.inFlight(), books.line());
        assertEquals(Map.of("rx_drop_socket_ring_full", portB.dropSocketRingFull()), portB.dropsByReason(),
            books.line());
        assertTrue(portB.missed() > 0, books.line());
        assertTrue(portB.dropSocketRingFull() > 0, books.line());
        assertEquals(requests, portA.wireSent(), "port B's device transmitted every request: " + books.line());
        assertEquals(2L * requests, books.accepted(), "the clients' requests and the server's replies: " +
            books.line());
    }

    /**
     * Sends a request once fewer than a window of the {@code sent} before it are unanswered, so that port A's RX ring
     * never fills: the requests all arrive, and only the replies are lost.
     */
    private static void sendWindowed(final UdpSocket socket, final Endpoint to, final byte[] request,
        final AtomicInteger served, final int sent)
    {
        await("a window of requests served", () -> sent - served.get() < WINDOW, () -> "served " + served.get() +
            " of " + sent);
        sendTo(socket, to, request);
    }

    private static ReceiveBooks portB(final Accounting books)
    {
        return books.received().get(1);
    }

    /** Everything port A sent has left it and arrived at port B, whose RX queues have handed each frame on. */
    private static boolean takenInByPortB(final Accounting books)
    {
        final ReceiveBooks portB = portB(books);
        return 0 == books.inFlight() && portB.wireSent() == portB.arrived() && 0 == portB.inDeviceRings() &&
            0 == portB.inBursts();
    }

    /** The first datagram signals {@code held} and holds the socket's CPU until {@code release} (10 s at most). */
    private static void hold(final CountDownLatch held, final CountDownLatch release)
    {
        if (held.getCount() > 0)
        {
            held.countDown();
            try
            {
                release.await(EndToEndSupport.WAIT_NANOS, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An RSS indirection table that sends every frame to RX queue {@code queue}. */
    private static int[] indirection(final int queue)
    {
        final int[] table = new int[128];
        Arrays.fill(table, queue);
        return table;
    }
}
