package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.actors.SendResult;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remote socket's TX queue follows the edge's queue map after bind ({@link DataPlaneMessage.QueueMapChanged}),
 * and, connected, its cached queue and recorded RX queue as a local socket's, aged by the edge's completions: its TX
 * streams are IPC rings here ({@link IpcTxStreams}), one per TX queue of the edge's device, which nothing relays.
 */
class RemoteUdpSocketTest
{
    private static final int STREAM = 7100;
    private static final int FLOWS = 64;

    private final IpcTxStreams rings = new IpcTxStreams("remote-socket-test", STREAM);
    private final PacketSubscription[] streams = rings.streams;
    /** What the sockets told the edge. */
    private final List<DataPlaneMessage.SocketPeer> toEdge = new ArrayList<>();

    @AfterEach
    void close()
    {
        rings.close();
    }

    @Test
    void aChangedQueueMapMovesTheNextSendsToItsQueues()
    {
        final RemoteUdpSocket socket = socket(new long[0]);

        assertEquals(FLOWS, sendToEveryFlow(socket));
        final List<Integer> spread = drain();
        assertTrue(spread.get(0) > 0 && spread.get(1) > 0, "the hash uses both TX queues: " + spread);

        // The edge's port goes down to one TX queue: every next send takes queue 0 (§1.1(b)).
        socket.changeQueueMap(new DataPlaneMessage.QueueMapChanged(0, 1, 2, new long[0]));
        assertEquals(FLOWS, sendToEveryFlow(socket));
        assertEquals(List.of(FLOWS, 0), drain(), "frames on TX queues 0 and 1 after the count went to 1");

        // Back to two, and the count never exceeds the TX streams the node has.
        socket.changeQueueMap(new DataPlaneMessage.QueueMapChanged(0, 8, 2, new long[] {0b01, 0b10}));
        assertEquals(List.of(2, 2, true, true), List.of(socket.queueMap().realNumTx(),
            socket.queueMap().numTxQueues(), socket.queueMap().rxqMapEnabled(),
            socket.queueMap().xpsRxqs(1).get(1)), "real and allocated TX queues, xps_rxqs of TX queue 1");
        assertEquals(FLOWS, sendToEveryFlow(socket));
        assertEquals(spread, drain(), "the same flows on the same queues as before the change");
    }

    /**
     * Connected, the socket records the RX queue of what it receives (§2.4), picks its TX queue by it under
     * {@code xps_rxqs} and caches it (§1.2); the cache stands while its packets are in flight, even when XPS would now
     * say another queue (§1.5), and the next send after the edge reported them completed is a fresh pick.
     */
    @Test
    void aConnectedSocketKeepsItsCachedQueueWhileInFlightAndMovesOnceTheEdgeCompletedThem()
    {
        final RemoteUdpSocket socket = socket(new long[] {0b01, 0b10});
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
        socket.connect(Endpoint.of("10.0.0.2", 20_000));
        socket.recordRxQueue(1);
        assertTrue(socket.send(payload, 0, 16) > 0);
        assertEquals(List.of(1, 1, 1L), List.of(socket.queueState().rxQueue(), socket.queueState().txQueue(),
            socket.inFlight()), "RX queue recorded, TX queue 1 by xps_rxqs cached, one in flight");

        socket.recordRxQueue(0);
        assertTrue(socket.send(payload, 0, 16) > 0);
        assertEquals(List.of(0, 1, 2L), List.of(socket.queueState().rxQueue(), socket.queueState().txQueue(),
            socket.inFlight()), "XPS now says 0; the cache holds 1 while packets are in flight");

        socket.completedUpTo(2);
        socket.completedUpTo(1);
        assertEquals(0, socket.inFlight(), "the edge's totals count down; a smaller, older one does nothing");
        assertTrue(socket.send(payload, 0, 16) > 0);
        assertEquals(List.of(0, 1L), List.of(socket.queueState().txQueue(), socket.inFlight()),
            "nothing in flight: ooo_okay, a fresh pick by the RX queue");
        assertEquals(List.of(1, 2), drain(), "frames on TX queues 0 and 1");

        socket.disconnect();
        assertEquals(List.of(SendResult.NOT_CONNECTED, -1), List.of(socket.send(payload, 0, 16),
            socket.queueState().txQueue()), "disconnected: no route, nothing cached");
        assertEquals(List.of(new DataPlaneMessage.SocketPeer(5, 0x0A00_0002, 20_000),
            new DataPlaneMessage.SocketPeer(5, 0, 0)), toEdge, "one message to the edge per connect and disconnect");
    }

    /** Unconnected, as every remote socket was: no recorded RX queue, nothing cached, no peer to send to. */
    @Test
    void anUnconnectedSocketNeverCachesNorRecordsItsRxQueue()
    {
        final RemoteUdpSocket socket = socket(new long[] {0b01, 0b10});
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
        socket.recordRxQueue(1);
        assertEquals(SendResult.NOT_CONNECTED, socket.send(payload, 0, 16));
        assertEquals(FLOWS, sendToEveryFlow(socket));
        assertEquals(List.of(-1, -1), List.of(socket.queueState().rxQueue(), socket.queueState().txQueue()));
        assertEquals(List.of(), toEdge, "nothing told to the edge");
        final List<Integer> spread = drain();
        assertTrue(spread.get(0) > 0 && spread.get(1) > 0, "by the flow hash, over both TX queues: " + spread);
        assertEquals("socket 5 of service 'echo' cannot connect to " + Endpoint.of("10.0.0.2", 0) + ": a remote " +
            "socket connects to an IPv4 address and a port other than 0", assertThrows(IllegalArgumentException.class,
                () -> socket.connect(Endpoint.of("10.0.0.2", 0))).getMessage());
    }

    private RemoteUdpSocket socket(final long[] xpsRxqs)
    {
        return new RemoteUdpSocket(new DataPlaneMessage.SocketBound("echo", 0, 5, 0, "127.0.0.1:40120",
            new int[] {STREAM, STREAM + 1}, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L, 0x0A00_0001, 7, 2, xpsRxqs,
            2048, 2), rings.tx, FlowHasher.random(), toEdge::add);
    }

    private static int sendToEveryFlow(final RemoteUdpSocket socket)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
        int sent = 0;
        for (int f = 0; f < FLOWS; f++)
        {
            sent += socket.sendTo(Endpoint.of("10.0.0.2", 20_000 + f), payload, 0, payload.capacity()) > 0 ? 1 : 0;
        }
        return sent;
    }

    /** What each TX stream holds, taken. */
    private List<Integer> drain()
    {
        final int[] frames = new int[2];
        for (int q = 0; q < 2; q++)
        {
            int taken;
            while ((taken = streams[q].poll((header, buffer, offset, length) -> { }, FLOWS)) > 0)
            {
                frames[q] += taken;
            }
        }
        return List.of(frames[0], frames[1]);
    }
}
