package io.xmit.deploy.cluster.data;

import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edge's books of one app node, with the test playing the app node by hand over real UDP rings (its socket's ring
 * from the edge, its TX streams to the edge) and the data-plane messages, so that what the edge has read when a
 * message arrives is the test's to choose.
 */
class EdgeBooksTest
{
    private static final String NODE = "akka://edge-books-test@127.0.0.1:1";

    private final EdgeByHand plane = new EdgeByHand("edge-books");

    @AfterEach
    void stop() throws Exception
    {
        plane.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSocketReleasedAloneHasItsLastSendRelayedBeforeItsMemberCloses()
    {
        final DataPlaneMessage.SocketBound bound = bind(0);
        final PacketClaim last = releaseWithLastSendHeld(bound, 1);
        books();
        last.commit();

        Await.until("the socket released and its last send read", () ->
        {
            final EdgeDataPlane.NodeBooks now = books();
            return 0 == now.sockets() && 1 == now.relayed() + now.rejected();
        }, this::books);
        final EdgeDataPlane.NodeBooks books = books();
        assertEquals(List.of(1L, 0L, 0L), List.of(books.relayed(), books.rejected(), books.refused()),
            "relayed, rejected, refused of the node");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSocketReopenedWhileItsFormerSelfWaitsForTheRelayBindsOnceThatOneClosed()
    {
        final DataPlaneMessage.SocketBound bound = bind(0);
        final PacketClaim last = releaseWithLastSendHeld(bound, 0);

        // Socket 0 again (sharding moved it back): same node, same index, same steering key.
        plane.edge.tell(plane.bindMessage(NODE, 0, AppDataPlane.RX_STREAM_BASE + 1));
        assertEquals(1, books().sockets(), "the reopened socket waits; the released one is still there");
        assertEquals(List.of(), List.copyOf(plane.toApp), "no reply to the bind yet");
        last.commit();

        Await.until("the reopened socket bound", () -> plane.toApp.peek() instanceof DataPlaneMessage.SocketBound,
            plane.toApp::toString);
        final DataPlaneMessage.SocketBound again = (DataPlaneMessage.SocketBound)plane.toApp.poll();
        final EdgeDataPlane.NodeBooks books = books();
        assertEquals(List.of(1, 1L, 0L), List.of(books.sockets(), books.relayed(), books.rejected()),
            "sockets, relayed, rejected of the node");
        assertTrue(again.socketId() != bound.socketId(), "a new member");
    }

    /** Binds socket {@code index} of {@code echo} as the node, reading its ring from the edge. */
    private DataPlaneMessage.SocketBound bind(final int index)
    {
        return plane.bind(NODE, index, AppDataPlane.RX_STREAM_BASE + index);
    }

    /**
     * Releases the socket with its last send, a 64-byte frame on TX queue {@code txq}, claimed when it stops and the
     * node reads its TX positions, so that it reaches the edge's stream only once the caller commits it: as a reply
     * the relay has not read yet when the release arrives.
     */
    private PacketClaim releaseWithLastSendHeld(final DataPlaneMessage.SocketBound bound, final int txq)
    {
        final PacketPublication[] tx = txStreams(bound);
        final PacketClaim last = tx[txq].newClaim();
        assertTrue(tx[txq].tryClaim(64, last) > 0);
        last.buffer().setMemory(last.frameOffset(), 64, (byte)0);
        last.putHeader(0, bound.socketId(), 0, RingFrameHeader.NO_RX_QUEUE, 0, RingFrameHeader.NO_TRACE_ID, 0);
        plane.edge.tell(new DataPlaneMessage.ReleaseSocket(bound.socketId(), 0, new long[] {tx[0].position(),
            tx[1].position()}));
        return last;
    }

    /** The node's TX streams to the edge, connected. */
    private PacketPublication[] txStreams(final DataPlaneMessage.SocketBound bound)
    {
        final PacketPublication[] tx = new PacketPublication[bound.txStreams().length];
        for (int q = 0; q < tx.length; q++)
        {
            tx[q] = plane.txStream(bound, q);
        }
        return tx;
    }

    /** The edge's books of the node, once it has handled every message sent to it before. */
    private EdgeDataPlane.NodeBooks books()
    {
        return plane.books().node(NODE);
    }
}
