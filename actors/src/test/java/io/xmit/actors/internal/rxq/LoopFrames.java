package io.xmit.actors.internal.rxq;

import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Numbered UDP frames sent over a {@code loop} device's port 0 to port 1, and sockets of port 1 to receive them, for
 * tests that drive an RX queue engine on the test thread (no actors).
 */
public final class LoopFrames
{
    /** Ethernet (14) + IPv4 (20) + UDP (8): where a frame's sequence number starts. */
    public static final int PAYLOAD_OFFSET = 42;
    private static final int PAYLOAD = 16;
    private static final int SLOT = 2048;

    private final UnsafeBuffer frames = new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * SLOT));
    private final DescriptorBatch batch = new DescriptorBatch(1024);
    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final FlowKey flow = new FlowKey();
    private final TxCompletion completion = new TxCompletion();

    /**
     * One {@code tx_burst} on port 0 of UDP frames to the given UDP ports of port 1, frame i carrying sequence number
     * {@code first + i}; the sender's ring is reclaimed at once.
     */
    public void send(final NicDriver sender, final long first, final int... ports)
    {
        batch.clear();
        for (int i = 0; i < ports.length; i++)
        {
            final int offset = i * SLOT;
            frames.putLong(offset + PAYLOAD_OFFSET, first + i);
            flow.setIpv4(FlowKey.PROTO_UDP, 0x0A000002, 0x0A000001, 20_000, ports[i]);
            final int length = writer.write(frames, offset, 0x020000000001L, 0x020000000002L, flow, PAYLOAD);
            assertTrue(length > 0, "frame written");
            batch.addExternal(frames.addressOffset() + offset, length, 0);
        }
        assertEquals(ports.length, sender.txBurst(0, batch), "the loop device takes the whole burst");
        sender.txReclaim(0, completion);
    }

    /** A socket of port 1 bound to {@code udpPort} on any address, receiving into {@code ring}. */
    public static UdpSocketImpl socket(final int id, final PortContext context, final CountersFile counters,
        final int udpPort, final PacketPublication ring, final PacketSubscription subscription)
    {
        final FlowKey local = new FlowKey();
        local.setIpv4(FlowKey.PROTO_UDP, 0, 0, udpPort, 0);
        final CounterScope scope = CounterScope.socket(1, id);
        final AtomicCounter[] sendCounters = {
            counters.allocate(CounterType.SOCKET_SENT, scope),
            counters.allocate(CounterType.SOCKET_SEND_BACKPRESSURED, scope),
            counters.allocate(CounterType.SOCKET_SEND_REFUSED, scope)};
        return new UdpSocketImpl(id, 0, context, local, true, false, 0, 0, ring, subscription, new SocketQueueState(),
            sendCounters, () -> { }, peer -> { });
    }

    /** Takes what {@code subscription} holds and returns the sequence numbers, in ring order. */
    public static LongArrayList drain(final PacketSubscription subscription)
    {
        final LongArrayList received = new LongArrayList();
        while (subscription.poll((header, buffer, offset, length) ->
            received.addLong(buffer.getLong(offset + PAYLOAD_OFFSET)), 64) > 0)
        {
            Thread.onSpinWait();
        }
        return received;
    }
}
