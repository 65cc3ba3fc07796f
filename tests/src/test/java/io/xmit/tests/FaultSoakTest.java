package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Accounting;
import io.xmit.actors.BusyPoll;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.Stage;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak: {@code test.soak.packets} numbered datagrams (10,000,000 by default) while a seeded injector fires every
 * fault at random — stage actors crashing at their crash points, failing, busy and stalled TX queues (the watchdog
 * resets the stalled), frames dropped and truncated on arrival. At the end the books balance exactly, with everything
 * transmitted but what failed {@code tx_burst}s dropped (§4.5), and every datagram sent was received exactly once, in
 * order, or counted as dropped: on the sending side by a failed burst, or on the receiving side.
 * The seed ({@code -Dtest.soak.seed}) is in every failure message.
 */
@Timeout(300)
class FaultSoakTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final long PACKETS = Long.getLong("test.soak.packets", 10_000_000L);
    private static final long BUSY_POLL_PACKETS = Long.getLong("test.soak.busy-poll.packets", 2_500_000L);
    private static final long SEED = Long.getLong("test.soak.seed", System.nanoTime());

    private static final int CRASH = 0;
    private static final int TX_FAIL = 1;
    private static final int TX_STALL = 2;
    private static final int RX_DROP = 3;
    private static final int RX_TRUNCATE = 4;
    private static final int TX_BUSY = 5;
    private static final List<String> FAULTS =
        List.of("crash", "tx-fail", "tx-stall", "rx-drop", "rx-truncate", "tx-busy");
    /** The stages this pipeline runs (its ports have no IPv4 address, so no host). */
    private static final Stage[] PACKET_STAGES = {Stage.RX_QUEUE, Stage.SOCKET, Stage.QDISC, Stage.TX_QUEUE};

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void everyPacketIsAccountedForUnderRandomFaults() throws Exception
    {
        soak(PACKETS, BusyPoll.OFF);
    }

    /**
     * The same soak with every socket busy-polling its channel, preferring it (kernel-semantics §9): a crash armed in
     * an RX queue may now fire in a socket's busy poll, and the channel must come back to its owners without a frame
     * stranded. {@code test.soak.busy-poll.packets} datagrams (2,500,000 by default: busy-polling sockets hold their
     * CPU for up to 50 µs a loop, so the soak runs slower).
     */
    @Test
    void everyPacketIsAccountedForUnderRandomFaultsWhileSocketsBusyPoll() throws Exception
    {
        soak(BUSY_POLL_PACKETS, BusyPoll.of(Duration.of(50, ChronoUnit.MICROS)).preferred(true));
    }

    private static void soak(final long packets, final BusyPoll busyPoll) throws Exception
    {
        final String seed = "seed " + SEED + " (-Dtest.soak.seed=" + SEED + ")";
        final PipelineConfig config = EndToEndSupport.loopConfig("soak", 2, XpsPreset.NONE).toBuilder()
            .device("loop:tx=4,rx=4,ring=4096,frame=2048,rate=1Mpps")
            .txWatchdogTimeout(Duration.ofMillis(100))
            .stopDeadline(Duration.ofSeconds(10))
            .busyPoll(busyPoll)
            .build();
        // Faults set (a crash armed, a fault turned on) and, apart, faults turned off by a value of 0.
        final AtomicLongArray faults = new AtomicLongArray(FAULTS.size());
        final AtomicLongArray clears = new AtomicLongArray(FAULTS.size());
        final AtomicReference<Throwable> injectorFailure = new AtomicReference<>();
        final long start = System.nanoTime();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            final SequencedTraffic traffic = new SequencedTraffic(pipeline, 64, 8);
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread injector = new Thread(() -> inject(pipeline, traffic, new Random(SEED), faults, clears,
                running), "soak-faults");
            injector.setUncaughtExceptionHandler((thread, ex) -> injectorFailure.set(ex));
            injector.start();
            try
            {
                // The books balance while traffic flows and faults fire, not only at rest.
                traffic.send(packets, 100_000, sent -> pipeline.verify());
            }
            finally
            {
                running.set(false);
                injector.join(TimeUnit.SECONDS.toMillis(10));
            }
            assertFalse(injector.isAlive(), seed + ": the fault injector ended");
            assertNull(injectorFailure.get(), seed + ": the fault injector failed");
            pipeline.driver(0).fault(NicFault.CLEAR, 0, 0);
            pipeline.driver(1).fault(NicFault.CLEAR, 0, 0);

            // Every datagram arrives once, in order, or is counted as dropped: by a failed burst, or on the way in.
            EndToEndSupport.await("every datagram received or counted as dropped",
                () -> traffic.receivedTotal() + traffic.rxDrops() + pipeline.accounting().dropped() >= packets,
                () -> seed + "; received " + traffic.receivedTotal() + ", dropped " + traffic.rxDrops() + "; " +
                    pipeline.accounting().line());
            // Sending side: a frame the loop wire has delivered may still wait in the driver for its TX queue's reclaim
            // (after a stall or a restart the queue's actor polls again only when woken), so the books come to rest
            // a little after the last datagram arrived.
            EndToEndSupport.await("the books at rest", () -> pipeline.accounting().atRest(),
                () -> seed + "; " + pipeline.accounting().line());
            final Accounting books = pipeline.verify();
            final long received = traffic.receivedTotal();
            final long dropped = traffic.rxDrops();
            final long watchdogResets = pipeline.total(CounterType.TXQ_WATCHDOG_RESETS, 1);
            final long driverErrors = pipeline.total(CounterType.TXQ_DRIVER_ERRORS, 1);
            final long nicRxDropped = nicRxDropped(pipeline);
            final long malformed = pipeline.total(CounterType.RX_DROP_MALFORMED, 0);
            final long restarts = restarts(pipeline);
            System.out.printf("soak: %s; %,d packets in %.1f s; faults %s; cleared %s; books: %s; received %,d, " +
                "dropped on arrival %,d (%s); watchdog resets %d; tx driver errors %d; restarts %d%n", seed, packets,
                (System.nanoTime() - start) / 1e9, faultSummary(faults), faultSummary(clears), books.line(), received,
                dropped, traffic.rxDropsByReason(), watchdogResets, driverErrors, restarts);

            final long txDropped = books.dropsByReason().getOrDefault("qdisc_drop_driver_error", 0L);
            assertEquals(packets, books.accepted(), seed + "; " + books.line());
            assertEquals(packets - txDropped, books.transmitted(), seed + "; " + books.line());
            assertEquals(txDropped, books.dropped(), seed + ": only failed bursts drop on sending; " + books.line());
            assertTrue(books.atRest(), seed + "; " + books.line());
            assertEquals(packets, received + dropped + txDropped, seed + ": received " + received + " + dropped " +
                dropped + " + dropped by failed bursts " + txDropped);
            assertEquals(0, traffic.duplicates(), seed + ": duplicated or reordered datagrams");
            assertTrue(faults.get(CRASH) > 0 && faults.get(TX_STALL) > 0 && faults.get(TX_FAIL) > 0 &&
                faults.get(RX_DROP) > 0 && faults.get(RX_TRUNCATE) > 0 && faults.get(TX_BUSY) > 0, seed + ": every kind of fault was set: " +
                faultSummary(faults) + " (cleared " + faultSummary(clears) + ")");
            // And every kind had its effect.
            final String effects = seed + "; faults " + faultSummary(faults) + "; " + traffic.rxDropsByReason();
            assertTrue(restarts > 0, "crashes restarted stages: " + effects);
            assertTrue(driverErrors > 0 && txDropped > 0, "failing tx_bursts counted as TX driver errors: " + effects);
            assertTrue(pipeline.total(CounterType.QDISC_REQUEUES, 1) > 0, "busy tx_bursts requeued: " + effects);
            assertTrue(watchdogResets > 0, "stalled TX queues reset by the watchdog: " + effects);
            assertTrue(nicRxDropped > 0, "frames dropped on arrival by the NIC: " + effects);
            assertTrue(malformed > 0, "truncated frames counted as malformed: " + effects);
            assertEquals(busyPoll.enabled(), pipeline.total(CounterType.BUSY_POLL_PACKETS, 0) > 0,
                "frames taken by busy-polling sockets: " + pipeline.total(CounterType.BUSY_POLL_PACKETS, 0));
        }
    }

    /**
     * Fires a random fault every few milliseconds until told to stop; counts each fault set in {@code faults} and
     * each turned off (a value of 0) in {@code clears}.
     */
    private static void inject(final Pipeline pipeline, final SequencedTraffic traffic, final Random random,
        final AtomicLongArray faults, final AtomicLongArray clears, final AtomicBoolean running)
    {
        final int receivers = traffic.receiverCount();
        while (running.get())
        {
            final int fault = random.nextInt(FAULTS.size());
            final int q = random.nextInt(4);
            boolean cleared = false;
            switch (fault)
            {
                case CRASH ->
                {
                    final Stage stage = PACKET_STAGES[random.nextInt(PACKET_STAGES.length)];
                    final int point = 1 + random.nextInt(64);
                    switch (stage)
                    {
                        case RX_QUEUE -> pipeline.injectCrash(stage, 0, q, point);
                        case SOCKET -> pipeline.injectCrash(stage, 0,
                            traffic.receiverId(random.nextInt(receivers)), point);
                        case QDISC, TX_QUEUE -> pipeline.injectCrash(stage, 1, q, point);
                    }
                }
                case TX_FAIL ->
                {
                    final int every = random.nextBoolean() ? 0 : 2 + random.nextInt(8);
                    pipeline.driver(1).fault(NicFault.TX_FAIL_EVERY, q, every);
                    cleared = 0 == every;
                }
                case TX_STALL -> pipeline.driver(1).fault(NicFault.TX_STALL, q, 1);
                case TX_BUSY ->
                {
                    final int every = random.nextBoolean() ? 0 : 2 + random.nextInt(8);
                    pipeline.driver(1).fault(NicFault.TX_BUSY_EVERY, q, every);
                    cleared = 0 == every;
                }
                case RX_DROP ->
                {
                    final int every = random.nextBoolean() ? 0 : 1000 + random.nextInt(4000);
                    pipeline.driver(0).fault(NicFault.RX_DROP_EVERY, q, every);
                    cleared = 0 == every;
                }
                case RX_TRUNCATE ->
                {
                    final int every = random.nextBoolean() ? 0 : 1000 + random.nextInt(4000);
                    pipeline.driver(0).fault(NicFault.RX_TRUNCATE_EVERY, q, every);
                    cleared = 0 == every;
                }
                default -> throw new IllegalStateException("fault " + fault);
            }
            (cleared ? clears : faults).incrementAndGet(fault);
            try
            {
                Thread.sleep(5 + random.nextInt(30));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static long restarts(final Pipeline pipeline)
    {
        long restarts = 0;
        for (int port = 0; port < pipeline.portCount(); port++)
        {
            restarts += pipeline.total(CounterType.STAGE_RESTARTS, port);
        }
        return restarts;
    }

    /** Frames the receiving NIC dropped on arrival (the RX_DROP_EVERY fault), over its RX queues. */
    private static long nicRxDropped(final Pipeline pipeline)
    {
        long dropped = 0;
        for (int q = 0; q < pipeline.driver(0).rxQueueCount(); q++)
        {
            dropped += pipeline.driver(0).stats(q).rxDropped();
        }
        return dropped;
    }

    private static String faultSummary(final AtomicLongArray faults)
    {
        final StringBuilder text = new StringBuilder();
        for (int f = 0; f < FAULTS.size(); f++)
        {
            text.append(f == 0 ? "" : ", ").append(FAULTS.get(f)).append(' ').append(faults.get(f));
        }
        return text.toString();
    }
}
