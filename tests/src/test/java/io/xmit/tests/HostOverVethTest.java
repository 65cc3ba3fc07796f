package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.Stage;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.NetNamespaces;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An xmit UDP echo pipeline on one end of a veth pair with 4 TX and 4 RX queues (afpacket), the kernel's
 * stack on the other, each end in a network namespace of the test's own. The xmit end's interface has no address,
 * so everything the peer kernel hears back comes from xmit: ARP replies, ICMP echo replies, UDP echoes and ICMP port
 * unreachable. Needs root to create namespaces; skips, saying why, only where namespaces, veth or ip(8) are
 * unavailable (and the ping test where ping is).
 */
class HostOverVethTest
{
    private static final String XMIT_IF = "xmit0";
    private static final String PEER_IF = "peer0";
    private static final String XMIT_IP = "10.77.0.1";
    private static final String PEER_IP = "10.77.0.2";
    /** A second address of the peer, which xmit resolves itself (no one has asked xmit for it). */
    private static final String PEER_IP_2 = "10.77.0.3";
    /** A third, resolved by xmit while a sender floods it. */
    private static final String PEER_IP_3 = "10.77.0.4";
    /** A fourth, resolved by xmit after a crash of its host took the first datagram for it. */
    private static final String PEER_IP_4 = "10.77.0.5";
    /** A fifth, resolved while a sender floods it with numbered datagrams. */
    private static final String PEER_IP_5 = "10.77.0.6";
    /** An address on the link that no one has: its resolution fails. */
    private static final String NOBODY_IP = "10.77.0.99";
    private static final int ECHO_PORT = 7;
    private static final int CONNECTED_PORT = 8;
    private static final int CLOSED_PORT = 9;
    private static final int QUEUES = 4;
    private static final long DEADLINE_NANOS = 10_000_000_000L;

    private static final ActorTestKit KIT = ActorTestKit.create();

    private static String xmitNs;
    private static String peerNs;
    private static String unavailable;
    private static Pipeline pipeline;

    @BeforeAll
    static void createNamespacesAndStartThePipeline() throws Exception
    {
        final String id = Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0x7FFF_FFFF);
        xmitNs = "xmit-h-" + id + "-x";
        peerNs = "xmit-h-" + id + "-p";
        unavailable = NetNamespaces.createVethPair(xmitNs, peerNs, XMIT_IF, PEER_IF);
        if (null != unavailable)
        {
            return;
        }
        NetNamespaces.run("ip", "-n", xmitNs, "link", "set", XMIT_IF, "up");
        NetNamespaces.run("ip", "-n", peerNs, "addr", "add", PEER_IP + "/24", "dev", PEER_IF);
        NetNamespaces.run("ip", "-n", peerNs, "addr", "add", PEER_IP_2 + "/24", "dev", PEER_IF);
        NetNamespaces.run("ip", "-n", peerNs, "addr", "add", PEER_IP_3 + "/24", "dev", PEER_IF);
        NetNamespaces.run("ip", "-n", peerNs, "addr", "add", PEER_IP_4 + "/24", "dev", PEER_IF);
        NetNamespaces.run("ip", "-n", peerNs, "addr", "add", PEER_IP_5 + "/24", "dev", PEER_IF);
        NetNamespaces.run("ip", "-n", peerNs, "link", "set", PEER_IF, "up");

        final PortAddress defaults = PortAddress.defaultForInterface();
        final PipelineConfig config = PipelineConfig.builder().name("hostveth").cpus(2)
            .qdiscRingTerm(1 << 20).socketRingTerm(1 << 16)
            .device("afpacket:if=" + XMIT_IF + ",queues=" + QUEUES + ",ring=256")
            .ports(List.of(new PortAddress(defaults.mac(), 0x0A4D_0001, defaults.ipv6Hi(),
                defaults.ipv6Lo(), defaults.peerMac(), 24, 0, true, true)))
            .xpsPreset(XpsPreset.RXQS)
            .build();
        // The device's packet sockets are made in xmit's namespace, by a thread that entered it.
        pipeline = NetNamespaces.inNamespace(xmitNs, () -> Pipeline.start(KIT.system(), config));
        final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
        pipeline.openUdp(SocketOptions.udp4(ECHO_PORT).receiveBuffer(1 << 20).handler((socket, datagram) ->
        {
            reply.putBytes(0, datagram.buffer(), datagram.payloadOffset(), datagram.payloadLength());
            // Only a full ring is worth a retry: spinning on STOPPED would hold the CPU the stop waits for.
            while (SendResult.BACK_PRESSURED == socket.reply(datagram, reply, 0, datagram.payloadLength()))
            {
                Thread.onSpinWait();
            }
        }));
    }

    @AfterAll
    static void stopAndRemoveNamespaces()
    {
        try
        {
            if (null != pipeline)
            {
                pipeline.close();
            }
        }
        finally
        {
            KIT.shutdownTestKit();
            // Removing a namespace removes the veth end in it, and with it the other end.
            NetNamespaces.runQuietly("ip", "netns", "del", xmitNs);
            NetNamespaces.runQuietly("ip", "netns", "del", peerNs);
        }
    }

    @Test
    void kernelPingGetsEchoReplies() throws Exception
    {
        assumeNamespaces();
        final String noPing = NetNamespaces.missing("ping", "iputils-ping");
        NetNamespaces.assumeAvailable(noPing);
        final long before = counter(CounterType.HOST_ICMP_ECHO_REPLIES);
        // ip netns exec … ping exits 0 only if replies came back.
        NetNamespaces.run("ip", "netns", "exec", peerNs, "ping", "-c", "3", "-i", "0.2", "-W", "2", XMIT_IP);
        assertEquals(3, counter(CounterType.HOST_ICMP_ECHO_REPLIES) - before);
    }

    @Test
    void aKernelUdpClientGetsEveryEchoByteForByteFromManySourcePorts() throws Exception
    {
        assumeNamespaces();
        final int clients = 64;
        final int perClient = 4;
        final List<DatagramChannel> channels = NetNamespaces.inNamespace(peerNs, () -> udpSockets(PEER_IP, 0, clients));
        try
        {
            // One round trip first, so the peer kernel has resolved xmit before the burst (its ARP queue is short).
            channels.get(0).send(ByteBuffer.allocate(8).putInt(0, -1), new InetSocketAddress(XMIT_IP, ECHO_PORT));
            assertEquals(1, receiveAll(channels.subList(0, 1), 1));
            final Random random = new Random(8);
            final byte[][][] sent = new byte[clients][perClient][];
            for (int k = 0; k < perClient; k++)
            {
                for (int c = 0; c < clients; c++)
                {
                    final byte[] payload = new byte[8 + random.nextInt(1000)];
                    random.nextBytes(payload);
                    ByteBuffer.wrap(payload).putInt(0, c).putInt(4, k);
                    sent[c][k] = payload;
                    channels.get(c).send(ByteBuffer.wrap(payload), new InetSocketAddress(XMIT_IP, ECHO_PORT));
                }
            }
            final ByteBuffer datagram = ByteBuffer.allocate(2048);
            int echoes = 0;
            final boolean[][] seen = new boolean[clients][perClient];
            final long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (echoes < clients * perClient && System.nanoTime() < deadline)
            {
                boolean any = false;
                for (int c = 0; c < clients; c++)
                {
                    datagram.clear();
                    if (null == channels.get(c).receive(datagram))
                    {
                        continue;
                    }
                    any = true;
                    final byte[] echo = Arrays.copyOf(datagram.array(), datagram.position());
                    final ByteBuffer fields = ByteBuffer.wrap(echo);
                    assertEquals(c, fields.getInt(0), "an echo comes back to the port it was sent from");
                    final int k = fields.getInt(4);
                    assertArrayEquals(sent[c][k], echo, "echo " + k + " of client " + c);
                    assertTrue(!seen[c][k], "echo " + k + " of client " + c + " twice");
                    seen[c][k] = true;
                    echoes++;
                }
                if (!any)
                {
                    Thread.sleep(1);
                }
            }
            assertEquals(clients * perClient, echoes, () -> "echoes; " + pipeline.counters());
        }
        finally
        {
            closeAll(channels);
        }
    }

    @Test
    void aDatagramToAClosedPortIsReportedToTheKernelSocketAsPortUnreachable() throws Exception
    {
        assumeNamespaces();
        final long before = counter(CounterType.HOST_ICMP_PORT_UNREACHABLE);
        try (DatagramChannel channel = NetNamespaces.inNamespace(peerNs, () ->
        {
            final DatagramChannel connected = DatagramChannel.open(StandardProtocolFamily.INET);
            connected.bind(new InetSocketAddress(PEER_IP, 0));
            connected.connect(new InetSocketAddress(XMIT_IP, CLOSED_PORT));
            connected.configureBlocking(false);
            return connected;
        }))
        {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            // The kernel reports the ICMP error to the connected socket as ECONNREFUSED on its next receive.
            assertThrows(PortUnreachableException.class, () ->
            {
                final ByteBuffer buffer = ByteBuffer.allocate(64);
                final long deadline = System.nanoTime() + DEADLINE_NANOS;
                while (System.nanoTime() < deadline)
                {
                    channel.read(buffer);
                    Thread.sleep(1);
                }
            }, () -> "no port unreachable; " + pipeline.counters());
        }
        assertEquals(1, counter(CounterType.HOST_ICMP_PORT_UNREACHABLE) - before);
    }

    /** kernel-semantics §2.4 and xps_rxqs: a connected socket replies on the TX queue of its flow's RX queue. */
    @Test
    void withXpsRxqsOneToOneRepliesLeaveOnTheTxQueueOfTheirRxQueue() throws Exception
    {
        assumeNamespaces();
        final int flows = 32;
        final int perFlow = 4;
        final List<UdpSocket> servers = new ArrayList<>();
        final List<DatagramChannel> channels = NetNamespaces.inNamespace(peerNs,
            () -> udpSockets(PEER_IP, 41000, flows));
        try
        {
            for (int f = 0; f < flows; f++)
            {
                final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                servers.add(pipeline.openUdp(SocketOptions.udp4(CONNECTED_PORT)
                    .connect(Endpoint.of(PEER_IP, 41000 + f))
                    .handler((socket, datagram) ->
                    {
                        reply.putBytes(0, datagram.buffer(), datagram.payloadOffset(), datagram.payloadLength());
                        while (SendResult.BACK_PRESSURED == socket.send(reply, 0, datagram.payloadLength()))
                        {
                            Thread.onSpinWait();
                        }
                    })));
            }
            final long[] delivered = new long[QUEUES];
            final long[] transmitted = new long[QUEUES];
            for (int q = 0; q < QUEUES; q++)
            {
                delivered[q] = pipeline.counter(CounterType.RX_DELIVERED, CounterScope.rxq(0, q));
                transmitted[q] = socketTransmitted(q);
            }
            for (int k = 0; k < perFlow; k++)
            {
                for (int f = 0; f < flows; f++)
                {
                    channels.get(f).send(ByteBuffer.allocate(16).putInt(0, f).putInt(4, k),
                        new InetSocketAddress(XMIT_IP, CONNECTED_PORT));
                }
            }
            assertEquals(flows * perFlow, receiveAll(channels, flows * perFlow));
            // The kernel may hold an echo before xmit's counters show the burst that sent it: wait for them.
            final long expected = flows * perFlow;
            Await.exactly("echoes counted on the TX queues", expected, () ->
            {
                long sum = 0;
                for (int q = 0; q < QUEUES; q++)
                {
                    sum += socketTransmitted(q) - transmitted[q];
                }
                return sum;
            });
            int queuesUsed = 0;
            for (int q = 0; q < QUEUES; q++)
            {
                final long rx = pipeline.counter(CounterType.RX_DELIVERED, CounterScope.rxq(0, q)) - delivered[q];
                final long tx = socketTransmitted(q) - transmitted[q];
                assertEquals(rx, tx, "replies on TX queue " + q + " = datagrams delivered from RX queue " + q + "; " +
                    pipeline.counters());
                queuesUsed += rx > 0 ? 1 : 0;
            }
            assertTrue(queuesUsed > 1, "the flows spread over " + queuesUsed + " RX queue(s)");
        }
        finally
        {
            for (final UdpSocket server : servers)
            {
                server.close();
            }
            closeAll(channels);
        }
    }

    @Test
    void xmitResolvesANewNextHopByArpAndSendsTheFramesItHeld() throws Exception
    {
        assumeNamespaces();
        final int frames = 3;
        final long held = counter(CounterType.NEIGH_HELD);
        final long requests = counter(CounterType.HOST_ARP_REQUESTS);
        final long drops = counter(CounterType.NEIGH_DROP_HOLD_FULL) + counter(CounterType.NEIGH_DROP_UNRESOLVED);
        final List<DatagramChannel> receivers = NetNamespaces.inNamespace(peerNs, () -> udpSockets(PEER_IP_2, 42000, 1));
        try (UdpSocket client = pipeline.openUdp(SocketOptions.udp4(43000).connect(Endpoint.of(PEER_IP_2, 42000))))
        {
            for (int i = 0; i < frames; i++)
            {
                final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocate(16).putInt(0, 0).putInt(4, i));
                assertTrue(client.send(payload, 0, 16) > 0, "send " + i);
            }
            assertEquals(frames, receiveAll(receivers, frames));
            // The first is held; the others too unless the answer came before the host actor saw them.
            final long heldNow = counter(CounterType.NEIGH_HELD) - held;
            assertTrue(heldNow >= 1 && heldNow <= frames, heldNow + " held while 10.77.0.3 resolved");
            assertTrue(counter(CounterType.HOST_ARP_REQUESTS) > requests, "xmit asked who has 10.77.0.3");
            assertEquals(drops, counter(CounterType.NEIGH_DROP_HOLD_FULL) + counter(CounterType.NEIGH_DROP_UNRESOLVED));
            // The released frames complete like any other: the socket has nothing in flight once they left.
            Await.exactly("frames the socket has no longer in flight", frames, () -> frames - client.inFlight());
        }
        finally
        {
            closeAll(receivers);
        }
    }

    /**
     * A sender that floods an unresolved next hop must not crowd out the ARP reply that resolves it: the datagrams the
     * host holds travel in a ring of their own (in one shared ring, the flood filled it and the reply was dropped,
     * so the neighbour never resolved while the flood went on).
     */
    @Test
    void aNextHopResolvesWhileASenderFloodsIt() throws Exception
    {
        assumeNamespaces();
        final List<DatagramChannel> receivers = NetNamespaces.inNamespace(peerNs, () -> udpSockets(PEER_IP_3, 42100, 1));
        try (UdpSocket client = pipeline.openUdp(SocketOptions.udp4(43100).connect(Endpoint.of(PEER_IP_3, 42100))))
        {
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocate(16));
            final ByteBuffer datagram = ByteBuffer.allocate(2048);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            long sent = 0;
            boolean arrived = false;
            while (!arrived && System.nanoTime() < deadline)
            {
                if (client.send(payload, 0, 16) > 0)
                {
                    sent++;
                }
                if (0 == sent % 256)
                {
                    datagram.clear();
                    arrived = null != receivers.getFirst().receive(datagram);
                }
            }
            assertTrue(arrived, "nothing reached " + PEER_IP_3 + " in 3 s of flooding (" + sent + " sends): " +
                "ARP requests " + counter(CounterType.HOST_ARP_REQUESTS) + ", host ring full " +
                counter(CounterType.HOST_DROP_RING_FULL));
            assertEquals(0, counter(CounterType.HOST_DROP_RING_FULL), "the ARP replies found room");
        }
        finally
        {
            closeAll(receivers);
        }
    }

    /**
     * A next hop no one answers for: the neighbour holds the 3 newest datagrams (the older ones are dropped as
     * hold-full), asks 3 times a second apart, then gives up and drops what it held as unresolved; every datagram is
     * counted once and released from its socket.
     */
    @Test
    void datagramsToANextHopNoOneAnswersForAreCountedAsUnresolved() throws Exception
    {
        assumeNamespaces();
        final int datagrams = 5;
        final long holdFull = counter(CounterType.NEIGH_DROP_HOLD_FULL);
        final long unresolved = counter(CounterType.NEIGH_DROP_UNRESOLVED);
        final long requests = counter(CounterType.HOST_ARP_REQUESTS);
        try (UdpSocket client = pipeline.openUdp(SocketOptions.udp4(43400).connect(Endpoint.of(NOBODY_IP, 9))))
        {
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocate(16));
            for (int i = 0; i < datagrams; i++)
            {
                assertTrue(client.send(payload, 0, 16) > 0, "send " + i);
            }
            Await.exactly("datagrams the socket has no longer in flight", datagrams,
                () -> datagrams - client.inFlight());
            assertEquals(datagrams - 3, counter(CounterType.NEIGH_DROP_HOLD_FULL) - holdFull);
            assertEquals(3, counter(CounterType.NEIGH_DROP_UNRESOLVED) - unresolved);
            assertTrue(counter(CounterType.HOST_ARP_REQUESTS) - requests >= 3, "3 requests before giving up");
        }
    }

    /**
     * While its next hop resolves, a socket's datagrams stay in order: those it sends once the neighbour is known do not
     * overtake those the host still has to send (the held ones, and those waiting in the host's ring). Some are
     * dropped (the neighbour holds 3, the peer's socket buffer fills), none arrives out of order.
     */
    @Test
    void datagramsSentWhileTheirNextHopResolvesArriveInOrder() throws Exception
    {
        assumeNamespaces();
        final int datagrams = 20_000;
        final List<DatagramChannel> receivers = NetNamespaces.inNamespace(peerNs, () -> udpSockets(PEER_IP_5, 42300, 1));
        try (UdpSocket client = pipeline.openUdp(SocketOptions.udp4(43300).connect(Endpoint.of(PEER_IP_5, 42300))))
        {
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocate(16));
            final ByteBuffer datagram = ByteBuffer.allocate(2048).order(ByteOrder.nativeOrder());
            final List<Integer> arrived = new ArrayList<>();
            int sent = 0;
            final long sendDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sent < datagrams)
            {
                payload.putInt(0, sent);
                final long result = client.send(payload, 0, 16);
                if (result > 0)
                {
                    sent++;
                }
                else
                {
                    assertEquals(SendResult.BACK_PRESSURED, result, "send " + sent + " refused");
                    assertTrue(System.nanoTime() - sendDeadline < 0, "sent only " + sent + " in 30 s");
                }
                datagram.clear();
                if (null != receivers.getFirst().receive(datagram))
                {
                    arrived.add(datagram.getInt(0));
                }
            }
            Await.exactly("datagrams the socket has no longer in flight", datagrams,
                () -> datagrams - client.inFlight());
            datagram.clear();
            while (null != receivers.getFirst().receive(datagram))
            {
                arrived.add(datagram.getInt(0));
                datagram.clear();
            }
            assertTrue(arrived.size() > datagrams / 2, arrived.size() + " of " + datagrams + " arrived");
            for (int i = 1; i < arrived.size(); i++)
            {
                assertTrue(arrived.get(i) > arrived.get(i - 1), "datagram " + arrived.get(i) + " arrived after " +
                    arrived.get(i - 1) + " (arrival " + i + " of " + arrived.size() + ")");
            }
        }
        finally
        {
            closeAll(receivers);
        }
    }

    /**
     * Supervision of the host: its actor crashes on the first frame it takes (a datagram handed over to hold, or, if a
     * frame from the peer came first, that frame). The actor restarts, the frame that failed is counted, never retried,
     * and its socket released; what follows is held, resolved and sent as if nothing had happened.
     */
    @Test
    void aHostThatCrashesOnAFrameCountsItAndGoesOn() throws Exception
    {
        assumeNamespaces();
        final int frames = 3;
        final CounterScope host = CounterScope.port(0).withStage(CounterScope.Stage.HOST);
        final long restarts = pipeline.counter(CounterType.STAGE_RESTARTS, host);
        final long holdFailed = counter(CounterType.NEIGH_DROP_FAILED);
        final long frameFailed = counter(CounterType.HOST_DROP_FAILED);
        final List<DatagramChannel> receivers = NetNamespaces.inNamespace(peerNs, () -> udpSockets(PEER_IP_4, 42200, 1));
        try (UdpSocket client = pipeline.openUdp(SocketOptions.udp4(43200).connect(Endpoint.of(PEER_IP_4, 42200))))
        {
            pipeline.injectCrash(Stage.HOST, 0, 0, 1);
            for (int i = 0; i < frames; i++)
            {
                final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocate(16).putInt(0, 0).putInt(4, i));
                assertTrue(client.send(payload, 0, 16) > 0, "send " + i);
            }
            Await.exactly("the host stage's restart", restarts + 1,
                () -> pipeline.counter(CounterType.STAGE_RESTARTS, host));
            final long lost = counter(CounterType.NEIGH_DROP_FAILED) - holdFailed;
            assertEquals(1, lost + counter(CounterType.HOST_DROP_FAILED) - frameFailed, "one frame failed, once");
            assertEquals(frames - lost, receiveAll(receivers, (int)(frames - lost)));
            // The failed datagram released its socket as the sent ones did, and nothing else arrives.
            Await.exactly("frames the socket has no longer in flight", frames, () -> frames - client.inFlight());
            assertNull(receivers.getFirst().receive(ByteBuffer.allocate(2048)), "a datagram sent twice");
        }
        finally
        {
            closeAll(receivers);
        }
        assertThrows(IllegalArgumentException.class, () -> pipeline.injectCrash(Stage.HOST, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> pipeline.injectCrash(Stage.HOST, 1, 0, 1));
    }

    private static void assumeNamespaces()
    {
        NetNamespaces.assumeAvailable(unavailable);
    }

    private static long counter(final CounterType type)
    {
        return pipeline.counter(type, CounterScope.port(0));
    }

    /** What sockets sent on TX queue {@code txq}: the queue's packets less the host's own frames. */
    private static long socketTransmitted(final int txq)
    {
        final CounterScope scope = CounterScope.txq(0, txq);
        return pipeline.counter(CounterType.QDISC_PACKETS, scope) - pipeline.counter(CounterType.HOST_TX, scope);
    }

    private static int receiveAll(final List<DatagramChannel> channels, final int expected) throws Exception
    {
        final ByteBuffer datagram = ByteBuffer.allocate(2048);
        int received = 0;
        final long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (received < expected && System.nanoTime() < deadline)
        {
            boolean any = false;
            for (final DatagramChannel channel : channels)
            {
                datagram.clear();
                if (null != channel.receive(datagram))
                {
                    any = true;
                    received++;
                }
            }
            if (!any)
            {
                Thread.sleep(1);
            }
        }
        return received;
    }

    /** {@code count} non-blocking UDP sockets on {@code address}, ports {@code firstPort}… (0: the kernel's pick). */
    private static List<DatagramChannel> udpSockets(final String address, final int firstPort, final int count)
        throws Exception
    {
        final List<DatagramChannel> channels = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
            channel.bind(new InetSocketAddress(address, 0 == firstPort ? 0 : firstPort + i));
            channel.configureBlocking(false);
            channels.add(channel);
        }
        return channels;
    }

    private static void closeAll(final List<DatagramChannel> channels) throws Exception
    {
        for (final DatagramChannel channel : channels)
        {
            channel.close();
        }
    }
}
