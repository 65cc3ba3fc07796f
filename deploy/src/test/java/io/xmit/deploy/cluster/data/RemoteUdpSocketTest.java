package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remote socket's TX queue follows the edge's queue map after bind ({@link DataPlaneMessage.QueueMapChanged}):
 * its TX streams are IPC rings here ({@link IpcTxStreams}), one per TX queue of the edge's device.
 */
class RemoteUdpSocketTest
{
    private static final int STREAM = 7100;
    private static final int FLOWS = 64;

    private final IpcTxStreams rings = new IpcTxStreams("remote-socket-test", STREAM);
    private final PacketSubscription[] streams = rings.streams;

    @AfterEach
    void close()
    {
        rings.close();
    }

    @Test
    void aChangedQueueMapMovesTheNextSendsToItsQueues()
    {
        final RemoteUdpSocket socket = new RemoteUdpSocket(new DataPlaneMessage.SocketBound("echo", 0, 5, 0,
            "127.0.0.1:40120", new int[] {STREAM, STREAM + 1}, 0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L,
            0x0A00_0001, 7, 2, new long[0], 2048, 2), rings.tx, FlowHasher.random());

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
