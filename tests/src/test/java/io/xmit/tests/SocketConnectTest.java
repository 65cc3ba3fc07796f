package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.transport.nic.NicFault;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static io.xmit.tests.EndToEndSupport.awaitExactly;
import static io.xmit.tests.EndToEndSupport.loopConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code UdpSocket.connect} and {@code disconnect} over the loop device: a change of peer is a change of the kernel's
 * cached route, which clears the socket's cached TX queue (kernel-semantics §1.4), so the next send picks again by XPS
 * or the flow hash even while the socket has packets in flight.
 */
@Timeout(60)
class SocketConnectTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int TX_QUEUES = 4;
    private static final Endpoint PEER = Endpoint.of("10.0.0.2", 9);

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    /** Without time-based reselection (§1.6), so only a dst change can move a busy socket's queue. */
    private static PipelineConfig config(final String name)
    {
        return loopConfig(name, 2, XpsPreset.NONE).toBuilder().txqReselection(Duration.ZERO).build();
    }

    /** The TX queue the flow hash gives {@code socket} sending to {@code peer} off the pipeline's CPUs (§3.3). */
    private static int hashQueue(final Pipeline pipeline, final UdpSocket socket, final Endpoint peer)
    {
        final FlowKey flow = new FlowKey().setIpv4(FlowKey.PROTO_UDP, (int)socket.local().lo(), (int)peer.lo(),
            socket.local().port(), peer.port());
        return pipeline.explain(socket.port(), flow, -1, -1).txQueue();
    }

    /** A peer on PEER's address whose flow hashes to another TX queue than {@code queue}. */
    private static Endpoint peerOnAnotherQueue(final Pipeline pipeline, final UdpSocket socket, final int queue)
    {
        for (int port = PEER.port() + 1; port < PEER.port() + 64; port++)
        {
            final Endpoint peer = Endpoint.of("10.0.0.2", port);
            if (hashQueue(pipeline, socket, peer) != queue)
            {
                return peer;
            }
        }
        return fail("63 peers all hash to tx-" + queue);
    }

    private static void stallEveryQueue(final Pipeline pipeline, final int value)
    {
        for (int q = 0; q < TX_QUEUES; q++)
        {
            pipeline.driver(0).fault(NicFault.TX_STALL, q, value);
        }
    }

    private static long completed(final Pipeline pipeline, final int queue)
    {
        return pipeline.counter(CounterType.TXQ_COMPLETED_PACKETS, CounterScope.txq(0, queue));
    }

    @Test
    void reconnectAndDisconnectClearTheCachedQueueSoTheNextSendPicksAgain()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("connect-reset")))
        {
            final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(6000).connect(PEER));
            final int first = hashQueue(pipeline, socket, PEER);
            final Endpoint other = peerOnAnotherQueue(pipeline, socket, first);
            final int second = hashQueue(pipeline, socket, other);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            stallEveryQueue(pipeline, 1);

            assertTrue(socket.send(payload, 0, 16) > 0);
            assertEquals(first, socket.queueState().txQueue());
            assertEquals(1, socket.inFlight(), "a packet in flight: ooo_okay is false from now on");

            socket.connect(other);
            assertEquals(other, socket.remote());
            assertEquals(-1, socket.queueState().txQueue(), "the new dst cleared the cache");
            assertTrue(socket.send(payload, 0, 16) > 0);
            assertEquals(second, socket.queueState().txQueue(), "picked by the hash, not kept from the old peer");

            socket.disconnect();
            assertNull(socket.remote());
            assertEquals(-1, socket.queueState().txQueue());
            assertEquals(SendResult.NOT_CONNECTED, socket.send(payload, 0, 16));
            assertTrue(socket.sendTo(PEER, payload, 0, 16) > 0);
            assertEquals(-1, socket.queueState().txQueue(), "with no dst nothing is cached");

            // §3.4, a kept departure: the connected hash is the 5-tuple's, so the same peer gives the same queue again
            // (the kernel would draw a new random sk_txhash).
            socket.connect(PEER);
            assertTrue(socket.send(payload, 0, 16) > 0);
            assertEquals(first, socket.queueState().txQueue());
            assertEquals(4, socket.inFlight());

            stallEveryQueue(pipeline, 0);
            awaitExactly("the other peer's datagram completed on tx-" + second, 1, () -> completed(pipeline, second));
            awaitExactly("the first peer's datagrams completed on tx-" + first, 3, () -> completed(pipeline, first));
            assertEquals(4, pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, socket.id())));
        }
    }

    @Test
    void aConnectTheSocketTableRefusesLeavesTheSocketAsItWas()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("connect-refused")))
        {
            final UdpSocket taken = pipeline.openUdp(SocketOptions.udp4(6001).connect(PEER));
            final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(6001).connect(Endpoint.of("10.0.0.2", 10)));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            assertTrue(socket.send(payload, 0, 16) > 0);
            final int cached = socket.queueState().txQueue();

            assertEquals("address in use: 10.0.0.1:6001 connected to 10.0.0.2:9 on port 0 is taken by socket " +
                taken.id(), assertThrows(IllegalStateException.class, () -> socket.connect(PEER)).getMessage());
            assertEquals(Endpoint.of("10.0.0.2", 10), socket.remote());
            assertEquals(-1, socket.queueState().txQueue(), "the kernel's connect resets the dst before it fails");
            assertTrue(socket.send(payload, 0, 16) > 0);
            assertEquals(cached, socket.queueState().txQueue());
            final Endpoint ipv6 = Endpoint.of("fd00::2", 9);
            assertEquals("cannot connect an IPv4 socket to " + ipv6,
                assertThrows(IllegalArgumentException.class, () -> socket.connect(ipv6)).getMessage());
            assertEquals(Endpoint.of("10.0.0.2", 10), socket.remote());
            assertEquals(cached, socket.queueState().txQueue(), "a refused family changes nothing");

            taken.close();
            assertEquals("socket " + taken.id() + " is closed",
                assertThrows(IllegalStateException.class, () -> taken.connect(PEER)).getMessage());
            assertEquals("socket " + taken.id() + " is closed",
                assertThrows(IllegalStateException.class, taken::disconnect).getMessage());
            socket.connect(PEER);
            assertEquals(PEER, socket.remote());
            awaitExactly("both datagrams through the books", 2, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            assertTrue(pipeline.verify().atRest(), pipeline.accounting().line());
        }
    }
}
