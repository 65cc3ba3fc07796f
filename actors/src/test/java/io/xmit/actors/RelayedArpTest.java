package io.xmit.actors;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.EthernetFlyweight;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.host.NeighbourConfig;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A frame another node wrote for a member on a port with ARP ({@link RemoteMember#relay}) gets its next hop's MAC on
 * this node, as a local socket's datagram does. Two loop ports back to back, both with ARP: port 0's member sends to
 * port 1's address, whose host answers port 0's request; port 1's member reads the frames as they arrived (its ring
 * holds whole frames), so the test sees the destination MAC on the wire.
 */
class RelayedArpTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final long MAC_0 = 0x0200_0000_0001L;
    private static final long MAC_1 = 0x0200_0000_0002L;
    /** What the node writes as the destination: the port's static peer MAC, not port 1's. */
    private static final long PLACEHOLDER = 0x0200_0000_0099L;
    private static final int IP_0 = 0x0A00_0001;
    private static final int IP_1 = 0x0A00_0002;
    /** On port 0's subnet, and no port answers for it. */
    private static final int IP_SILENT = 0x0A00_0003;
    private static final int PAYLOAD = 32;

    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final FlowKey flow = new FlowKey();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[PAYLOAD]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[RingFrameHeader.HEADER_LENGTH + 2048]);
    private final RingFrameHeader header = new RingFrameHeader();
    private final List<Long> seenMacs = new ArrayList<>();
    private Pipeline pipeline;
    private Rings rings;
    private RemoteMember sender;
    private RemoteMember receiver;
    private PacketSubscription received;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @BeforeEach
    void start()
    {
        final PipelineConfig config = PipelineConfig.builder().name("relayed-arp").cpus(1)
            .device("loop:tx=2,rx=1,ring=256")
            .ports(List.of(
                new PortAddress(MAC_0, IP_0, 0xFD00_0000_0000_0000L, 1, PLACEHOLDER, 24, 0, true, false),
                new PortAddress(MAC_1, IP_1, 0xFD00_0000_0000_0000L, 2, MAC_0, 24, 0, true, false)))
            .build();
        pipeline = Pipeline.start(KIT.system(), config);
        rings = Rings.launch("relayed-arp-rings");
        final RingDoorbell idle = new RingDoorbell(() -> { });
        rings.addSubscription(1, idle);
        sender = pipeline.openRemote(SocketOptions.udp4(7).reusePort(true), rings.addPublication(1, idle), 1L);
        received = rings.addSubscription(2, idle);
        receiver = pipeline.openRemote(SocketOptions.udp4(9000).reusePort(true).onPort(1),
            rings.addPublication(2, idle), 2L);
        receiver.steer(true);
        header.wrap(frame, 0).flowHash(1).socketId(sender.id()).priority(0).rxQueue(RingFrameHeader.NO_RX_QUEUE)
            .flags(0).traceId(RingFrameHeader.NO_TRACE_ID);
    }

    @AfterEach
    void stop()
    {
        sender.close();
        receiver.close();
        pipeline.close();
        rings.close();
    }

    @Test
    void aRelayedFrameToAnUnresolvedNeighbourIsHeldUntilArpAnswersThenLeavesWithItsMac()
    {
        assertTrue(relay(IP_1) > 0, "the relay took the frame");
        assertEquals(List.of(1L, 0L), List.of(sender.held(), sender.sent()), "held, sent by the relay");

        Await.exactly("frames port 1's member got", 1, this::readReceived);
        assertEquals(List.of(MAC_1), seenMacs, "the destination MAC port 1 saw");
        Await.exactly("the held frame's completion", 1L, sender::completed);
        assertEquals(List.of(1L, 1L, 1L, 2L), List.of(pipeline.total(CounterType.NEIGH_HELD, 0),
            pipeline.total(CounterType.HOST_ARP_REQUESTS, 0), pipeline.total(CounterType.HOST_ARP_REPLIES, 1),
            pipeline.total(CounterType.HOST_TX, 0)),
            "neigh_held and host_arp_requests on port 0, host_arp_replies on port 1, host_tx on port 0 (the request " +
            "and the held frame)");
    }

    @Test
    void aResolvedNeighboursMacIsWrittenIntoTheRelayedFrame()
    {
        resolvePort1();
        for (int i = 0; i < 5; i++)
        {
            assertTrue(relay(IP_1) > 0, "frame " + i + " taken");
        }
        Await.exactly("frames port 1's member got", 6, this::readReceived);
        assertEquals(List.of(MAC_1, MAC_1, MAC_1, MAC_1, MAC_1, MAC_1), seenMacs, "the destination MACs port 1 saw");
        assertEquals(List.of(1L, 5L), List.of(sender.held(), sender.sent()), "held, sent by the relay");
        Await.exactly("completions", 6L, sender::completed);
        assertEquals(1L, pipeline.total(CounterType.NEIGH_HELD, 0), "neigh_held on port 0");
    }

    @Test
    void framesBeyondTheHoldOfANeighbourThatDoesNotAnswerAreCountedAsHoldFull()
    {
        final int frames = NeighbourConfig.DEFAULT_HOLD_PER_NEIGHBOUR + 2;
        for (int i = 0; i < frames; i++)
        {
            assertTrue(relay(IP_SILENT) > 0, "frame " + i + " taken");
        }
        Await.exactly("neigh_drop_hold_full on port 0", 2L,
            () -> pipeline.total(CounterType.NEIGH_DROP_HOLD_FULL, 0));
        assertEquals(List.of((long)frames, (long)frames, 0L), List.of(sender.held(),
            pipeline.total(CounterType.NEIGH_HELD, 0), sender.sent()), "handed to hold, neigh_held, sent");
        assertEquals(2L, sender.completed(), "the dropped frames are done with");
    }

    @Test
    void aRelayToAResolvedNeighbourAllocatesNothing()
    {
        resolvePort1();
        final AllocationMeter.Measurement measurement = AllocationMeter.measure(operations ->
        {
            for (int i = 0; i < operations; i++)
            {
                while (relay(IP_1) < 0)
                {
                    Thread.onSpinWait();
                }
            }
            return sender.sent();
        }, 20_000, 100_000);
        assertEquals(0, measurement.allocatedBytes(), "bytes allocated by relays to a resolved neighbour");
        assertEquals(1L, sender.held(), "frames handed to hold");
    }

    /** One frame held and sent once port 1 answered: the neighbour is resolved from here on. */
    private void resolvePort1()
    {
        assertTrue(relay(IP_1) > 0, "the first frame taken");
        Await.exactly("the held frame's completion", 1L, sender::completed);
    }

    private long relay(final int destination)
    {
        flow.setIpv4(FlowKey.PROTO_UDP, IP_0, destination, 7, 9000);
        final int length = writer.write(frame, RingFrameHeader.HEADER_LENGTH, PLACEHOLDER, MAC_0, flow, payload, 0,
            PAYLOAD);
        return sender.relay(0, header, frame, RingFrameHeader.HEADER_LENGTH, length);
    }

    /** What port 1's member got so far; each frame's destination MAC into {@link #seenMacs}. */
    private long readReceived()
    {
        received.poll((ringHeader, buffer, offset, length) ->
            seenMacs.add(EthernetFlyweight.getMac(buffer, offset + EthernetFlyweight.DESTINATION_OFFSET)), 64);
        return seenMacs.size();
    }
}
