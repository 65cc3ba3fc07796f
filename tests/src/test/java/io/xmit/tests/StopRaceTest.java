package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Accounting;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stops racing sends: threads send as fast as they can while the pipeline stops under them, which releases the rings
 * they write into. The send gate makes each sender see {@link SendResult#STOPPED} instead of touching released memory
 * (a failure here is the JVM crashing), and every send that was accepted is in the books: after the stop, nothing is
 * in flight, and each was transmitted or dropped by the stop and counted as such.
 */
@Timeout(120)
class StopRaceTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int SENDERS = 3;
    private static final int STOPS = 12;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void sendersRacingAStopAreRefusedAndEveryAcceptedSendIsInTheBooks() throws Exception
    {
        final Random random = new Random(42);
        for (int run = 0; run < STOPS; run++)
        {
            final Pipeline pipeline = Pipeline.start(KIT.system(),
                EndToEndSupport.loopConfig("stop-race-" + run, 2, XpsPreset.NONE));
            final AtomicLongArray accepted = new AtomicLongArray(SENDERS);
            final AtomicLongArray last = new AtomicLongArray(SENDERS);
            final CountDownLatch started = new CountDownLatch(SENDERS);
            final Thread[] threads = new Thread[SENDERS];
            for (int s = 0; s < SENDERS; s++)
            {
                final int index = s;
                final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(30_000 + s).onPort(1)
                    .connect(Endpoint.of("10.0.0.1", 9)));
                threads[s] = Thread.ofPlatform().name("racing-sender-" + s).start(() ->
                {
                    final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
                    started.countDown();
                    long result;
                    do
                    {
                        result = socket.send(payload, 0, payload.capacity());
                        if (result > 0)
                        {
                            accepted.incrementAndGet(index);
                        }
                    }
                    while (result > 0 || SendResult.BACK_PRESSURED == result);
                    last.set(index, result);
                });
            }
            started.await(10, TimeUnit.SECONDS);
            Thread.sleep(1 + random.nextInt(20));
            final StopReport report = pipeline.stop(Duration.ofSeconds(2));
            long total = 0;
            for (int s = 0; s < SENDERS; s++)
            {
                threads[s].join(TimeUnit.SECONDS.toMillis(10));
                assertEquals(SendResult.STOPPED, last.get(s), "run " + run + " sender " + s + ": " +
                    SendResult.name(last.get(s)));
                total += accepted.get(s);
            }
            assertTrue(total > 0, "run " + run + ": the senders were sending when the stop came");
            // Every accepted send is transmitted or dropped under a counted reason, and nothing is left in between:
            // a send the gate let into a ring after the stop emptied it would be accepted but still "in rings" (the
            // books would balance but not be at rest).
            final Accounting books = report.books();
            assertTrue(books.balances(), report.line());
            assertEquals(total, books.accepted(), report.line());
            assertTrue(books.atRest(), "run " + run + ": in flight after the stop: " + report.line());
            assertEquals(total, books.transmitted() + books.dropped(), report.line());
            // The only drops are the stop's, exactly as reported (the qdiscs back-pressure, they drop no overflow).
            assertEquals(report.droppedQueued(), books.dropsByReason().getOrDefault("qdisc_drop_shutdown", 0L),
                report.line());
            assertEquals(report.droppedInDriver(), books.dropsByReason().getOrDefault("txq_drop_shutdown", 0L),
                report.line());
            assertEquals(report.droppedQueued() + report.droppedInDriver(), books.dropped(), report.line());
            if (report.drained())
            {
                assertEquals(0, books.dropped(), report.line());
            }
        }
    }
}
