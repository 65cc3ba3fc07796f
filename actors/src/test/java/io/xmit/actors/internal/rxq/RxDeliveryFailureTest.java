package io.xmit.actors.internal.rxq;

import io.xmit.actors.PortAddress;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.testing.Await;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code rx_drop_failed}, driven on the test thread (no actors): one burst of three frames whose middle frame's
 * delivery throws (its socket has no receive ring). The turn fails at that frame; {@link RxQueueEngine#recover()}
 * counts it as failed once, and the next turn goes on with the frame after it: the failed frame is not retried and no
 * frame is delivered twice or skipped.
 */
@Timeout(60)
class RxDeliveryFailureTest
{
    private static final int GOOD_PORT = 9000;
    private static final int BROKEN_PORT = 9001;
    private static final int STREAM = 2000;

    @Test
    void aFrameWhoseDeliveryThrowsIsCountedAsFailedOnceAndNotRetried()
    {
        final String name = "rx-drop-failed-" + ProcessHandle.current().pid();
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=1024,frame=2048,rate=0");
            CountersFile counters = CountersFile.create(name, CountersFile.DEFAULT_DIRECTORY,
                CountersFile.DEFAULT_CAPACITY);
            Rings rings = Rings.launch(name, RingsConfig.defaults()
                .withMaxFrameLength(Math.max(device.port(1).maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
                .withIpcTermLength(1 << 19)))
        {
            final NicDriver sender = device.port(0);
            final NicDriver receiver = device.port(1);
            final RingDoorbell doorbell = new RingDoorbell(() -> { });
            final PacketPublication goodRing = rings.addPublication(STREAM, doorbell);
            final PacketSubscription goodSubscription = rings.addSubscription(STREAM, doorbell);
            Await.until("the socket ring's subscription to connect", goodSubscription::isConnected,
                () -> goodSubscription);
            final PortContext context = new PortContext(1, PortAddress.defaultFor(1, 2),
                new PacketPublication[][]{{goodRing, goodRing, goodRing}}, new QdiscRunner[1], FlowHasher.random(),
                receiver.maxFrame(), QueueMap.create(1, 1, 1), new SendGate(), null);
            final SocketTable sockets = new SocketTable();
            sockets.put(LoopFrames.socket(1, context, counters, GOOD_PORT, goodRing, goodSubscription));
            // A socket with no receive ring: delivering to it throws (a NullPointerException) inside the delivery.
            sockets.put(LoopFrames.socket(2, context, counters, BROKEN_PORT, null, null));

            final RxQueueEngine engine = new RxQueueEngine(1, 0, receiver, sockets, doorbell, 64, counters, null);
            new LoopFrames().send(sender, 0, GOOD_PORT, BROKEN_PORT, GOOD_PORT);

            assertThrows(NullPointerException.class, engine::poll, "the second frame's delivery throws");
            assertEquals(0, counter(counters, CounterType.RX_DROP_FAILED), "nothing counted before the recovery");
            engine.recover();
            assertEquals(1, counter(counters, CounterType.RX_DROP_FAILED), "the failed frame, counted once");
            engine.recover();
            assertEquals(1, counter(counters, CounterType.RX_DROP_FAILED), "a second recover counts nothing more");

            // The next turn goes on after the failed frame: it is not retried (which would throw again).
            assertEquals(1, engine.poll(), "the rest of the burst (its third frame), then the burst is released");
            assertEquals(0, engine.poll(), "nothing left");
            assertEquals(1, counter(counters, CounterType.RX_DROP_FAILED), "rx_drop_failed");
            assertEquals(2, counter(counters, CounterType.RX_DELIVERED), "rx_delivered");
            assertEquals(3, counter(counters, CounterType.RX_PACKETS), "rx_packets");
            assertEquals(0, counter(counters, CounterType.RX_DROP_NO_SOCKET) +
                counter(counters, CounterType.RX_DROP_SOCKET_RING_FULL) +
                counter(counters, CounterType.RX_DROP_MALFORMED) +
                counter(counters, CounterType.RX_DROP_UNSUPPORTED), "no other drop reason");

            // The good socket got frames 0 and 2, once each, in order.
            final LongArrayList received = LoopFrames.drain(goodSubscription);
            assertEquals(List.of(0L, 2L), received);
        }
    }

    private static long counter(final CountersFile counters, final CounterType type)
    {
        return counters.value(type, CounterScope.rxq(1, 0));
    }
}
