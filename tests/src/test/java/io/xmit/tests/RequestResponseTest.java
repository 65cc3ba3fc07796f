package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import io.xmit.actors.Datagram;
import io.xmit.actors.Datagrams;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xmit.tests.EndToEndSupport.await;
import static io.xmit.tests.EndToEndSupport.awaitExactly;
import static io.xmit.tests.EndToEndSupport.send;
import static io.xmit.tests.EndToEndSupport.sendTo;
import static io.xmit.tests.EndToEndSupport.transform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UDP request/response end to end over the loop device: clients on port 1, servers on port 0, every payload checked
 * byte for byte, every count exact.
 */
@Timeout(60)
class RequestResponseTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    private static final int CLIENTS = 8;
    private static final int REQUESTS_PER_CLIENT = 40;
    private static final int WINDOW = 32;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void handlerRepliesToEveryRequestOverIpv4()
    {
        requestResponse("rr-v4", false);
    }

    @Test
    void handlerRepliesToEveryRequestOverIpv6()
    {
        requestResponse("rr-v6", true);
    }

    /**
     * N requests from several client sockets (several source ports, so several flows) reach one unconnected server
     * socket, whose handler replies with {@link UdpSocket#reply}; every client gets exactly the replies to its own
     * requests, in order (one flow stays on one TX queue, §1.2/§3.3, and one RX queue), byte for byte.
     */
    private static void requestResponse(final String name, final boolean ipv6)
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig(name, 2, XpsPreset.NONE)))
        {
            final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            final AtomicInteger served = new AtomicInteger();
            final ConcurrentLinkedQueue<String> serverErrors = new ConcurrentLinkedQueue<>();
            final SocketOptions serverOptions = ipv6 ? SocketOptions.udp6(7) : SocketOptions.udp4(7);
            final UdpSocket server = pipeline.openUdp(serverOptions.handler((socket, request) ->
            {
                final byte[] reply = transform(request.payload());
                replyBuffer.putBytes(0, reply);
                final long result = socket.reply(request, replyBuffer, 0, reply.length);
                if (result < 0)
                {
                    serverErrors.add("reply to " + request.source() + " refused: " + result);
                }
                served.incrementAndGet();
            }));
            assertEquals(ipv6 ? Endpoint.of("fd00::1", 7) : Endpoint.of("10.0.0.1", 7), server.local());

            final Endpoint serverEndpoint = server.local();
            final List<UdpSocket> clients = new ArrayList<>();
            final List<ConcurrentLinkedQueue<byte[]>> replies = new ArrayList<>();
            final AtomicInteger received = new AtomicInteger();
            for (int c = 0; c < CLIENTS; c++)
            {
                final ConcurrentLinkedQueue<byte[]> inbox = new ConcurrentLinkedQueue<>();
                replies.add(inbox);
                final SocketOptions options = (ipv6 ? SocketOptions.udp6(5000 + c) : SocketOptions.udp4(5000 + c))
                    .onPort(1);
                // Half the clients connect and use send, half stay unconnected and use sendTo.
                final UdpSocket client = pipeline.openUdp((c % 2 == 0 ? options.connect(serverEndpoint) : options)
                    .handler((socket, datagram) ->
                    {
                        inbox.add(datagram.payload());
                        received.incrementAndGet();
                    }));
                clients.add(client);
            }

            final List<List<byte[]>> requests = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++)
            {
                requests.add(new ArrayList<>());
            }
            int sent = 0;
            for (int i = 0; i < REQUESTS_PER_CLIENT; i++)
            {
                for (int c = 0; c < CLIENTS; c++)
                {
                    // Lengths vary from 1 to well over 100 bytes so frames of different sizes are checked.
                    final byte[] request = ("c" + c + " #" + i + " " + "x".repeat((i * 7 + c * 13) % 120))
                        .getBytes(StandardCharsets.US_ASCII);
                    requests.get(c).add(request);
                    final int inFlight = sent;
                    await("a window of replies", () -> inFlight - received.get() < WINDOW, pipeline::counters);
                    if (c % 2 == 0)
                    {
                        send(clients.get(c), request);
                    }
                    else
                    {
                        sendTo(clients.get(c), serverEndpoint, request);
                    }
                    sent++;
                }
            }
            final int total = CLIENTS * REQUESTS_PER_CLIENT;
            awaitExactly("replies received by the clients", total, received::get);
            assertEquals(total, served.get(), "requests served");
            assertEquals(List.of(), List.copyOf(serverErrors));

            for (int c = 0; c < CLIENTS; c++)
            {
                final List<byte[]> got = List.copyOf(replies.get(c));
                assertEquals(REQUESTS_PER_CLIENT, got.size(), "replies to client " + c);
                for (int i = 0; i < REQUESTS_PER_CLIENT; i++)
                {
                    assertArrayEquals(transform(requests.get(c).get(i)), got.get(i),
                        "reply " + i + " to client " + c);
                }
            }

            // Every request was sent by port 1, delivered on port 0, answered once, and the answer delivered on 1.
            awaitExactly("port 1 qdisc packets", total, () -> pipeline.total(CounterType.QDISC_PACKETS, 1));
            awaitExactly("port 0 qdisc packets", total, () -> pipeline.total(CounterType.QDISC_PACKETS, 0));
            awaitExactly("port 1 completions", total, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 1));
            awaitExactly("port 0 completions", total, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            assertEquals(total, pipeline.total(CounterType.SOCKET_SENT, 1), "client sends");
            assertEquals(total, pipeline.total(CounterType.SOCKET_SENT, 0), "server replies");
            assertEquals(total, pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, server.id())));
            assertEquals(total, pipeline.total(CounterType.RX_DELIVERED, 0), "requests delivered");
            assertEquals(total, pipeline.total(CounterType.RX_DELIVERED, 1), "replies delivered");
            assertEquals(total, pipeline.total(CounterType.RX_PACKETS, 0));
            assertEquals(total, pipeline.total(CounterType.RX_PACKETS, 1));
            assertEquals(total, pipeline.counter(CounterType.SOCKET_DELIVERED, CounterScope.socket(0, server.id())));
            for (final UdpSocket client : clients)
            {
                assertEquals(REQUESTS_PER_CLIENT,
                    pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(1, client.id())), client.toString());
                assertEquals(REQUESTS_PER_CLIENT,
                    pipeline.counter(CounterType.SOCKET_DELIVERED, CounterScope.socket(1, client.id())),
                    client.toString());
            }
            for (int port = 0; port < 2; port++)
            {
                assertEquals(0, pipeline.total(CounterType.RX_DROP_NO_SOCKET, port));
                assertEquals(0, pipeline.total(CounterType.RX_DROP_SOCKET_RING_FULL, port));
                assertEquals(0, pipeline.total(CounterType.RX_DROP_MALFORMED, port));
                assertEquals(0, pipeline.total(CounterType.QDISC_DROP_OVERFLOW, port));
                assertEquals(0, pipeline.total(CounterType.SOCKET_SEND_REFUSED, port));
            }
            await("every packet completed", () -> server.inFlight() == 0 &&
                clients.stream().allMatch(client -> client.inFlight() == 0), server::toString);
        }
    }

    /**
     * The convenience path: a server delivering to an application actor gets {@link Datagram} records naming itself,
     * the sender, the payload and the RX queue; replying from outside the pipeline (the test thread) reaches the
     * client.
     */
    @Test
    void deliversDatagramsToAnActorAndRepliesFromOutside()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("rr-actor", 2,
            XpsPreset.NONE)))
        {
            final TestProbe<Datagrams> probe = KIT.createTestProbe();
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(53).deliverTo(probe.ref()));
            final ConcurrentLinkedQueue<byte[]> replies = new ConcurrentLinkedQueue<>();
            final ConcurrentLinkedQueue<Integer> replyRxQueues = new ConcurrentLinkedQueue<>();
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(6000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 53))
                .handler((socket, datagram) ->
                {
                    replyRxQueues.add(datagram.rxQueue());
                    replies.add(datagram.payload());
                }));

            final int count = 20;
            final List<byte[]> requests = new ArrayList<>();
            for (int i = 0; i < count; i++)
            {
                final byte[] request = ("query " + i).getBytes(StandardCharsets.US_ASCII);
                requests.add(request);
                send(client, request);
            }

            final List<Datagram> got = new ArrayList<>();
            final long deadline = System.nanoTime() + EndToEndSupport.WAIT_NANOS;
            while (got.size() < count && System.nanoTime() - deadline < 0)
            {
                got.addAll(probe.receiveMessage(Duration.ofSeconds(10)).datagrams());
            }
            assertEquals(count, got.size(), "datagrams delivered to the actor");
            probe.expectNoMessage(Duration.ofMillis(100));

            final Endpoint clientEndpoint = Endpoint.of("10.0.0.2", 6000);
            final int rxQueue = got.get(0).rxQueue();
            assertTrue(rxQueue >= 0 && rxQueue < 4, "rx queue " + rxQueue);
            for (int i = 0; i < count; i++)
            {
                final Datagram datagram = got.get(i);
                assertEquals(server.id(), datagram.socketId());
                assertEquals(clientEndpoint, datagram.source());
                assertArrayEquals(requests.get(i), datagram.payload(), "datagram " + i);
                // One flow, one RSS hash, one RX queue.
                assertEquals(rxQueue, datagram.rxQueue(), "datagram " + i);
            }
            assertEquals(count, pipeline.counter(CounterType.RX_DELIVERED, CounterScope.rxq(0, rxQueue)));
            assertEquals(count, pipeline.total(CounterType.RX_DELIVERED, 0));

            // The server has no handler thread: the test thread is its only sender.
            for (final Datagram datagram : got)
            {
                sendTo(server, datagram.source(), transform(datagram.payload()));
            }
            awaitExactly("replies at the client", count, replies::size);
            final List<byte[]> replyList = List.copyOf(replies);
            for (int i = 0; i < count; i++)
            {
                assertArrayEquals(transform(requests.get(i)), replyList.get(i), "reply " + i);
            }
            assertEquals(1, replyRxQueues.stream().distinct().count(), "one flow, one RX queue: " + replyRxQueues);
            assertEquals(count, pipeline.total(CounterType.RX_DELIVERED, 1));
            assertEquals(count, pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, server.id())));
            awaitExactly("port 0 qdisc packets", count, () -> pipeline.total(CounterType.QDISC_PACKETS, 0));
        }
    }

    /**
     * A datagram to a port nobody is bound to is dropped and counted under rx_drop_no_socket; a connected socket
     * receives only from its peer, so another peer's datagrams to the same address are "no socket" too (the lookup
     * matches a connected socket's full 5-tuple, and there is no unconnected socket to fall back to).
     */
    @Test
    void countsDatagramsForNoSocketAndForAConnectedSocketsOtherPeers()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), EndToEndSupport.loopConfig("rr-nosock", 2,
            XpsPreset.NONE)))
        {
            final UdpSocket sender = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1));
            for (int i = 0; i < 5; i++)
            {
                sendTo(sender, Endpoint.of("10.0.0.1", 9999), new byte[] {(byte)i});
            }
            awaitExactly("drops for port 9999", 5, () -> pipeline.total(CounterType.RX_DROP_NO_SOCKET, 0));
            assertEquals(0, pipeline.total(CounterType.RX_DELIVERED, 0));
            assertEquals(5, pipeline.total(CounterType.RX_PACKETS, 0));

            final AtomicInteger delivered = new AtomicInteger();
            final ConcurrentLinkedQueue<Endpoint> sources = new ConcurrentLinkedQueue<>();
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7).connect(Endpoint.of("10.0.0.2", 5000))
                .handler((socket, datagram) ->
                {
                    sources.add(datagram.source());
                    delivered.incrementAndGet();
                }));
            final UdpSocket stranger = pipeline.openUdp(SocketOptions.udp4(5001).onPort(1));
            for (int i = 0; i < 3; i++)
            {
                sendTo(sender, Endpoint.of("10.0.0.1", 7), new byte[] {'p', (byte)i});
            }
            for (int i = 0; i < 4; i++)
            {
                sendTo(stranger, Endpoint.of("10.0.0.1", 7), new byte[] {'s', (byte)i});
            }
            awaitExactly("drops including the stranger's", 5 + 4,
                () -> pipeline.total(CounterType.RX_DROP_NO_SOCKET, 0));
            awaitExactly("datagrams from the peer", 3, delivered::get);
            awaitExactly("delivered on port 0", 3, () -> pipeline.total(CounterType.RX_DELIVERED, 0));
            assertEquals(5 + 3 + 4, pipeline.total(CounterType.RX_PACKETS, 0));
            assertEquals(List.of(Endpoint.of("10.0.0.2", 5000), Endpoint.of("10.0.0.2", 5000),
                Endpoint.of("10.0.0.2", 5000)), List.copyOf(sources));
            assertEquals(3, pipeline.counter(CounterType.SOCKET_DELIVERED, CounterScope.socket(0, server.id())));
        }
    }
}
