package io.xmit.transport.ring;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two producers, a million frames each, one ring, one consumer thread polling flat out: every frame arrives exactly
 * once, in each producer's order, intact. One producer copies with {@code send}, the other writes in place through
 * a claim. Varied lengths: 12 to 267 bytes, and every 997th frame 1514 bytes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PacketTransferTest
{
    private static final int PRODUCERS = 2;
    private static final long FRAMES_PER_PRODUCER = 1_000_000;
    private static final int LENGTH_SPREAD = 256;
    private static final int JUMBO = 1514;
    private static final long STALL_LIMIT_NS = TimeUnit.SECONDS.toNanos(10);

    enum Consumer
    {
        POLL, BLOCK_POLL
    }

    @ParameterizedTest
    @EnumSource(Consumer.class)
    void twoProducersAMillionFramesEachArriveExactlyOnceIntact(final Consumer mode) throws Exception
    {
        try (Rings rings = Rings.launch("transfer-" + mode.name().toLowerCase().replace('_', '-'),
            RingsConfig.defaults().withMaxFrameLength(JUMBO)))
        {
            final RingDoorbell doorbell = new RingDoorbell(() -> { });
            final PacketSubscription subscription = rings.addSubscription(1, doorbell);
            final PacketPublication publication = rings.addPublication(1, doorbell);
            final SequenceChecker checker = new SequenceChecker(PRODUCERS, LENGTH_SPREAD, JUMBO);
            final AtomicReference<String> producerFailure = new AtomicReference<>();
            final long total = PRODUCERS * FRAMES_PER_PRODUCER;

            final Thread[] producers = new Thread[PRODUCERS];
            for (int p = 0; p < PRODUCERS; p++)
            {
                final int id = p;
                producers[p] = Thread.ofPlatform().name("producer-" + p).start(
                    () -> produce(publication, id, producerFailure));
            }

            final long start = System.nanoTime();
            long lastProgress = start;
            long lastConsumed = 0;
            while (checker.consumed() < total && null == producerFailure.get())
            {
                final long work = mode == Consumer.POLL ?
                    subscription.poll(checker, 256) : subscription.blockPoll(checker, 64 * 1024);
                if (work == 0)
                {
                    Thread.onSpinWait();
                    final long now = System.nanoTime();
                    if (checker.consumed() != lastConsumed)
                    {
                        lastConsumed = checker.consumed();
                        lastProgress = now;
                    }
                    assertTrue(now - lastProgress < STALL_LIMIT_NS, "the consumer made no progress for 10 s at " +
                        checker.consumed() + " of " + total + " frames");
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            for (final Thread producer : producers)
            {
                producer.join(TimeUnit.SECONDS.toMillis(10));
            }

            System.out.printf("ring transfer %s: %,d frames in %,d ms%n", mode, checker.consumed(), elapsedMs);
            assertNull(producerFailure.get());
            assertNull(checker.firstError());
            assertEquals(total, checker.consumed());
            assertEquals(0, checker.lost());
            assertEquals(0, checker.duplicated());
            assertEquals(0, checker.corrupt());
            for (int p = 0; p < PRODUCERS; p++)
            {
                assertEquals(FRAMES_PER_PRODUCER, checker.inOrder(p), "producer " + p);
            }
            assertEquals(publication.position(), subscription.position());
        }
    }

    private static void produce(
        final PacketPublication publication, final int id, final AtomicReference<String> failure)
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[JUMBO]);
        final PacketClaim claim = publication.newClaim();
        final boolean inPlace = id % 2 == 1;
        long lastProgress = System.nanoTime();
        for (long seq = 0; seq < FRAMES_PER_PRODUCER && null == failure.get(); )
        {
            final int length = TestFrames.length(id, seq, LENGTH_SPREAD, JUMBO);
            final long result = TestFrames.offer(publication, inPlace, claim, scratch, id, seq, length);

            if (result > 0)
            {
                seq++;
                lastProgress = System.nanoTime();
            }
            else if (result == PacketPublication.BACK_PRESSURED || result == PacketPublication.ADMIN_ACTION ||
                result == PacketPublication.NOT_CONNECTED)
            {
                Thread.onSpinWait();
                if (System.nanoTime() - lastProgress > STALL_LIMIT_NS)
                {
                    failure.compareAndSet(null, "producer " + id + " stuck at seq " + seq + " for 10 s: " +
                        PacketPublication.resultName(result));
                }
            }
            else
            {
                failure.compareAndSet(null, "producer " + id + ": " + PacketPublication.resultName(result));
            }
        }
    }
}
