package io.xmit.deploy.cluster.data;

import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A request's trip through an app node and back to the edge's qdisc, as the data path runs it per packet: the edge's
 * RX queue writes the request into the socket's ring, the socket's receiver hands it to the handler, the handler
 * replies through {@link RemoteUdpSocket} into a TX stream, and the edge's {@link TxRelay} takes it for the member.
 * The rings are IPC rings here (a UDP ring is the same {@link PacketPublication} and {@link PacketSubscription},
 * whose bytes the media drivers move); a million requests allocate nothing.
 */
class DataPathAllocationTest
{
    private static final int REQUESTS = 1_000_000;
    private static final int SOCKET_RING = 100;
    private static final int TX_STREAM = 200;
    private static final int SOCKET_ID = 9;

    private final Rings rings = Rings.launch("data-path-alloc",
        RingsConfig.defaults().withMaxFrameLength(2048).withIpcTermLength(1 << 20));

    @AfterEach
    void close()
    {
        rings.close();
    }

    @Test
    void aRequestAndItsReplyAllocateNothingOnTheAppNodeOrTheRelay()
    {
        final RingDoorbell idle = new RingDoorbell(() -> { });
        final PacketPublication socketRing = rings.addPublication(SOCKET_RING, idle);
        final PacketSubscription socketRead = rings.addSubscription(SOCKET_RING, idle);
        final PacketPublication txRing = rings.addPublication(TX_STREAM, idle);
        final PacketSubscription txRead = rings.addSubscription(TX_STREAM, idle);
        Await.until("rings connected", () -> socketRead.isConnected() && txRead.isConnected(), () -> "not yet");

        final DataPlaneMessage.SocketBound bound = new DataPlaneMessage.SocketBound("echo", 0, SOCKET_ID, 0,
            "127.0.0.1:1", new int[] {TX_STREAM}, 0x0200_0000_0001L, 0x0200_0000_0002L, 0x0A00_0001, 7, 2,
            new long[0], 2048, 1);
        final RemoteUdpSocket socket = new RemoteUdpSocket(bound, new PacketPublication[] {txRing},
            new FlowHasher(1, 2), peer -> { });
        final ScriptedMember member = new ScriptedMember(SOCKET_ID, false);
        final TxRelay relay = new TxRelay(new PacketSubscription[] {txRead});
        relay.add(member);
        // The relay runs after the receiver on this one thread, so a full TX ring waits for the driver to move its
        // limit on, as a producer's retry does.
        final RemoteSocketReceiver receiver = new RemoteSocketReceiver(socket, socketRead, (s, request) ->
        {
            while (s.reply(request, request.buffer(), request.payloadOffset(), request.payloadLength()) < 0)
            {
                relay.poll();
            }
        }, 64);

        final UdpFrameWriter writer = new UdpFrameWriter();
        final FlowKey flow = new FlowKey().setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0001, 5000, 7);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        final PacketClaim claim = new PacketClaim();
        final int frameLength = writer.headerLength(FlowKey.FAMILY_IPV4) + payload.capacity();

        final AllocationMeter.Measurement measurement = AllocationMeter.measure(operations ->
        {
            for (int i = 0; i < operations; i++)
            {
                // The edge's RX queue: the request into the socket's ring, with its RX queue in the header.
                while (socketRing.tryClaimRetrying(frameLength, claim) < 0)
                {
                    receiver.poll();
                    relay.poll();
                }
                writer.write(claim.buffer(), claim.frameOffset(), 0x0200_0000_0001L, 0x0200_0000_0002L, flow,
                    payload, 0, payload.capacity());
                claim.putHeader(12345, SOCKET_ID, 0, 1, 0, RingFrameHeader.NO_TRACE_ID, 0);
                claim.commit();
                // The app node: the receiver, whose handler replies; then the edge's relay.
                receiver.poll();
                relay.poll();
            }
            return member.sent();
        }, 100_000, REQUESTS);
        assertEquals(0, measurement.allocatedBytes(), "bytes allocated by " + REQUESTS + " requests and replies");
        assertEquals(receiver.received(), socket.sent(), "every request answered");
        assertEquals(socket.sent(), member.sent(), "every reply relayed");
    }
}
