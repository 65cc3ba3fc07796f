package io.xmit.actors;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member on another node that its node connected to one peer ({@link RemoteMember#connect}) gets that peer's
 * datagrams whatever the group's steering says, and no other peer's, as a connected socket in a kernel reuseport
 * group: its slots go to the other member while it is connected, and come back on {@link RemoteMember#disconnect}.
 * Out of steering, it gets nothing, its peer's flow included; closed, it leaves no exact entry.
 */
class ConnectedRemoteMemberTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int CLIENTS = 16;
    private static final Endpoint SERVICE = Endpoint.of("10.0.0.1", 7);

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void aConnectedMemberGetsItsPeersDatagramsAndNoOtherPeers()
    {
        final PipelineConfig config = PipelineConfig.builder().name("connected-remote-member").cpus(1)
            .device("loop:tx=1,rx=1,ring=256").build();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config);
            Rings toTheNode = Rings.launch("connected-remote-member-rings"))
        {
            final RemoteMember[] members = {member(pipeline, toTheNode, 1), member(pipeline, toTheNode, 2)};
            final List<UdpSocket> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++)
            {
                clients.add(pipeline.openUdp(SocketOptions.udp4(6000 + c).onPort(1)));
            }
            final int[] steered = new int[CLIENTS];
            for (int c = 0; c < CLIENTS; c++)
            {
                steered[c] = receiverOf(clients.get(c), members);
            }
            // The peer: a client the group steers to member 1, so only the exact entry brings it to member 0.
            final int peer = firstSteeredTo(1, steered);

            members[0].connect(clients.get(peer).local());
            assertEquals(clients.get(peer).local(), members[0].peer());
            for (int c = 0; c < CLIENTS; c++)
            {
                assertEquals(c == peer ? 0 : 1, receiverOf(clients.get(c), members), "client " + c +
                    "'s member while member 0 is connected to client " + peer);
            }

            members[0].steer(false);
            assertEquals(1, receiverOf(clients.get(peer), members), "the peer's member while member 0 is out");
            members[0].steer(true);
            assertEquals(0, receiverOf(clients.get(peer), members), "the peer's member once member 0 is back");

            members[0].disconnect();
            for (int c = 0; c < CLIENTS; c++)
            {
                assertEquals(steered[c], receiverOf(clients.get(c), members), "client " + c + "'s member after " +
                    "the disconnect");
            }

            members[1].connect(clients.get(peer).local());
            assertEquals("address in use: " + SERVICE + " connected to " + clients.get(peer).local() + " on port 0 " +
                "is taken by socket " + members[1].id(), assertThrows(IllegalStateException.class,
                    () -> members[0].connect(clients.get(peer).local())).getMessage());
            assertEquals(null, members[0].peer(), "the refused member is as it was");
            members[1].close();
            assertEquals(List.of(), connectedSockets(pipeline), "sockets with a peer once the connected one closed");
            members[0].close();
        }
    }

    private static int firstSteeredTo(final int member, final int[] steered)
    {
        for (int c = 0; c < steered.length; c++)
        {
            if (member == steered[c])
            {
                return c;
            }
        }
        throw new AssertionError("the group steers no client to member " + member);
    }

    private static RemoteMember member(final Pipeline pipeline, final Rings rings, final int streamId)
    {
        final RingDoorbell doorbell = new RingDoorbell(() -> { });
        rings.addSubscription(streamId, doorbell);
        final PacketPublication ring = rings.addPublication(streamId, doorbell);
        final RemoteMember member = pipeline.openRemote(SocketOptions.udp4(SERVICE.port()).reusePort(true), ring,
            streamId);
        member.steer(true);
        return member;
    }

    /** Sends one datagram from {@code client} to the service; the index of the member the RX queue delivered it to. */
    private static int receiverOf(final UdpSocket client, final RemoteMember[] members)
    {
        final long[] each = {members[0].delivered(), members[1].delivered()};
        final long before = each[0] + each[1];
        assertTrue(client.sendTo(SERVICE, new UnsafeBuffer(new byte[16]), 0, 16) > 0, "client send");
        Await.exactly("the datagram delivered to a member", before + 1,
            () -> members[0].delivered() + members[1].delivered());
        return members[0].delivered() > each[0] ? 0 : 1;
    }

    private static List<Integer> connectedSockets(final Pipeline pipeline)
    {
        final List<Integer> connected = new ArrayList<>();
        for (final UdpSocket socket : pipeline.sockets())
        {
            if (null != socket.remote())
            {
                connected.add(socket.id());
            }
        }
        return connected;
    }
}
