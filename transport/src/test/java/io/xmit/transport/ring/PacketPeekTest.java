package io.xmit.transport.ring;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Peeking a ring: frames shown in place without being consumed, the handler's CONTINUE / BREAK / ABORT, consuming
 * what was peeked, term ends, and rings with their own term length. 64 KiB terms so that term ends come quickly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PacketPeekTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MAX_FRAME = 1518;
    private static final int STREAM = 21;
    /** Aeron's and xmit's headers, 32 bytes each, ahead of every frame. */
    private static final int HEADERS = 64;

    private Rings rings;
    private final RingDoorbell doorbell = new RingDoorbell(() -> { });
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MAX_FRAME]);

    /** What a peek handler saw of one frame. */
    record Peeked(long seq, int length, long address)
    {
    }

    @BeforeEach
    void setUp()
    {
        rings = Rings.launch("packet-peek-test",
            RingsConfig.defaults().withMaxFrameLength(MAX_FRAME).withIpcTermLength(TERM_LENGTH));
    }

    @AfterEach
    void tearDown()
    {
        rings.close();
    }

    @Test
    void peekTakesFramesWithoutMovingThePositionUntilConsumed()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final long[] ends = sendFrames(publication, 0, 5, 100);

        final List<Peeked> first = new ArrayList<>();
        assertEquals(5, subscription.peek(recordAll(first)));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seqs(first));
        assertEquals(0, subscription.position(), "a peek consumes nothing");

        final List<Peeked> second = new ArrayList<>();
        assertEquals(5, subscription.peek(recordAll(second)));
        assertEquals(first, second, "a second peek without consume sees the same frames at the same addresses");
        assertEquals(0, subscription.position());

        subscription.consumePeeked();
        assertEquals(ends[4], subscription.position());
        assertEquals(publication.position(), subscription.position());

        assertEquals(List.of(), peekSeqs(subscription), "nothing left after consuming");
        subscription.consumePeeked();
        assertEquals(ends[4], subscription.position(), "consuming an empty peek is a no-op");
    }

    @Test
    void breakTakesTheFrameAndEndsThePeek()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final long[] ends = sendFrames(publication, 0, 5, 100);

        final List<Long> offered = new ArrayList<>();
        final int taken = subscription.peek((header, buffer, offset, length) ->
        {
            offered.add(header.traceId());
            return 2 == header.traceId() ? PacketPeekHandler.BREAK : PacketPeekHandler.CONTINUE;
        });
        assertEquals(3, taken);
        assertEquals(List.of(0L, 1L, 2L), offered);
        subscription.consumePeeked();
        assertEquals(ends[2], subscription.position(), "the BREAK frame is consumed with the ones before it");

        assertEquals(List.of(3L, 4L), peekSeqs(subscription));
    }

    @Test
    void abortLeavesTheFrameAndEndsThePeek()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final long[] ends = sendFrames(publication, 0, 5, 100);

        final List<Long> offered = new ArrayList<>();
        final int taken = subscription.peek((header, buffer, offset, length) ->
        {
            offered.add(header.traceId());
            return 2 == header.traceId() ? PacketPeekHandler.ABORT : PacketPeekHandler.CONTINUE;
        });
        assertEquals(2, taken);
        assertEquals(List.of(0L, 1L, 2L), offered, "the aborted frame was offered, then left");
        subscription.consumePeeked();
        assertEquals(ends[1], subscription.position(), "the position stops before the aborted frame");

        assertEquals(List.of(2L, 3L, 4L), peekSeqs(subscription), "the aborted frame comes first in the next peek");
    }

    @Test
    void aHandlerThatThrowsLeavesItsFrameAndConsumeTakesTheOnesBefore()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final long[] ends = sendFrames(publication, 0, 5, 100);

        final IllegalStateException thrown = assertThrows(IllegalStateException.class,
            () -> subscription.peek((header, buffer, offset, length) ->
            {
                if (3 == header.traceId())
                {
                    throw new IllegalStateException("crash at frame 3");
                }
                return PacketPeekHandler.CONTINUE;
            }));
        assertEquals("crash at frame 3", thrown.getMessage());
        subscription.consumePeeked();
        assertEquals(ends[2], subscription.position(), "the frames finished before the throw are consumed");

        assertEquals(List.of(3L, 4L), peekSeqs(subscription),
            "the frame whose handler threw comes first in the next peek");
    }

    @Test
    void abortOnTheFirstFrameConsumesNothing()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        sendFrames(publication, 0, 3, 100);

        final int[] calls = new int[1];
        assertEquals(0, subscription.peek((header, buffer, offset, length) ->
        {
            calls[0]++;
            return PacketPeekHandler.ABORT;
        }));
        assertEquals(1, calls[0]);
        subscription.consumePeeked();
        assertEquals(0, subscription.position());

        assertEquals(List.of(0L, 1L, 2L), peekSeqs(subscription));
    }

    @Test
    void peekWithoutAnImageOrFramesReturnsZero()
    {
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        final int[] calls = new int[1];
        final PacketPeekHandler counting = (header, buffer, offset, length) ->
        {
            calls[0]++;
            return PacketPeekHandler.CONTINUE;
        };
        assertEquals(0, subscription.peek(counting), "no publication, no image");
        subscription.consumePeeked();
        assertEquals(PacketSubscription.NO_POSITION, subscription.position());

        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        awaitConnected(publication, subscription);
        assertEquals(0, subscription.peek(counting), "an image but no frame");
        subscription.consumePeeked();
        assertEquals(0, subscription.position());
        assertEquals(0, calls[0]);
    }

    @Test
    void peekedAddressesHoldTheSentBytesAndHeader()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final int[] lengths = {60, 61, 333, 1024, MAX_FRAME};
        for (int i = 0; i < lengths.length; i++)
        {
            assertTrue(sendThroughBackPressure(publication, i, lengths[i]) > 0);
        }

        final List<Peeked> peeked = new ArrayList<>();
        final List<String> headers = new ArrayList<>();
        assertEquals(lengths.length, subscription.peek((header, buffer, offset, length) ->
        {
            headers.add(header.flowHash() + "/" + header.socketId() + "/" + header.priority() + "/" +
                header.rxQueue() + "/" + header.flags() + "/" + header.traceId() + "/" + header.enqueueTimeNs());
            peeked.add(new Peeked(header.traceId(), length, buffer.addressOffset() + offset));
            return PacketPeekHandler.CONTINUE;
        }));

        // Read through the raw addresses after the peek returned, as a native driver would, before consuming.
        final UnsafeBuffer view = new UnsafeBuffer();
        for (int i = 0; i < lengths.length; i++)
        {
            final Peeked frame = peeked.get(i);
            assertEquals(i, frame.seq());
            assertEquals(lengths[i], frame.length());
            assertEquals(0, (frame.address() - HEADERS) % 32, "every message starts on a 32-byte boundary");
            view.wrap(frame.address(), frame.length());
            writeFrame(scratch, 0, i, lengths[i]);
            for (int b = 0; b < lengths[i]; b++)
            {
                assertEquals(scratch.getByte(b), view.getByte(b), "frame " + i + " byte " + b);
            }
            assertEquals(lengths[i] + "/" + i + "/" + (i & 15) + "/" + RingFrameHeader.NO_RX_QUEUE + "/" +
                (i & 3) + "/" + i + "/" + (1000L + i), headers.get(i));
        }
        subscription.consumePeeked();
        assertEquals(publication.position(), subscription.position());
    }

    @Test
    void aPeekStopsAtTheTermEndAndTheNextOneGoesOnInTheNextTerm()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);

        // 100-byte frames take 192 bytes: 341 fill 65,472 bytes of the first term, the 342nd goes into the second.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int seq = 0;
        while (seq < 330)
        {
            final long result = send(publication, seq, 100);
            if (result > 0)
            {
                seq++;
            }
            else
            {
                assertEquals(PacketPublication.BACK_PRESSURED, result, PacketPublication.resultName(result));
                drainPeeking(publication, subscription);
            }
            assertTrue(System.nanoTime() < deadline, "sent within 10 s");
        }
        drainPeeking(publication, subscription);
        assertEquals(330L * 192, subscription.position());

        int adminActions = 0;
        while (seq < 351)
        {
            final long result = send(publication, seq, 100);
            if (result > 0)
            {
                seq++;
            }
            else if (PacketPublication.ADMIN_ACTION == result)
            {
                adminActions++;
            }
            else
            {
                assertEquals(PacketPublication.BACK_PRESSURED, result, PacketPublication.resultName(result));
                Thread.onSpinWait();
            }
            assertTrue(System.nanoTime() < deadline, "sent within 10 s");
        }
        assertEquals(1, adminActions, "one term end crossed");
        assertEquals(TERM_LENGTH + 10L * 192, publication.position());

        assertEquals(List.of(330L, 331L, 332L, 333L, 334L, 335L, 336L, 337L, 338L, 339L, 340L),
            peekSeqs(subscription), "the rest of the first term and no more");
        subscription.consumePeeked();
        assertEquals(TERM_LENGTH, subscription.position(), "consumed to the term end, padding included");

        assertEquals(List.of(341L, 342L, 343L, 344L, 345L, 346L, 347L, 348L, 349L, 350L), peekSeqs(subscription));
        subscription.consumePeeked();
        assertEquals(publication.position(), subscription.position());
    }

    @Test
    void everyFrameIsTakenOnceInOrderAcrossManyTermsWithMixedActions()
    {
        final PacketPublication publication = rings.addPublication(STREAM, doorbell);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);

        final int total = 10_000;
        final Random random = new Random(42);
        final long[] expected = new long[1];
        final long[] offeredNext = new long[1];
        final String[] failure = new String[1];
        final PacketPeekHandler handler = (header, buffer, offset, length) ->
        {
            final long seq = header.traceId();
            if (seq != offeredNext[0] && null == failure[0])
            {
                failure[0] = "offered seq " + seq + ", expected " + offeredNext[0];
            }
            offeredNext[0]++;
            final String damage = checkFrame(buffer, offset, length, seq);
            if (null != damage && null == failure[0])
            {
                failure[0] = damage;
            }
            final int pick = random.nextInt(10);
            return pick < 7 ? PacketPeekHandler.CONTINUE : pick < 9 ? PacketPeekHandler.BREAK : PacketPeekHandler.ABORT;
        };

        int sent = 0;
        int peeks = 0;
        int repeeks = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (expected[0] < total)
        {
            for (int burst = 0; burst < 64 && sent < total; burst++)
            {
                final long result = send(publication, sent, lengthOf(sent));
                if (result > 0)
                {
                    sent++;
                }
                else if (PacketPublication.BACK_PRESSURED == result)
                {
                    break;
                }
                else
                {
                    assertEquals(PacketPublication.ADMIN_ACTION, result, PacketPublication.resultName(result));
                }
            }

            final long before = subscription.position();
            offeredNext[0] = expected[0];
            final int taken = subscription.peek(handler);
            peeks++;
            assertEquals(null, failure[0]);
            assertTrue(offeredNext[0] - expected[0] == taken || offeredNext[0] - expected[0] == taken + 1,
                "taken " + taken + " of " + (offeredNext[0] - expected[0]) + " offered");
            assertEquals(before, subscription.position(), "the peek itself consumes nothing");
            assertTrue(System.nanoTime() < deadline, "10,000 frames peeked within 30 s, at " + expected[0]);
            if (taken > 0 && random.nextInt(5) == 0)
            {
                repeeks++;
                continue;
            }
            subscription.consumePeeked();
            final long after = subscription.position();
            if (after > before)
            {
                assertEquals(before / TERM_LENGTH, (after - 1) / TERM_LENGTH,
                    "one peek stays in one term: " + before + " to " + after);
            }
            expected[0] += taken;
        }

        assertEquals(total, sent);
        assertEquals(total, expected[0]);
        assertEquals(publication.position(), subscription.position());
        assertTrue(subscription.position() > 50L * TERM_LENGTH, "many term ends crossed: " + subscription.position());
        assertTrue(peeks > 1000 && repeeks > 100, peeks + " peeks, " + repeeks + " repeated without consuming");
    }

    @Test
    void aRingWithItsOwnTermLengthEndsItsTermsThere()
    {
        final int ownTerm = 2 * TERM_LENGTH;
        final PacketPublication publication = rings.addPublication(STREAM, doorbell, ownTerm);
        final PacketSubscription subscription = rings.addSubscription(STREAM, doorbell);
        awaitConnected(publication, subscription);
        final PacketClaim claim = new PacketClaim();

        // 100-byte frames take 192 bytes: 682 fill 130,944 bytes of a 128 KiB term, the 683rd claim pads its end.
        int sent = 0;
        long lastPosition = 0;
        long firstAdminActionAfter = -1;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sent < 700)
        {
            final long result = publication.tryClaim(100, claim);
            if (result > 0)
            {
                writeFrame(claim.buffer(), claim.frameOffset(), sent, 100);
                claim.putHeader(100, sent, 0, RingFrameHeader.NO_RX_QUEUE, 0, sent, 0);
                claim.commit();
                lastPosition = result;
                sent++;
            }
            else if (PacketPublication.ADMIN_ACTION == result)
            {
                if (firstAdminActionAfter < 0)
                {
                    firstAdminActionAfter = lastPosition;
                }
            }
            else
            {
                assertEquals(PacketPublication.BACK_PRESSURED, result, PacketPublication.resultName(result));
                drainPeeking(publication, subscription);
            }
            assertTrue(System.nanoTime() < deadline, "sent within 10 s");
        }
        assertEquals(682L * 192, firstAdminActionAfter, "no term end at 64 KiB, the rings' default");
        drainPeeking(publication, subscription);
        assertEquals(ownTerm + 18L * 192, subscription.position());
        assertEquals(publication.position(), subscription.position());
    }

    @Test
    void aBadTermLengthIsRefusedNamingIt()
    {
        assertEquals("ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 100000",
            assertThrows(IllegalArgumentException.class,
                () -> rings.addPublication(STREAM, doorbell, 100_000)).getMessage());
        assertEquals("ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 32768",
            assertThrows(IllegalArgumentException.class,
                () -> rings.addPublication(STREAM, doorbell, 32 * 1024)).getMessage());
        assertEquals("ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 0",
            assertThrows(IllegalArgumentException.class,
                () -> rings.addPublication(STREAM, doorbell, 0)).getMessage());
        assertEquals("doorbell must not be null", assertThrows(IllegalArgumentException.class,
            () -> rings.addPublication(STREAM, null, TERM_LENGTH)).getMessage());
    }

    @Test
    void aTermTooShortForTheLongestFrameIsRefusedNamingBoth()
    {
        try (Rings jumbo = Rings.launch("packet-peek-jumbo",
            RingsConfig.defaults().withMaxFrameLength(9216).withIpcTermLength(128 * 1024)))
        {
            assertEquals("maxFrameLength 9216 needs an IPC MTU of 9280 bytes, more than one eighth of ipcTermLength " +
                "65536; use a longer term or a shorter maxFrameLength (at most 8128)",
                assertThrows(IllegalArgumentException.class,
                    () -> jumbo.addPublication(STREAM, doorbell, TERM_LENGTH)).getMessage());
            final PacketPublication publication = jumbo.addPublication(STREAM, doorbell, 128 * 1024);
            assertEquals(9216, publication.maxFrameLength());
        }
    }

    /** Peeks and consumes until the consumer has caught up with the producers. */
    private static void drainPeeking(final PacketPublication publication, final PacketSubscription subscription)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (subscription.position() < publication.position())
        {
            subscription.peek((header, buffer, offset, length) -> PacketPeekHandler.CONTINUE);
            subscription.consumePeeked();
            assertTrue(System.nanoTime() < deadline, "drained within 10 s");
        }
    }

    private static PacketPeekHandler recordAll(final List<Peeked> into)
    {
        return (header, buffer, offset, length) ->
        {
            into.add(new Peeked(header.traceId(), length, buffer.addressOffset() + offset));
            return PacketPeekHandler.CONTINUE;
        };
    }

    private static List<Long> seqs(final List<Peeked> peeked)
    {
        return peeked.stream().map(Peeked::seq).toList();
    }

    /** Peeks with CONTINUE on every frame and returns their seqs, after checking the peek took every one. */
    private static List<Long> peekSeqs(final PacketSubscription subscription)
    {
        final List<Peeked> peeked = new ArrayList<>();
        final int taken = subscription.peek(recordAll(peeked));
        assertEquals(peeked.size(), taken, "a CONTINUE peek takes every frame it offers");
        return seqs(peeked);
    }

    /** Sends {@code count} frames of {@code length} bytes from {@code firstSeq}; the ring positions after each. */
    private long[] sendFrames(
        final PacketPublication publication, final int firstSeq, final int count, final int length)
    {
        final long[] ends = new long[count];
        for (int i = 0; i < count; i++)
        {
            ends[i] = sendThroughBackPressure(publication, firstSeq + i, length);
            assertTrue(ends[i] > 0, PacketPublication.resultName(ends[i]));
        }
        return ends;
    }

    /** A length from 60 to 1518 that follows from the sequence, so that term ends fall anywhere in a frame. */
    private static int lengthOf(final long seq)
    {
        return 60 + (int)((seq * 0x9E3779B97F4A7C15L >>> 40) % (MAX_FRAME - 60 + 1));
    }

    /** Frame {@code seq}: the sequence in its first 8 bytes, then bytes that follow from it. */
    private static void writeFrame(final MutableDirectBuffer buffer, final int offset, final long seq,
        final int length)
    {
        buffer.putLong(offset, seq);
        for (int i = 8; i < length; i++)
        {
            buffer.putByte(offset + i, (byte)(seq * 31 + i));
        }
    }

    private static String checkFrame(final DirectBuffer buffer, final int offset, final int length, final long seq)
    {
        if (length != lengthOf(seq))
        {
            return "seq " + seq + ": length " + length + ", expected " + lengthOf(seq);
        }
        if (buffer.getLong(offset) != seq)
        {
            return "seq " + seq + ": frame says " + buffer.getLong(offset);
        }
        for (int i = 8; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte)(seq * 31 + i))
            {
                return "seq " + seq + ": byte " + i + " differs";
            }
        }
        return null;
    }

    private long send(final PacketPublication publication, final long seq, final int length)
    {
        writeFrame(scratch, 0, seq, length);
        return publication.send(length, (int)seq, (int)(seq & 15), RingFrameHeader.NO_RX_QUEUE, (int)(seq & 3), seq,
            1000L + seq, scratch, 0, length);
    }

    /** Sends, waiting out back-pressure: the driver moves the publisher's limit on in its own duty cycle. */
    private long sendThroughBackPressure(final PacketPublication publication, final long seq, final int length)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long result;
        while ((result = send(publication, seq, length)) == PacketPublication.BACK_PRESSURED ||
            PacketPublication.ADMIN_ACTION == result)
        {
            assertTrue(System.nanoTime() < deadline, "back-pressured for 10 s");
            Thread.onSpinWait();
        }
        return result;
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
}
