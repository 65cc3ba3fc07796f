package io.xmit.transport.ring;

import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UDP rings over 127.0.0.1 between two drivers in one process, each side with its own {@link NetworkRings}: the
 * frames and results of the IPC rings, and the receive hook that wakes a sleeping consumer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkRingsTest
{
    private static final int STREAM = 7001;
    private static final int JUMBO = 1514;
    private static final RingsConfig RINGS =
        RingsConfig.defaults().withMaxFrameLength(JUMBO).withIpcTermLength(64 * 1024);
    private static final DataPlaneConfig DATA_PLANE = DataPlaneConfig.forFrames(RINGS);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ExecutorService consumerThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void closeAll() throws Exception
    {
        consumerThread.shutdownNow();
        for (final AutoCloseable resource : resources.reversed())
        {
            resource.close();
        }
    }

    @Test
    void framesArriveInOrderAndExactlyOnceFromTwoProducers() throws Exception
    {
        final int producers = 2;
        final long framesEach = 20_000;
        final SequenceChecker checker = new SequenceChecker(producers, 200, JUMBO);
        final Consumer consumer = consumer("order", DATA_PLANE, checker);
        final PacketPublication publication = publication("order-tx", DATA_PLANE, consumer.subscription);

        final ExecutorService producerThreads = Executors.newFixedThreadPool(producers);
        try
        {
            final List<Future<?>> sends = new ArrayList<>();
            for (int p = 0; p < producers; p++)
            {
                final int producer = p;
                sends.add(producerThreads.submit(() -> sendAll(publication, producer, framesEach)));
            }
            for (final Future<?> send : sends)
            {
                send.get(50, TimeUnit.SECONDS);
            }
        }
        finally
        {
            producerThreads.shutdownNow();
        }

        Await.exactly("frames consumed", producers * framesEach, checker::consumed, Await.DEFAULT_TIMEOUT);
        final SequenceChecker seen = fromConsumerThread(checker);
        assertEquals(null, seen.firstError());
        assertEquals(0, seen.lost(), "lost");
        assertEquals(0, seen.duplicated(), "duplicated");
        assertEquals(0, seen.corrupt(), "corrupt");
        for (int p = 0; p < producers; p++)
        {
            assertEquals(framesEach, seen.inOrder(p), "frames of producer " + p + " in order");
        }
    }

    @Test
    void backPressureAndTheOtherResultsAreTheIpcRingsValues()
    {
        // 128 KiB terms: the publisher may run half a term (64 KiB) ahead of what the sender has sent, and the
        // sender a receiver window (32 KiB) ahead of what the consumer has taken; a 64-byte frame takes 128 bytes.
        final DataPlaneConfig small = DATA_PLANE.withReceiverWindowLength(32 * 1024).withTermLength(128 * 1024);
        final NetworkRings receiver = launch("bp-rx", small);
        final NetworkRings sender = launch("bp-tx", small);
        final RingDoorbell neverWoken = new RingDoorbell(() -> { });
        final PacketSubscription subscription = receiver.addSubscription("127.0.0.1:0", STREAM, neverWoken);
        Await.until("the subscription's port", () -> null != subscription.localEndpoint(), () -> "unbound");
        final PacketPublication publication = sender.addPublication(subscription.localEndpoint(), STREAM);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[JUMBO + 1]);

        final PacketPublication unanswered = sender.addPublication(subscription.localEndpoint(), STREAM + 1);
        assertEquals(PacketPublication.NOT_CONNECTED, send(unanswered, frame, 64), "a stream no one consumes");
        Await.until("connected", publication::isConnected, () -> publication);
        assertEquals(PacketPublication.FRAME_TOO_LONG, send(publication, frame, JUMBO + 1));

        final long inFlight = (128 * 1024 / 2 + 32 * 1024) / 128;
        final long[] accepted = {0};
        Await.until("the sender at the consumer's window and the publisher half a term past it", () ->
        {
            if (send(publication, frame, 64) > 0)
            {
                accepted[0]++;
            }
            return accepted[0] == inFlight;
        }, () -> accepted[0] + " frames accepted");
        assertEquals(PacketPublication.BACK_PRESSURED, send(publication, frame, 64));

        final long[] drained = {0};
        final PacketHandler count = (header, buffer, offset, length) -> drained[0]++;
        Await.until("every accepted frame consumed, and the publisher's limit moved on", () ->
        {
            subscription.poll(count, 64);
            return drained[0] == inFlight && send(publication, frame, 64) > 0;
        }, () -> drained[0] + " consumed");

        publication.close();
        assertEquals(PacketPublication.CLOSED, send(publication, frame, 64));
    }

    @Test
    void theReceiveHookWakesAConsumerThatSleeps() throws Exception
    {
        final SequenceChecker checker = new SequenceChecker(1, 200, JUMBO);
        final Consumer consumer = consumer("wake", DATA_PLANE, checker);
        final PacketPublication publication = publication("wake-tx", DATA_PLANE, consumer.subscription);
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[JUMBO]);
        final int frames = 20;
        // Frame 0 may be polled on the wake-up the image's arrival sent; from then on only the hook rings. That
        // wake-up may come after isConnected() (Aeron adds the image before it runs the handler that rings).
        Await.until("the image", consumer.subscription::isConnected, () -> consumer.subscription);
        Await.exactly("the image's wake-up", 1L, consumer.rings::imagesArrived);
        sendAsleep(consumer, publication, scratch, 0);
        awaitAsleep(consumer);
        final long wakeUpsBefore = consumer.rings.hookWakeUps();

        for (int seq = 1; seq <= frames; seq++)
        {
            sendAsleep(consumer, publication, scratch, seq);
        }
        awaitAsleep(consumer);
        assertEquals(frames, consumer.rings.hookWakeUps() - wakeUpsBefore, "wake-ups sent by the receive hook");
        final SequenceChecker seen = fromConsumerThread(checker);
        assertEquals(frames + 1, seen.inOrder(0));
        assertEquals(0, seen.corrupt());
    }

    /** Sends frame {@code seq} once the consumer sleeps, so nothing but the hook can wake it, and waits for it. */
    private void sendAsleep(
        final Consumer consumer, final PacketPublication publication, final UnsafeBuffer scratch, final long seq)
        throws Exception
    {
        awaitAsleep(consumer);
        Await.until("frame " + seq + " accepted",
            () -> TestFrames.send(publication, scratch, 0, seq, TestFrames.length(0, seq, 200, JUMBO)) > 0,
            () -> "back-pressured");
        Await.exactly("frames consumed", seq + 1, consumer.checker::consumed);
    }

    /**
     * Waits until the consumer is IDLE and its last Poll, with the re-poll that follows going idle, has returned: a
     * frame sent before that re-poll could be taken by it, with no wake-up from the hook.
     */
    private void awaitAsleep(final Consumer consumer) throws Exception
    {
        Await.until("the consumer asleep", () -> RingDoorbell.IDLE == consumer.doorbell.state(),
            () -> consumer.doorbell);
        consumerThread.submit(() -> null).get(10, TimeUnit.SECONDS);
        assertEquals(RingDoorbell.IDLE, consumer.doorbell.state(), "asleep after its last Poll");
    }

    @Test
    void streamsAddedOnAPortOfTheirOwnShareItWithNoOtherSubscription()
    {
        final NetworkRings rings = launch("own-port", DATA_PLANE);
        final RingDoorbell doorbell = new RingDoorbell(() -> { });
        final PacketSubscription shared = rings.addSubscription("127.0.0.1:0", STREAM, doorbell);
        final PacketSubscription[] first = rings.addSubscriptionsOnOwnPort("127.0.0.1",
            new int[] {STREAM + 1, STREAM + 2}, doorbell);
        final PacketSubscription[] second = rings.addSubscriptionsOnOwnPort("127.0.0.1", new int[] {STREAM + 3},
            doorbell);

        assertEquals(first[0].localEndpoint(), first[1].localEndpoint(), "one port for one call's streams");
        assertTrue(first[0].localEndpoint().startsWith("127.0.0.1:"), first[0].localEndpoint());
        assertEquals(3, Set.of(shared.localEndpoint(), first[0].localEndpoint(), second[0].localEndpoint()).size(),
            "a port per call, none shared with another subscription");

        final PacketPublication toSecondStream = launch("own-port-tx", DATA_PLANE)
            .addPublication(first[0].localEndpoint(), STREAM + 2);
        Await.until("the second stream of the port connected", toSecondStream::isConnected, () -> toSecondStream);
        assertRefused("streamIds must name at least one stream",
            () -> rings.addSubscriptionsOnOwnPort("127.0.0.1", new int[0], doorbell));
        assertRefused("host must be an address with no '|', was '127.0.0.1|mtu=64'",
            () -> rings.addSubscriptionsOnOwnPort("127.0.0.1|mtu=64", new int[] {STREAM + 4}, doorbell));
    }

    @Test
    void ringsAddedOneByOneToAReceivePortShareItAndItOutlivesThem()
    {
        final NetworkRings rings = launch("receive-port", DATA_PLANE);
        final RingDoorbell doorbell = new RingDoorbell(() -> { });
        final PacketSubscription shared = rings.addSubscription("127.0.0.1:0", STREAM, doorbell);
        final ReceivePort port = rings.openReceivePort("127.0.0.1", STREAM + 9);
        assertTrue(port.endpoint().startsWith("127.0.0.1:"), port.endpoint());
        assertTrue(!shared.localEndpoint().equals(port.endpoint()), "the port is no other subscription's");
        final PacketSubscription first = rings.addSubscription(port, STREAM + 1, doorbell);
        assertEquals(port.endpoint(), first.localEndpoint(), "a ring on the port");
        first.close();
        final PacketSubscription second = rings.addSubscription(port, STREAM + 2, doorbell);
        assertEquals(port.endpoint(), second.localEndpoint(), "a ring added after the first one closed");
        final PacketPublication toSecond = launch("receive-port-tx", DATA_PLANE)
            .addPublication(port.endpoint(), STREAM + 2);
        Await.until("a ring added after the port's first ring closed connected", toSecond::isConnected,
            () -> toSecond);

        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> rings.addSubscription("127.0.0.1:0", STREAM + 9, doorbell)).getMessage()
            .startsWith("stream " + (STREAM + 9) + " already has a consumer in rings 'receive-port'"),
            "the anchor's stream is taken");
        port.close();
        assertEquals("stream " + (STREAM + 3) + " cannot be added to " + port + ": it is closed",
            assertThrows(IllegalStateException.class, () -> rings.addSubscription(port, STREAM + 3, doorbell))
                .getMessage());
    }

    @Test
    void settingsThatCannotWorkAreRefusedByName()
    {
        assertRefused("mtuLength 1408 is too small for maxFrameLength 1514: the frame with its headers needs 1600 " +
                "bytes in one datagram (xmit never fragments a frame); use an mtuLength of at least 1600 or frames " +
                "of at most 1344 bytes",
            () -> NetworkRings.launch("bad-mtu", RINGS, DATA_PLANE.withMtuLength(1408)));
        assertRefused("receiverWindowLength 262144 is above socketRcvbufLength 131072: Aeron refuses a receiver " +
                "window larger than the socket's receive buffer; raise socketRcvbufLength or lower " +
                "receiverWindowLength",
            () -> DATA_PLANE.withReceiverWindowLength(256 * 1024));
        assertRefused("mtuLength must be a multiple of 32 up to 65504, was 1500",
            () -> DATA_PLANE.withMtuLength(1500));
        assertRefused("termLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 1000000",
            () -> DATA_PLANE.withTermLength(1_000_000));
        assertRefused("mtuLength 9280 is more than one eighth of termLength 65536 (Aeron's largest unfragmented " +
                "message); use a termLength of at least 131072",
            () -> new DataPlaneConfig(9280, 64 * 1024, 32 * 1024, 32 * 1024, 0));
        assertRefused("receiverWindowLength must be from mtuLength 1600 to half of termLength 1048576 (524288), " +
                "was 1024",
            () -> DATA_PLANE.withReceiverWindowLength(1024));
        assertRefused("socketSndbufLength must be 0 (the system's default) or at least mtuLength 1600, was 1024",
            () -> DATA_PLANE.withSocketSndbufLength(1024));
        assertRefused("socketRcvbufLength 8388608 is above this host's net.core.rmem_max 212992, and Linux would " +
                "cut it silently; lower socketRcvbufLength or raise the limit (sysctl -w net.core.rmem_max=8388608)",
            () -> DATA_PLANE.withSocketRcvbufLength(8 * 1024 * 1024).checkHost(212_992, 212_992));
        assertRefused("socketSndbufLength 1048576 is above this host's net.core.wmem_max 212992, and Linux would " +
                "cut it silently; lower socketSndbufLength or raise the limit (sysctl -w net.core.wmem_max=1048576)",
            () -> DATA_PLANE.withSocketSndbufLength(1024 * 1024).checkHost(-1, 212_992));

        final NetworkRings rings = launch("one-consumer", DATA_PLANE);
        rings.addSubscription("127.0.0.1:0", STREAM, new RingDoorbell(() -> { }));
        final IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
            () -> rings.addSubscription("127.0.0.1:0", STREAM, new RingDoorbell(() -> { })));
        assertTrue(twice.getMessage().startsWith("stream 7001 already has a consumer in rings 'one-consumer'"),
            twice.getMessage());
        assertRefused("endpoint must be host:port with no '|', was '127.0.0.1:0|mtu=64'",
            () -> rings.addPublication("127.0.0.1:0|mtu=64", STREAM));
    }

    private static void assertRefused(final String message, final Runnable attempt)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, attempt::run).getMessage());
    }

    private NetworkRings launch(final String name, final DataPlaneConfig dataPlane)
    {
        final NetworkRings rings = NetworkRings.launch(name, RINGS, dataPlane);
        resources.add(rings);
        return rings;
    }

    /** A consumer like an actor's: Polls run one at a time on one thread, sent only through the doorbell. */
    private Consumer consumer(final String name, final DataPlaneConfig dataPlane, final SequenceChecker checker)
    {
        final NetworkRings rings = launch(name, dataPlane);
        final RingDutyCycle[] cycle = new RingDutyCycle[1];
        final RingDoorbell doorbell = new RingDoorbell(() -> consumerThread.execute(() -> cycle[0].onPoll()));
        final PacketSubscription subscription = rings.addSubscription("127.0.0.1:0", STREAM, doorbell);
        cycle[0] = new RingDutyCycle(doorbell, () -> subscription.poll(checker, 64), 0);
        Await.until("the subscription's port", () -> null != subscription.localEndpoint(), () -> "unbound");
        return new Consumer(rings, doorbell, subscription, checker);
    }

    private PacketPublication publication(
        final String name, final DataPlaneConfig dataPlane, final PacketSubscription subscription)
    {
        final PacketPublication publication = launch(name, dataPlane)
            .addPublication(subscription.localEndpoint(), STREAM);
        Await.until("connected", publication::isConnected, () -> publication);
        return publication;
    }

    private static void sendAll(final PacketPublication publication, final int producer, final long frames)
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[JUMBO]);
        for (long seq = 0; seq < frames; seq++)
        {
            final long sent = seq;
            final int length = TestFrames.length(producer, seq, 200, JUMBO);
            Await.until("frame " + seq + " of producer " + producer + " accepted",
                () -> TestFrames.send(publication, scratch, producer, sent, length) > 0, () -> "not accepted");
        }
    }

    private static long send(final PacketPublication publication, final UnsafeBuffer frame, final int length)
    {
        return publication.send(0, 0, 0, 0, 0, 0, 0, frame, 0, length);
    }

    /** The checker handed back by the consumer thread: a happens-before edge for its plain fields. */
    private SequenceChecker fromConsumerThread(final SequenceChecker checker) throws Exception
    {
        return consumerThread.submit(() -> checker).get(10, TimeUnit.SECONDS);
    }

    private record Consumer(
        NetworkRings rings, RingDoorbell doorbell, PacketSubscription subscription, SequenceChecker checker)
    {
    }
}
