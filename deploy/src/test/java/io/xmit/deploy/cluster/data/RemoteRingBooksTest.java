package io.xmit.deploy.cluster.data;

import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The split of what an edge published to a node that is gone, over a real UDP ring between two drivers on
 * 127.0.0.1: the node's socket reads 50 frames and stops (as a crashed node does); the edge's driver sends until the
 * node's window is full, and its producers fill the ring until it back-pressures. Every frame takes 128 bytes of the
 * log (Aeron's 32-byte header, xmit's 32, a 64-byte frame), the window is 16 KiB: 128 frames.
 */
class RemoteRingBooksTest
{
    private static final int STREAM = 0x2000_0001;
    private static final int WINDOW = 16 * 1024;
    private static final int FRAME = 64;
    private static final int FRAME_IN_LOG = 128;
    private static final int READ = 50;

    private final RingsConfig config = RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(64 * 1024);
    private final DataPlaneConfig dataPlane = DataPlaneConfig.forFrames(config).withReceiverWindowLength(WINDOW)
        .withTermLength(64 * 1024);
    private final NetworkRings edge = NetworkRings.launch("books-edge", config, dataPlane);
    private final NetworkRings node = NetworkRings.launch("books-node", config, dataPlane);

    @AfterEach
    void close()
    {
        node.close();
        edge.close();
    }

    @Test
    void readSentAndNeverSentAreSplitByTheDriversPositions()
    {
        final PacketSubscription socket = node.addSubscription("127.0.0.1:0", STREAM, new RingDoorbell(() -> { }));
        final PacketPublication ring = edge.addPublication(socket.localEndpoint(), STREAM);
        final RemoteRingBooks books = RemoteRingBooks.open(edge, ring, WINDOW);
        Await.until("the ring connected", () -> ring.isConnected() && socket.isConnected(), () -> ring);

        final long[] published = {0};
        for (; published[0] < 2 * READ; published[0]++)
        {
            assertTrue(send(ring) > 0);
        }
        final long[] read = {0};
        Await.exactly("frames the node's socket read", READ, () ->
        {
            read[0] += socket.poll((header, buffer, offset, length) -> { }, (int)(READ - read[0]));
            return read[0];
        });
        Await.exactly("the position the node's driver confirms", (long)READ * FRAME_IN_LOG, () ->
        {
            books.settle();
            return books.confirmedPosition();
        });

        // The producers go on until the ring refuses; the edge's driver sends a window past what was read, no more.
        Await.until("the ring full, its sender a window past what was read", () ->
        {
            final long result = send(ring);
            published[0] += result > 0 ? 1 : 0;
            return PacketPublication.BACK_PRESSURED == result && senderAt(books) == (long)READ * FRAME_IN_LOG + WINDOW;
        }, () -> books);
        Await.exactly("the edge's sender position", (long)READ * FRAME_IN_LOG + WINDOW, () -> senderAt(books));
        books.settle();
        ring.close();

        final long pastConfirmed = books.framesFrom(books.confirmedPosition());
        final long neverSent = books.framesFrom(books.senderPosition());
        assertEquals(List.of((long)READ, (long)WINDOW / FRAME_IN_LOG, published[0] - READ - WINDOW / FRAME_IN_LOG),
            List.of(published[0] - pastConfirmed, pastConfirmed - neverSent, neverSent),
            "read (confirmed by the node's driver), sent and unconfirmed, never sent; of " + published[0]);
        assertTrue(neverSent > 0, "the ring held frames the driver never sent: " + neverSent);
        books.close();
    }

    @Test
    void aRingWithoutSenderCountersIsRefusedByName()
    {
        final PacketPublication ipc = edge.rings().addPublication(7, new RingDoorbell(() -> { }));
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> RemoteRingBooks.open(edge, ipc, WINDOW));
        assertTrue(refused.getMessage().startsWith("ring stream 7 (registration " + ipc.registrationId() +
            ") has no sender position or limit"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RemoteRingBooks.open(edge, ipc, 0));
    }

    private static long senderAt(final RemoteRingBooks books)
    {
        books.settle();
        return books.senderPosition();
    }

    private static long send(final PacketPublication ring)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FRAME]);
        return ring.send(0, 1, 0, RingFrameHeader.NO_RX_QUEUE, 0, 0, 0, frame, 0, FRAME);
    }
}
