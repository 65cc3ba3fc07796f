package io.xmit.deploy.cluster.data;

import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

/**
 * Two IPC rings standing in for an app node's TX streams to the edge, one per TX queue, and their readers: a socket
 * claims in a {@link PacketPublication} and the relay reads a {@link PacketSubscription} either way, and an IPC ring
 * holds a frame the moment it is committed.
 */
final class IpcTxStreams implements AutoCloseable
{
    final PacketPublication[] tx;
    final PacketSubscription[] streams;
    private final Rings rings;

    /** Streams {@code firstStream} and the next, connected when this returns. */
    IpcTxStreams(final String name, final int firstStream)
    {
        rings = Rings.launch(name, RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024));
        final RingDoorbell doorbell = new RingDoorbell(() -> { });
        tx = new PacketPublication[] {rings.addPublication(firstStream, doorbell),
            rings.addPublication(firstStream + 1, doorbell)};
        streams = new PacketSubscription[] {rings.addSubscription(firstStream, doorbell),
            rings.addSubscription(firstStream + 1, doorbell)};
        // Each stream's image is there before anything is sent (the client learns of it asynchronously).
        for (int q = 0; q < 2; q++)
        {
            final PacketSubscription stream = streams[q];
            final PacketPublication publication = tx[q];
            Await.until("TX stream " + q + " connected", () -> stream.isConnected() && publication.isConnected(),
                () -> stream);
        }
    }

    @Override
    public void close()
    {
        rings.close();
    }
}
