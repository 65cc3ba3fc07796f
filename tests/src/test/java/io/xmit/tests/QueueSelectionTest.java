package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.QueueExplanation;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsChange;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SelectionRule;
import io.xmit.transport.nic.NicFault;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xmit.tests.EndToEndSupport.await;
import static io.xmit.tests.EndToEndSupport.awaitExactly;
import static io.xmit.tests.EndToEndSupport.send;
import static io.xmit.tests.EndToEndSupport.sendTo;
import static io.xmit.tests.EndToEndSupport.transform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TX queue selection observed end to end over the loop device (4 TX / 4 RX queues per port): XPS by RX queue, XPS
 * by CPU, the flow hash, the socket's cached queue and the real TX queue count, each checked through per-queue
 * counters and the sockets' own queue state, with exact counts.
 */
@Timeout(60)
class QueueSelectionTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int QUEUES = 4;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    /**
     * §2.2(a), §2.4: a connected socket records the RX queue its datagrams arrive on, and with the RXQS preset
     * (xps_rxqs of tx-i = {i}) its replies leave on the TX queue of the same number. Unconnected sockets record no
     * RX queue (§2.4), so the server is one connected socket per client flow; many flows make RSS use every RX
     * queue.
     */
    @Test
    void rxqsRepliesLeaveOnTheTxQueueMatchingTheirRequestsRxQueue()
    {
        final int flows = 32;
        final int requestsPerFlow = 6;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-rxqs", 2,
            XpsPreset.RXQS)))
        {
            for (int q = 0; q < QUEUES; q++)
            {
                for (int r = 0; r < QUEUES; r++)
                {
                    assertEquals(q == r, pipeline.queueMap(0).xpsRxqs(q).get(r), "xps_rxqs of tx-" + q + ", rxq " + r);
                }
            }
            final ConcurrentLinkedQueue<String> mismatches = new ConcurrentLinkedQueue<>();
            final AtomicInteger mismatchCount = new AtomicInteger();
            final AtomicInteger received = new AtomicInteger();
            final List<UdpSocket> clients = new ArrayList<>();
            for (int f = 0; f < flows; f++)
            {
                final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                pipeline.openUdp(SocketOptions.udp4(7).connect(Endpoint.of("10.0.0.2", 6000 + f))
                    .handler((socket, request) ->
                    {
                        final byte[] reply = transform(request.payload());
                        replyBuffer.putBytes(0, reply);
                        final long result = socket.reply(request, replyBuffer, 0, reply.length);
                        // The reply was sent on this thread just now: the socket cached the queue it picked (§1.2).
                        if ((result < 0 || socket.queueState().txQueue() != request.rxQueue() ||
                            socket.queueState().rxQueue() != request.rxQueue()) && mismatchCount.getAndIncrement() < 5)
                        {
                            mismatches.add("request on rxq " + request.rxQueue() + ", reply " + result + " -> " +
                                socket.queueState());
                        }
                    }));
                clients.add(pipeline.openUdp(SocketOptions.udp4(6000 + f).onPort(1)
                    .connect(Endpoint.of("10.0.0.1", 7))
                    .handler((socket, reply) -> received.incrementAndGet())));
            }

            int sent = 0;
            for (int r = 0; r < requestsPerFlow; r++)
            {
                for (final UdpSocket client : clients)
                {
                    send(client, ("request " + r).getBytes(StandardCharsets.US_ASCII));
                    sent++;
                }
                final int expected = sent;
                await("replies to round " + r, () -> received.get() >= expected, pipeline::counters);
            }
            final int total = flows * requestsPerFlow;
            awaitExactly("replies", total, received::get);
            assertEquals(0, mismatchCount.get(), "replies off their RX queue's TX queue, first few: " + mismatches);

            awaitExactly("port 0 completions", total, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            for (int q = 0; q < QUEUES; q++)
            {
                final long requestsOnRxq = pipeline.counter(CounterType.RX_DELIVERED, CounterScope.rxq(0, q));
                assertTrue(requestsOnRxq > 0, "RSS used rx queue " + q + ": " + pipeline.counters());
                assertEquals(requestsOnRxq, pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(0, q)),
                    "replies on tx queue " + q);
                assertEquals(requestsOnRxq, pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, q)),
                    "replies completed on tx queue " + q);
            }
            assertEquals(total, pipeline.total(CounterType.RX_DELIVERED, 0));
        }
    }

    /**
     * §2.2(b), §2.5: with only the CPUS preset (xps_cpus of tx-i = {i mod 2}), a socket's handler runs on the
     * socket's CPU and every reply it sends leaves on a TX queue whose xps_cpus holds that CPU. The server sockets
     * are unconnected (no RX queue recorded, §2.4, no cache, §1.2), so the CPU map decides every packet; within the
     * CPU's two queues the flow hash picks (§2.3).
     */
    @Test
    void cpusRepliesLeaveOnATxQueueOfTheSendingCpu()
    {
        final int clientsCount = 16;
        final int requestsPerClient = 8;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-cpus", 2,
            XpsPreset.CPUS)))
        {
            final QueueMap map = pipeline.queueMap(0);
            for (int q = 0; q < QUEUES; q++)
            {
                for (int cpu = 0; cpu < 2; cpu++)
                {
                    assertEquals(q % 2 == cpu, map.xpsCpus(q).get(cpu), "xps_cpus of tx-" + q + ", cpu " + cpu);
                }
            }
            final ConcurrentLinkedQueue<String> wrongCpu = new ConcurrentLinkedQueue<>();
            final AtomicInteger[] served = {new AtomicInteger(), new AtomicInteger()};
            final List<UdpSocket> servers = new ArrayList<>();
            for (int cpu = 0; cpu < 2; cpu++)
            {
                final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                final AtomicInteger count = served[cpu];
                servers.add(pipeline.openUdp(SocketOptions.udp4(7 + cpu).onCpu(cpu).handler((socket, request) ->
                {
                    if (CpuThread.currentCpu() != socket.cpu())
                    {
                        wrongCpu.add("socket " + socket.id() + " handler on cpu " + CpuThread.currentCpu());
                    }
                    final byte[] reply = transform(request.payload());
                    replyBuffer.putBytes(0, reply);
                    if (socket.reply(request, replyBuffer, 0, reply.length) < 0)
                    {
                        wrongCpu.add("reply refused on " + socket);
                    }
                    count.incrementAndGet();
                })));
            }
            final AtomicInteger received = new AtomicInteger();
            final List<UdpSocket> clients = new ArrayList<>();
            for (int c = 0; c < clientsCount; c++)
            {
                clients.add(pipeline.openUdp(SocketOptions.udp4(7000 + c).onPort(1)
                    .handler((socket, reply) -> received.incrementAndGet())));
            }
            int sent = 0;
            for (int r = 0; r < requestsPerClient; r++)
            {
                for (final UdpSocket client : clients)
                {
                    for (final UdpSocket server : servers)
                    {
                        sendTo(client, server.local(), ("ask " + r).getBytes(StandardCharsets.US_ASCII));
                        sent++;
                    }
                }
                final int expected = sent;
                await("replies to round " + r, () -> received.get() >= expected, pipeline::counters);
            }
            final int perServer = clientsCount * requestsPerClient;
            awaitExactly("replies", 2 * perServer, received::get);
            assertEquals(List.of(), List.copyOf(wrongCpu));
            assertEquals(perServer, served[0].get());
            assertEquals(perServer, served[1].get());

            // Port 0 sends nothing but these replies, so the per-queue counts partition them exactly.
            awaitExactly("port 0 completions", 2 * perServer,
                () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            assertEquals(perServer, qdiscPackets(pipeline, 0, 0) + qdiscPackets(pipeline, 0, 2),
                "cpu 0's replies on tx-0 and tx-2: " + pipeline.counters());
            assertEquals(perServer, qdiscPackets(pipeline, 0, 1) + qdiscPackets(pipeline, 0, 3),
                "cpu 1's replies on tx-1 and tx-3: " + pipeline.counters());

            // explain() with a sending CPU and no RX queue goes by the CPU map, to one of that CPU's queues.
            final QueueExplanation explanation = pipeline.explain(0,
                new FlowKey().setIpv4(FlowKey.PROTO_UDP, ipv4("10.0.0.1"), ipv4("10.0.0.2"), 8, 7000), 1, -1);
            assertEquals(SelectionRule.XPS_CPUS, explanation.rule(), explanation.text());
            assertEquals(1, explanation.txQueue() % 2, explanation.text());
        }
    }

    /**
     * §1.2, §3.3: without XPS a connected socket's queue is its flow hash scaled onto the real TX queues, cached;
     * 64 flows spread over every queue, each socket's packets all leave on its one queue, and explain() names the
     * same queue by the hash rule.
     */
    @Test
    void withoutXpsTheHashSpreadsSocketsAndEachStaysOnItsQueue()
    {
        final int socketsCount = 64;
        final int packetsPerSocket = 5;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-hash", 2,
            XpsPreset.NONE)))
        {
            final List<UdpSocket> sockets = new ArrayList<>();
            for (int s = 0; s < socketsCount; s++)
            {
                sockets.add(pipeline.openUdp(SocketOptions.udp4(8000 + s).connect(Endpoint.of("10.0.0.2", 9000 + s))));
            }
            final long[] expected = new long[QUEUES];
            for (final UdpSocket socket : sockets)
            {
                int queue = -1;
                for (int i = 0; i < packetsPerSocket; i++)
                {
                    send(socket, new byte[] {(byte)i});
                    final int now = socket.queueState().txQueue();
                    if (queue < 0)
                    {
                        queue = now;
                    }
                    assertEquals(queue, now, "packet " + i + " of " + socket);
                }
                expected[queue] += packetsPerSocket;

                final QueueExplanation explanation = pipeline.explain(0, connectedFlow(socket), -1, -1);
                assertEquals(SelectionRule.HASH, explanation.rule(), explanation.text());
                assertEquals(queue, explanation.txQueue(), explanation.text());
            }
            final int total = socketsCount * packetsPerSocket;
            // Nobody listens on port 1: every packet is counted there as for no socket.
            awaitExactly("port 1 drops", total, () -> pipeline.total(CounterType.RX_DROP_NO_SOCKET, 1));
            awaitExactly("port 0 completions", total, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            for (int q = 0; q < QUEUES; q++)
            {
                assertTrue(expected[q] > 0, "the hash used tx queue " + q);
                assertEquals(expected[q], qdiscPackets(pipeline, 0, q), "packets on tx queue " + q);
            }
        }
    }

    /**
     * §1.2, §1.5: a socket keeps its cached queue while any of its packets is in flight (rule CACHED), even after
     * XPS would send it elsewhere; once none is (ooo_okay), the next packet is selected afresh and moves. The
     * cached queue is stalled (TX_STALL) so its packets stay in flight for as long as the test needs, and the §1.6
     * reselection is off, so the time the test takes cannot move it either.
     */
    @Test
    void aCachedQueueHoldsWhilePacketsAreInFlightAndMovesOnceNoneAre()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-cache", 2,
            XpsPreset.NONE).toBuilder().txqReselection(Duration.ZERO).build()))
        {
            final ConcurrentLinkedQueue<Integer> rxQueues = new ConcurrentLinkedQueue<>();
            final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(7).connect(Endpoint.of("10.0.0.2", 6000))
                .handler((s, datagram) -> rxQueues.add(datagram.rxQueue())));
            final AtomicInteger peerReceived = new AtomicInteger();
            final UdpSocket peer = pipeline.openUdp(SocketOptions.udp4(6000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7)).handler((s, datagram) -> peerReceived.incrementAndGet()));

            // §2.4: one datagram from the peer records its RX queue on the connected socket.
            send(peer, new byte[] {1});
            awaitExactly("the peer's datagram", 1, rxQueues::size);
            final int rxq = rxQueues.peek();
            assertEquals(rxq, socket.queueState().rxQueue());
            assertEquals(-1, socket.queueState().txQueue(), "nothing sent yet, nothing cached");

            final int first = (rxq + 1) % QUEUES;
            final int second = (rxq + 2) % QUEUES;
            final String rxqMask = Integer.toHexString(1 << rxq);
            assertTrue(pipeline.setXpsRxqs(0, first, rxqMask).applied());
            final FlowKey flow = connectedFlow(socket);
            assertExplains(pipeline, flow, rxq, first, SelectionRule.XPS_RXQS);

            pipeline.driver(0).fault(NicFault.TX_STALL, first, 1);
            for (int i = 0; i < 3; i++)
            {
                send(socket, new byte[] {'a', (byte)i});
                assertEquals(first, socket.queueState().txQueue(), "packet " + i);
            }
            assertEquals(3, socket.inFlight());

            // XPS now prefers another queue, but the socket has packets in flight: it stays (CACHED).
            assertTrue(pipeline.setXpsRxqs(0, first, "0").applied());
            assertTrue(pipeline.setXpsRxqs(0, second, rxqMask).applied());
            assertExplains(pipeline, flow, rxq, second, SelectionRule.XPS_RXQS);
            for (int i = 0; i < 3; i++)
            {
                send(socket, new byte[] {'b', (byte)i});
                assertEquals(first, socket.queueState().txQueue(), "in-flight packet " + i);
            }
            assertEquals(6, socket.inFlight());
            assertEquals(0, pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, first)));
            assertEquals(0, qdiscPackets(pipeline, 0, second));

            // Released, everything completes; with nothing in flight the next packet moves (ooo_okay, §1.5).
            pipeline.driver(0).fault(NicFault.TX_STALL, first, 0);
            await("the stalled packets to complete", () -> socket.inFlight() == 0, socket::toString);
            awaitExactly("completions on the first queue", 6,
                () -> pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, first)));
            send(socket, new byte[] {'c'});
            assertEquals(second, socket.queueState().txQueue());
            awaitExactly("completions on the second queue", 1,
                () -> pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, second)));
            awaitExactly("datagrams at the peer", 7, peerReceived::get);
            assertEquals(6, qdiscPackets(pipeline, 0, first));
            assertEquals(7, pipeline.total(CounterType.QDISC_PACKETS, 0));
        }
    }

    /**
     * §1.2's bound check (§1.4: the cache is not cleared when the count changes): after shrinking the real TX queue
     * count to 2, a socket cached on queue 2 or 3 is re-selected to a queue below 2 at its next packet, even with
     * packets in flight, while a socket cached below 2 keeps its queue; growing back to 4 moves nobody that is busy
     * and in range (CACHED). Packets already on queues 2 and 3 still leave through them. The §1.6 reselection is off.
     */
    @Test
    void shrinkingTheTxQueueCountMovesSocketsCachedBeyondIt()
    {
        final int socketsCount = 32;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-shrink", 2,
            XpsPreset.NONE).toBuilder().txqReselection(Duration.ZERO).build()))
        {
            final List<UdpSocket> sockets = new ArrayList<>();
            final int[] original = new int[socketsCount];
            final long[] expected = new long[QUEUES];
            for (int s = 0; s < socketsCount; s++)
            {
                final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(8000 + s)
                    .connect(Endpoint.of("10.0.0.2", 9000 + s)));
                sockets.add(socket);
                send(socket, new byte[] {0});
                original[s] = socket.queueState().txQueue();
                expected[original[s]]++;
            }
            assertTrue(countBelow(original, 2) > 0 && countBelow(original, 2) < socketsCount,
                "sockets on both sides of the cut: " + Arrays.toString(original));
            await("the first packets to complete",
                () -> sockets.stream().allMatch(socket -> socket.inFlight() == 0), pipeline::counters);

            for (int q = 0; q < QUEUES; q++)
            {
                pipeline.driver(0).fault(NicFault.TX_STALL, q, 1);
            }
            for (int s = 0; s < socketsCount; s++)
            {
                send(sockets.get(s), new byte[] {1});
                // Nothing was in flight, so this was selected afresh: by the hash, to the same queue.
                assertEquals(original[s], sockets.get(s).queueState().txQueue());
                expected[original[s]]++;
            }

            final XpsChange shrink = pipeline.setTxQueueCount(0, 2);
            assertTrue(shrink.applied(), shrink.message());
            assertEquals(2, shrink.map().realNumTx());
            assertEquals(2, pipeline.queueMap(0).realNumTx());
            final int[] moved = new int[socketsCount];
            for (int s = 0; s < socketsCount; s++)
            {
                final UdpSocket socket = sockets.get(s);
                assertEquals(1, socket.inFlight(), socket.toString());
                if (original[s] < 2)
                {
                    moved[s] = original[s];
                }
                else
                {
                    final QueueExplanation explanation = pipeline.explain(0, connectedFlow(socket), -1, -1);
                    assertEquals(SelectionRule.HASH, explanation.rule(), explanation.text());
                    assertTrue(explanation.txQueue() < 2, explanation.text());
                    moved[s] = explanation.txQueue();
                }
                send(socket, new byte[] {2});
                assertEquals(moved[s], socket.queueState().txQueue(), "after the shrink: " + socket);
                expected[moved[s]]++;
            }

            final XpsChange grow = pipeline.setTxQueueCount(0, 4);
            assertTrue(grow.applied(), grow.message());
            for (int s = 0; s < socketsCount; s++)
            {
                final UdpSocket socket = sockets.get(s);
                send(socket, new byte[] {3});
                assertEquals(moved[s], socket.queueState().txQueue(), "busy after the growth: " + socket);
                expected[moved[s]]++;
            }

            pipeline.driver(0).fault(NicFault.CLEAR, 0, 0);
            await("every packet to complete",
                () -> sockets.stream().allMatch(socket -> socket.inFlight() == 0), pipeline::counters);
            final long total = 4L * socketsCount;
            awaitExactly("completions", total, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            for (int q = 0; q < QUEUES; q++)
            {
                assertEquals(expected[q], pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, q)),
                    "completions on tx queue " + q);
            }

            // Idle again (ooo_okay), each socket is selected afresh over 4 queues: back to its hash queue.
            for (int s = 0; s < socketsCount; s++)
            {
                send(sockets.get(s), new byte[] {4});
                assertEquals(original[s], sockets.get(s).queueState().txQueue(), "idle: " + sockets.get(s));
            }
        }
    }

    /**
     * §2.5–§2.7 through the mapping actor: a bad mask, a TX queue count of 0 or above the device's queues and a TX
     * queue out of range are refused with a message naming the input, and the published map stays the same object.
     */
    @Test
    void theMappingActorRefusesBadInputAndKeepsTheMap()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("qs-refuse", 2,
            XpsPreset.NONE)))
        {
            final QueueMap before = pipeline.queueMap(0);
            assertRefused(pipeline, before, pipeline.setXpsCpus(0, 1, "xyz"), "'xyz'", "tx-1");
            assertRefused(pipeline, before, pipeline.setXpsCpus(0, 1, "4"), "'4'", "beyond 2 CPUs");
            assertRefused(pipeline, before, pipeline.setXpsRxqs(0, 0, "10"), "'10'", "beyond 4 RX queues");
            assertRefused(pipeline, before, pipeline.setXpsCpus(0, 4, "1"), "tx-4", "no such TX queue");
            assertRefused(pipeline, before, pipeline.setXpsRxqs(0, -1, "1"), "tx--1", "no such TX queue");
            assertRefused(pipeline, before, pipeline.setTxQueueCount(0, 0), "TX queue count 0", "1..4");
            assertRefused(pipeline, before, pipeline.setTxQueueCount(0, 5), "TX queue count 5", "1..4");
            final IllegalArgumentException noPort = assertThrows(IllegalArgumentException.class,
                () -> pipeline.setXpsCpus(2, 0, "1"));
            assertTrue(noPort.getMessage().contains("device port 2"), noPort.getMessage());

            final XpsChange set = pipeline.setXpsCpus(0, 1, "2");
            assertTrue(set.applied(), set.message());
            assertTrue(set.message().contains("tx-1 xps_cpus"), set.message());
            assertSame(set.map(), pipeline.queueMap(0));
            assertTrue(pipeline.queueMap(0).xpsCpus(1).get(1));
            assertFalse(pipeline.queueMap(0).xpsCpus(1).get(0));

            final XpsChange shrink = pipeline.setTxQueueCount(0, 2);
            assertTrue(shrink.applied(), shrink.message());
            assertTrue(shrink.message().contains("4 -> 2"), shrink.message());
            final QueueMap shrunk = pipeline.queueMap(0);
            assertRefused(pipeline, shrunk, pipeline.setXpsCpus(0, 3, "1"), "tx-3", "no such TX queue");
            assertRefused(pipeline, shrunk, pipeline.setXpsRxqs(0, 2, "1"), "tx-2", "no such TX queue");
        }
    }

    private static void assertRefused(final Pipeline pipeline, final QueueMap before,
        final XpsChange reply, final String... named)
    {
        assertFalse(reply.applied(), reply.message());
        for (final String text : named)
        {
            assertTrue(reply.message().contains(text), "'" + reply.message() + "' names " + text);
        }
        assertSame(before, reply.map(), reply.message());
        assertSame(before, pipeline.queueMap(0), reply.message());
    }

    private static void assertExplains(final Pipeline pipeline, final FlowKey flow, final int rxq, final int queue,
        final SelectionRule rule)
    {
        final QueueExplanation explanation = pipeline.explain(0, flow, -1, rxq);
        assertEquals(queue, explanation.txQueue(), explanation.text());
        assertEquals(rule, explanation.rule(), explanation.text());
    }

    private static long qdiscPackets(final Pipeline pipeline, final int port, final int txq)
    {
        return pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(port, txq));
    }

    /** The 5-tuple a connected IPv4 socket sends with: source = itself, destination = its peer. */
    private static FlowKey connectedFlow(final UdpSocket socket)
    {
        final Endpoint local = socket.local();
        final Endpoint remote = socket.remote();
        return new FlowKey().setIpv4(FlowKey.PROTO_UDP, (int)local.lo(), (int)remote.lo(), local.port(),
            remote.port());
    }

    private static int ipv4(final String literal)
    {
        return (int)Endpoint.of(literal, 0).lo();
    }

    private static int countBelow(final int[] values, final int limit)
    {
        int count = 0;
        for (final int value : values)
        {
            if (value < limit)
            {
                count++;
            }
        }
        return count;
    }
}
