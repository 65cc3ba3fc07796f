package io.xmit.deploy.cluster.data;

import akka.actor.ExtendedActorSystem;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Behaviors;
import akka.serialization.SerializationExtension;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.Endpoint;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every data-plane message survives the serializer unchanged; what it cannot read it refuses by name. */
class DataPlaneSerializerTest
{
    private static ActorSystem<Void> system;
    private static DataPlaneSerializer serializer;
    private static ActorRef<DataPlaneMessage> ref;

    @BeforeAll
    static void start()
    {
        system = ActorSystem.create(Behaviors.empty(), "serializer-test",
            ConfigFactory.parseString("akka.loglevel = WARNING").withFallback(ConfigFactory.load()));
        serializer = new DataPlaneSerializer((ExtendedActorSystem)Adapter.toClassic(system));
        ref = system.systemActorOf(Behaviors.<DataPlaneMessage>ignore(), "reply-to", Props.empty());
    }

    @AfterAll
    static void stop()
    {
        system.terminate();
    }

    @Test
    void everyMessageRoundTrips()
    {
        final List<DataPlaneMessage> messages = List.of(
            new DataPlaneMessage.BindSocket("echo", 3, "akka://c@127.0.0.1:25521", -77L, "127.0.0.1:40121",
                0x2000_0001, ref, 128 * 1024),
            new DataPlaneMessage.BindRefused("echo", 3, "no service 'echo' on this edge; it has [dns]"),
            new DataPlaneMessage.SocketReady(12),
            new DataPlaneMessage.Receipt(12, 1L << 35),
            new DataPlaneMessage.UnbindSocket(12, ref),
            new DataPlaneMessage.SocketUnbound(12, 1L << 40),
            new DataPlaneMessage.NodeDrained("akka://c@127.0.0.1:25521", 12_345L));
        for (final DataPlaneMessage message : messages)
        {
            assertEquals(message, roundTrip(message), serializer.manifest(message));
        }
    }

    @Test
    void messagesWithArraysRoundTripFieldByField()
    {
        final DataPlaneMessage.SocketBound bound = new DataPlaneMessage.SocketBound("echo", 1, 7, 1, "127.0.0.1:40120",
            new int[] {0x4000_0000, 0x4000_0001}, 0x0200_0000_0001L, 0x0200_0000_0002L, 0x0A00_0001, 7, 4,
            new long[] {0b0011, 0b1100}, 2048, 3);
        final DataPlaneMessage.SocketBound back = (DataPlaneMessage.SocketBound)roundTrip(bound);
        assertEquals(List.of(bound.service(), bound.index(), bound.socketId(), bound.port(), bound.edgeEndpoint(),
                bound.sourceMac(), bound.destinationMac(), bound.ipv4(), bound.localPort(), bound.rxQueues(),
                bound.maxFrameLength(), bound.realNumTx()),
            List.of(back.service(), back.index(), back.socketId(), back.port(), back.edgeEndpoint(), back.sourceMac(),
                back.destinationMac(), back.ipv4(), back.localPort(), back.rxQueues(), back.maxFrameLength(),
                back.realNumTx()));
        assertArrayEquals(bound.txStreams(), back.txStreams());
        assertArrayEquals(bound.xpsRxqs(), back.xpsRxqs());

        final DataPlaneMessage.NodeLeaving leaving = new DataPlaneMessage.NodeLeaving("akka://c@h:1", 5L,
            new long[] {0, 4096, 1L << 33}, ref);
        final DataPlaneMessage.NodeLeaving leavingBack = (DataPlaneMessage.NodeLeaving)roundTrip(leaving);
        assertEquals(List.of(leaving.node(), leaving.incarnation(), leaving.replyTo()),
            List.of(leavingBack.node(), leavingBack.incarnation(), leavingBack.replyTo()));
        assertArrayEquals(leaving.txPositions(), leavingBack.txPositions());

        final DataPlaneMessage.ReleaseSocket release = new DataPlaneMessage.ReleaseSocket(12, 99_999L,
            new long[] {64, 1L << 34});
        final DataPlaneMessage.ReleaseSocket releaseBack = (DataPlaneMessage.ReleaseSocket)roundTrip(release);
        assertEquals(List.of(release.socketId(), release.received()),
            List.of(releaseBack.socketId(), releaseBack.received()));
        assertArrayEquals(release.txPositions(), releaseBack.txPositions());
        assertEquals("Y", serializer.manifest(release));

        final DataPlaneMessage.QueueMapChanged change = new DataPlaneMessage.QueueMapChanged(1, 3, 4,
            new long[] {0b0001, 0b0110, 0b1000});
        final DataPlaneMessage.QueueMapChanged changeBack = (DataPlaneMessage.QueueMapChanged)roundTrip(change);
        assertEquals(List.of(change.port(), change.realNumTx(), change.rxQueues()),
            List.of(changeBack.port(), changeBack.realNumTx(), changeBack.rxQueues()));
        assertArrayEquals(change.xpsRxqs(), changeBack.xpsRxqs());
        assertEquals("Q", serializer.manifest(change));

        final DataPlaneMessage.Completions completions = new DataPlaneMessage.Completions(new int[] {7, 12},
            new long[] {3, 1L << 36});
        final DataPlaneMessage.Completions completionsBack = (DataPlaneMessage.Completions)roundTrip(completions);
        assertArrayEquals(completions.socketIds(), completionsBack.socketIds());
        assertArrayEquals(completions.completed(), completionsBack.completed());
        assertEquals("P", serializer.manifest(completions));
    }

    @Test
    void akkaPicksThisSerializerForDataPlaneMessagesFromTheModulesConfiguration()
    {
        assertEquals(DataPlaneSerializer.IDENTIFIER, SerializationExtension.get(Adapter.toClassic(system))
            .findSerializerFor(new DataPlaneMessage.SocketReady(1)).identifier());
    }

    @Test
    void anUnknownManifestIsRefusedByName()
    {
        assertEquals("xmit data plane: unknown manifest 'Z' (3 bytes); known are B, S, F, R, C, U, E, Y, L, D, " +
            "Q, P, A: is the sender a different xmit version?", assertThrows(NotSerializableException.class,
                () -> serializer.fromBinary(new byte[3], "Z")).getMessage());
    }

    @Test
    void aTruncatedMessageIsRefusedNamingItsManifest()
    {
        final byte[] bytes = serializer.toBinary(new DataPlaneMessage.SocketUnbound(12, 4096));
        final byte[] truncated = Arrays.copyOf(bytes, 6);
        assertEquals("xmit data plane: a 6-byte message with manifest 'E' does not decode: java.io.EOFException",
            assertThrows(NotSerializableException.class, () -> serializer.fromBinary(truncated, "E")).getMessage());
    }

    /**
     * A connect's peer, a disconnect, and a peer above 127.255.255.255 (the address's sign bit) and port 65535 come
     * back as sent, in 10 bytes; a message cut short is refused naming the manifest.
     */
    @Test
    void aSocketsPeerRoundTripsAndATruncatedOneIsRefused()
    {
        final Endpoint peer = Endpoint.of("192.168.7.9", 65_535);
        final DataPlaneMessage.SocketPeer connect = DataPlaneMessage.SocketPeer.of(12, peer);
        final DataPlaneMessage.SocketPeer disconnect = DataPlaneMessage.SocketPeer.of(12, null);
        assertEquals(List.of(connect, disconnect), List.of(roundTrip(connect), roundTrip(disconnect)));
        assertEquals(List.of(peer, "A", 10), List.of(((DataPlaneMessage.SocketPeer)roundTrip(connect)).peer(),
            serializer.manifest(connect), serializer.toBinary(connect).length), "peer, manifest, size");
        assertNull(((DataPlaneMessage.SocketPeer)roundTrip(disconnect)).peer(), "a disconnect has no peer");

        final byte[] truncated = Arrays.copyOf(serializer.toBinary(connect), 9);
        assertEquals("xmit data plane: a 9-byte message with manifest 'A' does not decode: java.io.EOFException",
            assertThrows(NotSerializableException.class, () -> serializer.fromBinary(truncated, "A")).getMessage());
    }

    @Test
    void anythingElseIsRefusedByName()
    {
        assertEquals("xmit data plane serializer cannot serialize a java.lang.String; it serializes " +
            "DataPlaneMessage only", assertThrows(IllegalArgumentException.class,
                () -> serializer.toBinary("hello")).getMessage());
    }

    private static DataPlaneMessage roundTrip(final DataPlaneMessage message)
    {
        try
        {
            return (DataPlaneMessage)serializer.fromBinary(serializer.toBinary(message), serializer.manifest(message));
        }
        catch (final NotSerializableException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
