package io.xmit.transport.ring;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wake-up protocol under stress, the way an actor drains a ring: the consumer is a single-thread executor that
 * runs {@code Poll} tasks like a mailbox, and the doorbell's wake callback submits one. Four producers send
 * 5,000,000 sequenced frames in rounds with random pauses (mostly 0–50 µs, sometimes 1–5 ms, so the consumer
 * idles often). After every round all producers stop, and every frame sent so far must be consumed within 100 ms, or
 * (on a loaded machine) while the consumer still runs or has a Poll on its way: a frame left behind while the consumer
 * sleeps with no Poll coming is "stranded". Producers that cannot send for 2 s at the end of a
 * round are a deadlock. Both are counted, rescued (by ringing the doorbell from the test) so the run goes on, and
 * reported with the seed in one assertion at the end; after 20 of them the run stops early.
 */
class WakeUpStressTest
{
    private static final long SEED = Long.getLong("test.stress.seed", 0x5EED_2025L);
    private static final long TOTAL_FRAMES = Long.getLong("test.stress.frames", 5_000_000L);
    private static final int PRODUCERS = 4;
    private static final int MAX_FRAMES_PER_PRODUCER_AND_ROUND = 64;
    private static final int MAX_BURST = 16;
    private static final int LONG_PAUSE_ONE_IN = 400;
    private static final long CHECKPOINT_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long DEADLOCK_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long TIME_BUDGET_NS = TimeUnit.SECONDS.toNanos(100);
    private static final int MAX_FAILURES = 20;
    private static final int LENGTH_SPREAD = 200;
    private static final int JUMBO = 1514;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void noFrameIsLostDuplicatedOrStrandedWithDefaultTerms() throws Exception
    {
        final Result result = new Run("wake-stress", RingsConfig.defaults().withMaxFrameLength(JUMBO), 4, 0).execute();
        result.assertClean();
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void noFrameIsStrandedBehindEndOfTermPaddingWhileProducersAreBackPressured() throws Exception
    {
        // 64 KiB terms: a term end (and its padding) every ~400 frames, and a window of 32 KiB that a consumer
        // stalling now and then (one Poll in 1000 parks for 0.2–2 ms) lets the producers fill.
        final Result result = new Run("wake-stress-small",
            RingsConfig.defaults().withMaxFrameLength(JUMBO).withIpcTermLength(64 * 1024), 4, 1000).execute();
        result.assertClean();
        assertTrue(result.backPressured > 0, result.describe() + ": the producers were never back-pressured");
        assertTrue(result.adminActions > 0, result.describe() + ": the producers never crossed a term end");
    }

    /** What one run saw; {@link #assertClean()} fails with all of it and the seed. */
    record Result(
        String name,
        long seed,
        long frames,
        long consumed,
        long checkpoints,
        long elapsedMs,
        long stranded,
        long strandedFrames,
        long deadlocks,
        String firstFailure,
        long lost,
        long duplicated,
        long corrupt,
        String firstError,
        long[] sentPerProducer,
        long[] inOrderPerProducer,
        long idles,
        long repollHits,
        long wakes,
        long pollsInFlightViolations,
        long backPressured,
        long adminActions,
        String abortReason)
    {
        String describe()
        {
            return String.format("%s seed=0x%X: %,d of %,d frames consumed, %,d checkpoints in %,d ms; " +
                "stranded at %d checkpoints (%d frames), %d deadlocks; lost %d, duplicated %d, corrupt %d; " +
                "consumer idled %,d times, re-poll found work %,d times, %,d wakes, %d Polls in flight at once; " +
                "producers back-pressured %,d times, %,d ADMIN_ACTIONs",
                name, seed, consumed, frames, checkpoints, elapsedMs, stranded, strandedFrames, deadlocks, lost,
                duplicated, corrupt, idles, repollHits, wakes, pollsInFlightViolations, backPressured, adminActions);
        }

        void assertClean()
        {
            final String what = describe();
            System.out.println(what);
            assertNull(abortReason, what);
            assertEquals(0, stranded, what + "; first: " + firstFailure);
            assertEquals(0, deadlocks, what + "; first: " + firstFailure);
            assertNull(firstError, what);
            assertEquals(0, lost, what);
            assertEquals(0, duplicated, what);
            assertEquals(0, corrupt, what);
            assertEquals(0, pollsInFlightViolations, what);
            assertEquals(frames, consumed, what);
            for (int p = 0; p < sentPerProducer.length; p++)
            {
                assertEquals(sentPerProducer[p], inOrderPerProducer[p], what + "; producer " + p);
            }
        }
    }

    /** One stress run: rings, a mailbox-like consumer, four producers and the checkpointing main thread. */
    private static final class Run
    {
        private final String name;
        private final RingsConfig config;
        private final int spinBudget;
        private final int stallOneIn;
        private final SequenceChecker checker = new SequenceChecker(PRODUCERS, LENGTH_SPREAD, JUMBO);
        private final ExecutorService mailbox = Executors.newSingleThreadExecutor(
            runnable -> Thread.ofPlatform().name("ring-consumer").daemon().unstarted(runnable));
        private final AtomicInteger pollsInFlight = new AtomicInteger();
        private final AtomicLong pollsInFlightViolations = new AtomicLong();
        private final AtomicLong wakes = new AtomicLong();
        private final AtomicLong backPressured = new AtomicLong();
        private final AtomicLong adminActions = new AtomicLong();
        private final AtomicLongArray sent = new AtomicLongArray(PRODUCERS);
        private final int[] roundCounts = new int[PRODUCERS];
        private final Phaser gates = new Phaser(PRODUCERS + 1);
        private final SplittableRandom consumerRandom = new SplittableRandom(SEED ^ 0xC0FFEE);
        private volatile boolean stop;
        private RingDoorbell doorbell;
        private RingDutyCycle cycle;
        private PacketPublication publication;
        private PacketSubscription subscription;
        private final Runnable pollTask = this::onPoll;

        Run(final String name, final RingsConfig config, final int spinBudget, final int stallOneIn)
        {
            this.name = name;
            this.config = config;
            this.spinBudget = spinBudget;
            this.stallOneIn = stallOneIn;
        }

        Result execute() throws Exception
        {
            try (Rings rings = Rings.launch(name, config))
            {
                doorbell = new RingDoorbell(this::sendPoll);
                subscription = rings.addSubscription(1, doorbell);
                publication = rings.addPublication(1, doorbell);
                cycle = new RingDutyCycle(doorbell, () -> subscription.poll(checker, 64), spinBudget);
                awaitConnected();

                final Thread[] producers = new Thread[PRODUCERS];
                for (int p = 0; p < PRODUCERS; p++)
                {
                    final int id = p;
                    producers[p] = Thread.ofPlatform().name("producer-" + p).daemon().start(() -> produce(id));
                }
                try
                {
                    return checkpointRounds();
                }
                finally
                {
                    stop = true;
                    gates.forceTermination();
                    for (final Thread producer : producers)
                    {
                        producer.join(TimeUnit.SECONDS.toMillis(10));
                    }
                    mailbox.shutdown();
                    mailbox.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
        }

        private Result checkpointRounds() throws Exception
        {
            final SplittableRandom random = new SplittableRandom(SEED);
            final long start = System.nanoTime();
            long planned = 0;
            long checkpoints = 0;
            long stranded = 0;
            long strandedFrames = 0;
            long deadlocks = 0;
            String firstFailure = null;
            String abortReason = null;

            while (planned < TOTAL_FRAMES)
            {
                if (stranded + deadlocks >= MAX_FAILURES)
                {
                    abortReason = "stopped early after " + MAX_FAILURES + " failures";
                    break;
                }
                if (System.nanoTime() - start > TIME_BUDGET_NS)
                {
                    abortReason = "time budget of " + TimeUnit.NANOSECONDS.toSeconds(TIME_BUDGET_NS) + " s spent";
                    break;
                }
                for (int p = 0; p < PRODUCERS; p++)
                {
                    final int count = (int)Math.min(1 + random.nextInt(MAX_FRAMES_PER_PRODUCER_AND_ROUND),
                        TOTAL_FRAMES - planned);
                    roundCounts[p] = count;
                    planned += count;
                }

                gates.awaitAdvanceInterruptibly(gates.arrive(), 10, TimeUnit.SECONDS);
                final int endGate = gates.arrive();
                while (true)
                {
                    try
                    {
                        gates.awaitAdvanceInterruptibly(endGate, DEADLOCK_NS, TimeUnit.NANOSECONDS);
                        break;
                    }
                    catch (final TimeoutException ex)
                    {
                        deadlocks++;
                        firstFailure = null == firstFailure ?
                            "deadlock at checkpoint " + checkpoints + ": " + diagnostics(planned) : firstFailure;
                        doorbell.ring();
                        if (stranded + deadlocks >= MAX_FAILURES)
                        {
                            break;
                        }
                    }
                }

                // A frame is stranded only if the consumer sleeps (IDLE) with no Poll coming: one that is running or
                // has a Poll queued, but is slow to be scheduled (the machine loaded by other work), is waited for up
                // to the deadlock bound, so the verdict does not depend on the scheduler.
                final long deadline = System.nanoTime() + CHECKPOINT_NS;
                final long patience = System.nanoTime() + DEADLOCK_NS;
                while (checker.consumed() < planned && (System.nanoTime() < deadline ||
                    ((RingDoorbell.IDLE != doorbell.state() || pollsInFlight.get() > 0) &&
                    System.nanoTime() < patience)))
                {
                    Thread.yield();
                }
                if (checker.consumed() < planned)
                {
                    stranded++;
                    strandedFrames += planned - checker.consumed();
                    firstFailure = null == firstFailure ?
                        "stranded at checkpoint " + checkpoints + ": " + diagnostics(planned) : firstFailure;
                    doorbell.ring();
                    final long rescue = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    while (checker.consumed() < planned && System.nanoTime() < rescue)
                    {
                        Thread.yield();
                    }
                    if (checker.consumed() < planned)
                    {
                        abortReason = "even a rescue ring did not drain the ring: " + diagnostics(planned);
                        break;
                    }
                }
                checkpoints++;
            }

            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            stop = true;
            gates.forceTermination();
            mailbox.submit(() -> { }).get(10, TimeUnit.SECONDS);
            final long[] sentPerProducer = new long[PRODUCERS];
            final long[] inOrder = new long[PRODUCERS];
            for (int p = 0; p < PRODUCERS; p++)
            {
                sentPerProducer[p] = sent.get(p);
                inOrder[p] = checker.inOrder(p);
            }
            return new Result(name, SEED, planned, checker.consumed(), checkpoints, elapsedMs, stranded, strandedFrames,
                deadlocks, firstFailure, checker.lost(), checker.duplicated(), checker.corrupt(), checker.firstError(),
                sentPerProducer, inOrder, cycle.idles(), cycle.repollHits(), wakes.get(),
                pollsInFlightViolations.get(), backPressured.get(), adminActions.get(), abortReason);
        }

        private String diagnostics(final long planned)
        {
            return "sent " + planned + ", consumed " + checker.consumed() + ", " + doorbell +
                ", publication position " + publication.position() + ", subscription position " +
                subscription.position() + ", Polls in flight " + pollsInFlight.get();
        }

        /** The doorbell's wake callback: one Poll into the mailbox. */
        private void sendPoll()
        {
            wakes.incrementAndGet();
            if (pollsInFlight.incrementAndGet() > 1)
            {
                pollsInFlightViolations.incrementAndGet();
            }
            mailbox.execute(pollTask);
        }

        /** The consumer's Poll handler, as an actor's would be; sometimes it stalls, as a busy stage does. */
        private void onPoll()
        {
            pollsInFlight.decrementAndGet();
            if (stallOneIn > 0 && consumerRandom.nextInt(stallOneIn) == 0)
            {
                LockSupport.parkNanos(200_000 + consumerRandom.nextInt(1_800_000));
            }
            cycle.onPoll();
        }

        private void produce(final int id)
        {
            final SplittableRandom random = new SplittableRandom(SEED * 31 + id);
            final UnsafeBuffer scratch = new UnsafeBuffer(new byte[JUMBO]);
            final PacketClaim claim = publication.newClaim();
            final boolean inPlace = id % 2 == 1;
            long seq = 0;
            while (gates.arriveAndAwaitAdvance() >= 0 && !stop)
            {
                int left = roundCounts[id];
                while (left > 0 && !stop)
                {
                    final int burst = Math.min(left, 1 + random.nextInt(MAX_BURST));
                    for (int i = 0; i < burst && sendOne(id, seq, inPlace, scratch, claim); i++)
                    {
                        seq++;
                        sent.lazySet(id, seq);
                    }
                    left -= burst;
                    pause(random);
                }
                if (gates.arriveAndAwaitAdvance() < 0)
                {
                    return;
                }
            }
        }

        /** Sends one frame, retrying through back-pressure; false only if the run is stopping. */
        private boolean sendOne(
            final int id, final long seq, final boolean inPlace, final UnsafeBuffer scratch, final PacketClaim claim)
        {
            final int length = TestFrames.length(id, seq, LENGTH_SPREAD, JUMBO);
            while (!stop)
            {
                final long result = TestFrames.offer(publication, inPlace, claim, scratch, id, seq, length);
                if (result > 0)
                {
                    return true;
                }
                if (result == PacketPublication.BACK_PRESSURED)
                {
                    backPressured.incrementAndGet();
                    Thread.yield();
                }
                else if (result == PacketPublication.ADMIN_ACTION)
                {
                    adminActions.incrementAndGet();
                }
                else
                {
                    throw new IllegalStateException("producer " + id + ": " + PacketPublication.resultName(result));
                }
            }
            return false;
        }

        private static void pause(final SplittableRandom random)
        {
            if (random.nextInt(LONG_PAUSE_ONE_IN) == 0)
            {
                LockSupport.parkNanos(1_000_000 + random.nextInt(4_000_000));
                return;
            }
            final long until = System.nanoTime() + random.nextInt(50_001);
            while (System.nanoTime() < until)
            {
                Thread.onSpinWait();
            }
        }

        private void awaitConnected()
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!publication.isConnected() || !subscription.isConnected())
            {
                assertTrue(System.nanoTime() < deadline, "connected within 10 s");
                Thread.onSpinWait();
            }
        }
    }
}
