package io.xmit.actors;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A datagram for a member on another node whose ring to that node refuses it (the node is gone) is dropped as
 * {@code rx_drop_node_down}, not as {@code rx_drop_no_socket}: the member was there, its node was not.
 */
class RemoteMemberDropTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void aDatagramRefusedByTheRingOfAGoneNodeIsDroppedAsNodeDown()
    {
        final PipelineConfig config = PipelineConfig.builder().name("remote-member-drop").cpus(1)
            .device("loop:tx=1,rx=1,ring=256").build();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config);
            Rings toTheNode = Rings.launch("remote-member-drop-ring"))
        {
            final PacketPublication ring = toTheNode.addPublication(1, new RingDoorbell(() -> { }));
            final RemoteMember member = pipeline.openRemote(SocketOptions.udp4(7).reusePort(true), ring, 1L);
            member.steer(true);
            // The node is gone: its ring refuses (CLOSED) while the member is still steered to.
            ring.close();
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(6000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7)));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            for (int i = 0; i < 3; i++)
            {
                assertTrue(client.send(payload, 0, payload.capacity()) > 0);
            }

            Await.exactly("datagrams dropped on port A", 3L, () -> pipeline.verify().received().get(0).dropped());
            assertEquals(List.of(3L, 0L, 0L, 0L), List.of(pipeline.total(CounterType.RX_DROP_NODE_DOWN, 0),
                pipeline.total(CounterType.RX_DROP_NO_SOCKET, 0), pipeline.total(CounterType.RX_DELIVERED, 0),
                member.delivered()), "rx_drop_node_down, rx_drop_no_socket, rx_delivered on port A, the member's");
            assertTrue(pipeline.verify().received().get(0).atRest(), pipeline.accounting().line());
            member.close();
        }
    }
}
