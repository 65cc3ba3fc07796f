package io.xmit.pipeline.host;

import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The host paths as the RX and TX paths will drive them, 300,000 rounds, allocate nothing: answer an ARP
 * request, a ping and a UDP datagram to a closed port (through the rate limiter), and resolve a neighbour by
 * holding a frame, soliciting, releasing it on the reply, then failing a second neighbour that never answers.
 */
class HostAllocationTest
{
    private static final int ROUNDS = 300_000;
    /** 1 ms, so that each round also earns the rate limiter a token. */
    private static final long REACHABLE = 1_000_000;
    private static final long RETRANS = 10;
    private static final int SILENT_IP = 0x0A00_0063;

    private final ArpFrames arp = new ArpFrames();
    private final IcmpFrames icmp = new IcmpFrames();
    private final IcmpRateLimiter limiter = new IcmpRateLimiter();
    private final CountingHandler handler = new CountingHandler();
    private final NeighbourTable table =
        new NeighbourTable(new NeighbourConfig(16, REACHABLE, RETRANS, 1, 3, 128), handler);
    private final ArpFrames peerArp = new ArpFrames();
    private final UnsafeBuffer peerReply = new UnsafeBuffer(new byte[ArpFrames.FRAME_LENGTH]);
    private final UnsafeBuffer arpRequest = new UnsafeBuffer(HostFrames.hex(HostFrames.ARP_REQUEST));
    private final UnsafeBuffer arpReply = new UnsafeBuffer(HostFrames.hex(HostFrames.ARP_REPLY));
    private final UnsafeBuffer ping = new UnsafeBuffer(HostFrames.hex(HostFrames.PING_REQUEST));
    private final UnsafeBuffer udp = new UnsafeBuffer(HostFrames.hex(HostFrames.UDP_TO_CLOSED_PORT));
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);

    private long now;

    HostAllocationTest()
    {
        final UnsafeBuffer ourRequest = new UnsafeBuffer(new byte[ArpFrames.FRAME_LENGTH]);
        arp.writeRequest(ourRequest, 0, ArpFrames.NO_VLAN, EthernetFlyweight.BROADCAST_MAC, HostFrames.OUR_MAC,
            HostFrames.OUR_IP, HostFrames.PEER_IP);
        peerArp.parse(ourRequest, 0, ourRequest.capacity());
        peerArp.writeReply(peerReply, 0, HostFrames.PEER_MAC, HostFrames.PEER_IP);
    }

    /** Counts what the table asks for, allocating nothing. */
    private static final class CountingHandler implements NeighbourHandler
    {
        long events;

        @Override
        public void transmit(final DirectBuffer buffer, final int offset, final int length, final long tag)
        {
            events += length;
        }

        @Override
        public void dropped(final long tag, final NeighbourDrop reason)
        {
            events++;
        }

        @Override
        public void solicit(final int ip, final long destinationMac)
        {
            events++;
        }

        @Override
        public void failed(final int ip)
        {
            events++;
        }
    }

    @Test
    void threeHundredThousandRoundsOfArpIcmpAndNeighbourResolutionAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, ROUNDS / 2, ROUNDS);

        assertEquals(0, m.allocatedBytes(), "bytes allocated over " + ROUNDS + " rounds");
        assertEquals(ROUNDS, m.result());
    }

    private long run(final int rounds)
    {
        long answered = 0;
        for (int i = 0; i < rounds; i++)
        {
            long length = 0;
            if (ArpStatus.REQUEST == arp.parse(arpRequest, 0, arpRequest.capacity()))
            {
                length += arp.writeReply(out, 0, HostFrames.OUR_MAC, HostFrames.OUR_IP);
            }
            if (IcmpVerdict.ECHO_REQUEST == icmp.classifyEchoRequest(ping, 0, ping.capacity()))
            {
                length += icmp.writeEchoReply(out, 0);
            }
            if (IcmpVerdict.PORT_UNREACHABLE == icmp.classifyPortUnreachable(udp, 0, udp.capacity()) &&
                limiter.tryAcquire(now))
            {
                length += icmp.writePortUnreachable(out, 0);
            }

            final long before = handler.events;
            if (NeighbourTable.MUST_RESOLVE == table.lookup(HostFrames.PEER_IP, now))
            {
                table.hold(HostFrames.PEER_IP, ping, 0, ping.capacity(), i, now);
                table.hold(SILENT_IP, ping, 0, ping.capacity(), i, now);
                table.poll(now);
                peerArp.parse(peerReply, 0, peerReply.capacity());
                table.onArp(peerArp, true, now);
                table.poll(now + RETRANS);
            }
            // The peer goes stale, is used, and its unicast re-probe fails, so the next round resolves it again.
            table.lookup(HostFrames.PEER_IP, now + REACHABLE);
            table.poll(now + REACHABLE);
            table.poll(now + REACHABLE + RETRANS);
            now += REACHABLE + RETRANS;

            // Replies 42 + 98 + 80 bytes; 2 broadcast requests, the held ping (98), the silent neighbour's drop
            // and failure, the peer's unicast probe and failure.
            if (220 + 104 == length + handler.events - before)
            {
                answered++;
            }
        }
        return answered;
    }
}
