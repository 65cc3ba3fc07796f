package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One ring, one thread: what a frame looks like on both sides, the negative results, claims, and the block cursor
 * over padding. 64 KiB terms so that term ends come quickly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PacketRingTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int STREAM = 11;

    private Rings rings;
    private final RingDoorbell doorbell = new RingDoorbell(() -> { });
    private final UnsafeBuffer source = new UnsafeBuffer(new byte[2048]);
    private final List<Received> received = new ArrayList<>();
    private final PacketHandler collect =
        (header, buffer, offset, length) -> received.add(Received.of(header, buffer, offset, length));

    /** What the handler saw, the frame as hex so that records compare by content. */
    record Received(
        int flowHash, int socketId, int priority, int rxQueue, int flags, long traceId, long enqueueTimeNs,
        String frame)
    {
        static Received of(final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
        {
            return new Received(header.flowHash(), header.socketId(), header.priority(), header.rxQueue(),
                header.flags(), header.traceId(), header.enqueueTimeNs(), hex(buffer, offset, length));
        }
    }

    @BeforeEach
    void setUp()
    {
        rings = Rings.launch("packet-ring-test",
            RingsConfig.defaults().withMaxFrameLength(1518).withIpcTermLength(TERM_LENGTH));
        for (int i = 0; i < source.capacity(); i++)
        {
            source.putByte(i, (byte)(i * 7 + 3));
        }
    }

    @AfterEach
    void tearDown()
    {
        rings.close();
    }

    @Test
    void sendWritesTheHeaderAndFrameThatPollDelivers()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);

        final long position = publication.send(0x12345678, 42, 6, 3, RingFrameHeader.FLAG_OOO_OKAY, 99L, 123_456_789L,
            source, 5, 60);
        assertEquals(32 + 32 + 64, position - subscription.position(),
            "Aeron header, xmit header, 60 bytes aligned to 32");
        assertEquals(position, publication.position());

        assertEquals(1, pollUntil(subscription, 1));
        final Received frame = received.get(0);
        assertEquals(
            new Received(0x12345678, 42, 6, 3, RingFrameHeader.FLAG_OOO_OKAY, 99L, 123_456_789L, frame.frame()), frame);
        assertEquals(hex(source, 5, 60), frame.frame());
        assertEquals(position, subscription.position());
    }

    @Test
    void claimWritesInPlaceAndAbortIsSkipped()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final PacketClaim claim = publication.newClaim();

        assertTrue(claimThroughBackPressure(publication, 100, claim) > 0);
        assertTrue(claim.isActive());
        assertEquals(100, claim.frameLength());
        claim.putHeader(1, 2, 3, RingFrameHeader.NO_RX_QUEUE, 0, 4, 5);
        claim.buffer().putBytes(claim.frameOffset(), source, 0, 100);
        claim.commit();
        assertFalse(claim.isActive());

        assertTrue(claimThroughBackPressure(publication, 200, claim) > 0);
        claim.abort();

        assertTrue(claimThroughBackPressure(publication, 0, claim) > 0, "an empty frame is a frame");
        claim.header().socketId(9).rxQueue(RingFrameHeader.NO_RX_QUEUE);
        claim.commit();

        assertEquals(2, pollUntil(subscription, 2));
        assertEquals(new Received(1, 2, 3, -1, 0, 4, 5, hex(source, 0, 100)), received.get(0));
        assertEquals(new Received(0, 9, 0, -1, 0, 0, 0, ""), received.get(1));

        assertEquals("no frame is claimed: commit and abort follow one successful tryClaim",
            assertThrows(IllegalStateException.class, claim::commit).getMessage());
        assertThrows(IllegalStateException.class, claim::abort);
        assertTrue(claimThroughBackPressure(publication, 10, claim) > 0);
        assertEquals("the claim still holds a frame: commit or abort it first",
            assertThrows(IllegalStateException.class, () -> publication.tryClaim(10, claim)).getMessage());
        claim.abort();
    }

    @Test
    void notConnectedBackPressuredAndClosedAreValues()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        assertEquals(PacketPublication.NOT_CONNECTED, send(publication, 64));
        assertEquals("NOT_CONNECTED", PacketPublication.resultName(PacketPublication.NOT_CONNECTED));
        assertEquals(0, publication.availableWindow(), "no consumer, no window");

        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        long result;
        int sent = 0;
        int adminActions = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((result = send(publication, 64)) != PacketPublication.BACK_PRESSURED)
        {
            assertTrue(result > 0 || result == PacketPublication.ADMIN_ACTION, PacketPublication.resultName(result));
            adminActions += result == PacketPublication.ADMIN_ACTION ? 1 : 0;
            sent += result > 0 ? 1 : 0;
            assertTrue(System.nanoTime() < deadline, "back-pressured within 10 s");
        }
        // The publisher may run half a term ahead of the consumer; 128 bytes per message.
        assertEquals(TERM_LENGTH / 2 / 128, sent, "frames sent before back-pressure");
        assertEquals(0, publication.availableWindow());
        assertEquals(0, adminActions, "half a term fills before the first term end");
        assertEquals(PacketPublication.BACK_PRESSURED, send(publication, 64));

        assertEquals(sent, pollUntil(subscription, sent));
        final long afterDrain = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((result = send(publication, 64)) == PacketPublication.BACK_PRESSURED)
        {
            assertTrue(System.nanoTime() < afterDrain, "the driver moves the limit on once the consumer drained");
            Thread.onSpinWait();
        }
        assertTrue(result > 0, PacketPublication.resultName(result));

        publication.close();
        assertTrue(publication.isClosed());
        assertEquals(PacketPublication.CLOSED, send(publication, 64));
        assertEquals(PacketPublication.CLOSED, publication.tryClaim(64, publication.newClaim()));
        publication.close();
    }

    @Test
    void sendsAfterTheRingsClosedReturnClosed()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        rings.close();
        assertEquals(PacketPublication.CLOSED, send(publication, 64));
        assertEquals(0, subscription.poll(collect, 10));
    }

    @Test
    void oversizeFrameIsRejectedWithItsResult()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        assertEquals(1518, publication.maxFrameLength());

        final UnsafeBuffer big = new UnsafeBuffer(new byte[4096]);
        assertEquals(PacketPublication.FRAME_TOO_LONG, publication.send(0, 0, 0, 0, 0, 0, 0, big, 0, 1519));
        assertEquals(PacketPublication.FRAME_TOO_LONG, publication.tryClaim(4000, publication.newClaim()));
        assertEquals("FRAME_TOO_LONG", PacketPublication.resultName(PacketPublication.FRAME_TOO_LONG));
        assertTrue(publication.send(0, 0, 0, 0, 0, 0, 0, big, 0, 1518) > 0, "the longest frame fits");
        assertEquals(1, pollUntil(subscription, 1));
        assertEquals(1518, received.get(0).frame().length() / 2);

        assertEquals("frame length must not be negative, was -1", assertThrows(IllegalArgumentException.class,
            () -> publication.send(0, 0, 0, 0, 0, 0, 0, big, 0, -1)).getMessage());
    }

    @Test
    void aSourceTooShortAbortsTheClaimAndTheRingGoesOn()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final UnsafeBuffer small = new UnsafeBuffer(new byte[10]);
        assertThrows(IndexOutOfBoundsException.class, () -> publication.send(0, 0, 0, 0, 0, 0, 0, small, 0, 64));
        assertTrue(sendThroughBackPressure(publication, 64) > 0, "the ring is not held up by the failed send");
        assertEquals(1, pollUntil(subscription, 1));
        assertEquals(64, received.get(0).frame().length() / 2);
    }

    @Test
    void blockPollHandsOverRunsOfFramesAndSkipsPadding()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final PacketClaim claim = publication.newClaim();

        // 1000 frames of 1 to 1000 bytes cross several 64 KiB term ends (each one padded), plus aborted claims.
        final List<Integer> lengths = new ArrayList<>();
        final List<Integer> blockLengths = new ArrayList<>();
        int sent = 0;
        int aborted = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        final int[] delivered = new int[1];
        final PacketBlockHandler handler = block ->
        {
            blockLengths.add(block.length());
            assertEquals(0, block.length() % 32, "whole aligned messages");
            assertEquals(-1, block.frameOffset());
            while (block.next())
            {
                final int length = block.frameLength();
                assertEquals(lengths.get(delivered[0]), length);
                assertEquals(delivered[0], block.header().socketId());
                assertEquals(length, block.header().flowHash());
                for (int i = 0; i < length; i++)
                {
                    assertEquals((byte)(delivered[0] + i), block.buffer().getByte(block.frameOffset() + i));
                }
                delivered[0]++;
            }
            assertFalse(block.next());
            block.rewind();
            int again = 0;
            while (block.next())
            {
                again++;
            }
            assertTrue(again >= 0);
        };

        while (sent < 1000)
        {
            final int length = 1 + (sent * 37) % 1000;
            final long result = publication.tryClaim(length, claim);
            if (result > 0)
            {
                if (sent % 10 == 9 && aborted < sent / 10)
                {
                    claim.abort();
                    aborted++;
                    continue;
                }
                claim.putHeader(length, sent, 0, -1, 0, 0, 0);
                for (int i = 0; i < length; i++)
                {
                    claim.buffer().putByte(claim.frameOffset() + i, (byte)(sent + i));
                }
                claim.commit();
                lengths.add(length);
                sent++;
            }
            else if (result == PacketPublication.BACK_PRESSURED)
            {
                subscription.blockPoll(handler, subscription.minBlockLength() * 4);
            }
            else
            {
                assertEquals(PacketPublication.ADMIN_ACTION, result, PacketPublication.resultName(result));
            }
            assertTrue(System.nanoTime() < deadline, "sent within 20 s");
        }
        while (delivered[0] < sent)
        {
            subscription.blockPoll(handler, subscription.minBlockLength() * 4);
            assertTrue(System.nanoTime() < deadline, "delivered within 20 s");
        }
        assertEquals(1000, delivered[0]);
        assertEquals(99, aborted);
        assertTrue(blockLengths.stream().allMatch(l -> l <= subscription.minBlockLength() * 4));
        assertEquals(publication.position(), subscription.position());
        assertTrue(publication.position() > 3L * TERM_LENGTH, "several term ends crossed: " + publication.position());
    }

    @Test
    void blockPollRejectsALimitBelowTheMtu()
    {
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        assertEquals(1600, subscription.minBlockLength());
        assertEquals("blockLengthLimit must be at least 1600 (the ring's MTU), was 1599",
            assertThrows(IllegalArgumentException.class,
                () -> subscription.blockPoll(block -> { }, 1599)).getMessage());
    }

    @Test
    void aHandlerExceptionReachesThePollerAndTheFrameCountsAsConsumed()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        assertTrue(sendThroughBackPressure(publication, 64) > 0);
        assertTrue(sendThroughBackPressure(publication, 65) > 0);

        final IllegalStateException boom = new IllegalStateException("boom");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        IllegalStateException thrown = null;
        while (null == thrown)
        {
            try
            {
                subscription.poll((header, buffer, offset, length) -> { throw boom; }, 10);
            }
            catch (final IllegalStateException ex)
            {
                thrown = ex;
            }
            assertTrue(System.nanoTime() < deadline);
        }
        assertSame(boom, thrown);
        assertEquals(1, pollUntil(subscription, 1));
        assertEquals(65, received.get(0).frame().length() / 2,
            "the frame that threw was consumed, the next one was not");
    }

    @Test
    void subscriptionAddedAfterFramesWereSentRingsTheDoorbellWhenItsImageArrives()
    {
        final int[] wakes = new int[1];
        final RingDoorbell consumerDoorbell = new RingDoorbell(() -> wakes[0]++);
        final PacketSubscription subscription = rings.addSubscription(STREAM, consumerDoorbell);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final PacketPublication publication = rings.addPublication(STREAM, consumerDoorbell);
        while (wakes[0] == 0)
        {
            assertTrue(System.nanoTime() < deadline, "the image's arrival woke the consumer");
            Thread.onSpinWait();
        }
        assertEquals(RingDoorbell.SCHEDULED, consumerDoorbell.state());
        assertTrue(subscription.isConnected());
        assertEquals(0, subscription.joinPosition());
        assertEquals(0, publication.position());
    }

    @Test
    void aClaimThatEndsTheTermRingsTheDoorbellOnAdminAction()
    {
        final int[] wakes = new int[1];
        final RingDoorbell consumer = new RingDoorbell(() -> wakes[0]++);
        final PacketPublication publication = rings.addPublication(STREAM, consumer);
        final PacketSubscription subscription = rings.addSubscription(STREAM, consumer);
        awaitConnected(publication, subscription);
        final RingDutyCycle cycle = new RingDutyCycle(consumer, () -> subscription.poll(collect, 1000), 0);

        // 100-byte frames take 192 bytes each: 341 fill 65,472 bytes of the first term, 64 are left.
        for (int sent = 0; sent < 341; sent += 31)
        {
            for (int i = 0; i < 31; i++)
            {
                assertTrue(sendThroughBackPressure(publication, 100) > 0);
            }
            pollUntil(subscription, 31);
        }
        assertEquals(65_472, subscription.position());
        cycle.onPoll();
        assertEquals(RingDoorbell.IDLE, consumer.state(), "the consumer went idle with the ring drained");
        final int wakesBefore = wakes[0];

        assertEquals(PacketPublication.ADMIN_ACTION, sendThroughBackPressure(publication, 100),
            "the claim wrote the padding");
        assertEquals("SCHEDULED", RingDoorbell.stateName(consumer.state()), "ADMIN_ACTION rang the doorbell");
        assertEquals(wakesBefore + 1, wakes[0], "the consumer was woken to read past the padding");

        cycle.onPoll();
        assertEquals(65_536, subscription.position(), "the consumer read the padding");
        assertEquals(RingDoorbell.IDLE, consumer.state());
    }

    @Test
    void anAbortedClaimRingsTheDoorbellForTheFramesBehindIt()
    {
        final int[] wakes = new int[1];
        final RingDoorbell consumer = new RingDoorbell(() -> wakes[0]++);
        final PacketPublication publication = rings.addPublication(STREAM, consumer);
        final PacketSubscription subscription = rings.addSubscription(STREAM, consumer);
        awaitConnected(publication, subscription);
        final RingDutyCycle cycle = new RingDutyCycle(consumer, () -> subscription.poll(collect, 10), 0);
        cycle.onPoll();
        assertEquals(RingDoorbell.IDLE, consumer.state());

        final PacketClaim first = publication.newClaim();
        assertTrue(claimThroughBackPressure(publication, 64, first) > 0);
        assertTrue(sendThroughBackPressure(publication, 65) > 0, "a frame committed behind an open claim");
        assertEquals(RingDoorbell.SCHEDULED, consumer.state());
        cycle.onPoll();
        assertEquals(0, received.size(), "the open claim holds the consumer up");
        assertEquals(RingDoorbell.IDLE, consumer.state());

        final int wakesBefore = wakes[0];
        first.abort();
        assertEquals(wakesBefore + 1, wakes[0], "the abort woke the consumer");
        cycle.onPoll();
        assertEquals(1, received.size());
        assertEquals(65, received.get(0).frame().length() / 2);
    }

    private long send(final PacketPublication publication, final int length)
    {
        return publication.send(0, 0, 0, -1, 0, 0, 0, source, 0, length);
    }

    /** Claims, waiting out back-pressure. */
    private static long claimThroughBackPressure(
        final PacketPublication publication, final int length, final PacketClaim claim)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long result;
        while ((result = publication.tryClaim(length, claim)) == PacketPublication.BACK_PRESSURED)
        {
            assertTrue(System.nanoTime() < deadline, "back-pressured for 10 s");
            Thread.onSpinWait();
        }
        return result;
    }

    /** Sends, waiting out back-pressure: the driver moves the publisher's limit on in its own duty cycle. */
    private long sendThroughBackPressure(final PacketPublication publication, final int length)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long result;
        while ((result = send(publication, length)) == PacketPublication.BACK_PRESSURED)
        {
            assertTrue(System.nanoTime() < deadline, "back-pressured for 10 s");
            Thread.onSpinWait();
        }
        return result;
    }

    private int pollUntil(final PacketSubscription subscription, final int count)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int total = 0;
        while (total < count)
        {
            total += subscription.poll(collect, count - total);
            assertTrue(System.nanoTime() < deadline, "polled " + count + " frames within 10 s, got " + total);
        }
        return total;
    }

    /** Connected, and the driver has set the publisher's first limit (it does so in its own duty cycle). */
    private static void awaitConnected(final PacketPublication publication, final PacketSubscription subscription)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!publication.isConnected() || !subscription.isConnected() || publication.availableWindow() <= 0)
        {
            assertTrue(System.nanoTime() < deadline, "connected within 10 s");
            Thread.onSpinWait();
        }
    }

    private static String hex(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
