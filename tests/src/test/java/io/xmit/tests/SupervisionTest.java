package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.Stage;
import io.xmit.actors.StopReport;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of packet-stage actor crashes mid-stream, at the point where recovery is hardest, while numbered traffic
 * flows: each restarts under its supervision and resumes where it stopped, with nothing lost, duplicated or reordered
 * and the books exact. Repeated crashes in a row stop the pipeline with the error.
 */
@Timeout(120)
class SupervisionTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    /** TX and RX queues of each port of the wire. */
    private static final int QUEUES = 4;
    private static final String QDISC_ENQUEUE_POINT = "before taking a ring frame into the backlog";
    private static final String QDISC_BURST_POINT = "after tx_burst, before booking its result";

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    /** A rated wire, so that rings and backlogs fill and a restarting stage has work waiting for it. */
    private static PipelineConfig config(final String name)
    {
        return EndToEndSupport.loopConfig(name, 2, XpsPreset.NONE).toBuilder()
            .device("loop:tx=" + QUEUES + ",rx=" + QUEUES + ",ring=8192,frame=2048,rate=200kpps")
            .build();
    }

    @Test
    void eachKindOfActorCrashesMidStreamAndNothingIsLostOrRepeated() throws InterruptedException
    {
        final CrashLog crashLog = CrashLog.attach();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("supervision-kinds")))
        {
            final SequencedTraffic traffic = new SequencedTraffic(pipeline, 32, 4);
            final int receiverId = traffic.receiver().id();
            // Armed before any traffic, this qdisc's first crash point is its first bypass tx_burst (the queue is
            // awake and its backlog empty): the "after tx_burst" recovery, not left to timing.
            pipeline.injectCrash(Stage.QDISC, 1, 1, 1);
            final AtomicReference<Throwable> helperFailure = new AtomicReference<>();
            final Thread backlogCrash = new Thread(() -> crashWhileBacklogged(pipeline, 2), "backlog-crash");
            backlogCrash.setUncaughtExceptionHandler((thread, ex) -> helperFailure.set(ex));
            // Crash points vary so that crashes land on the first, a middle and a later frame of a burst or step.
            final List<Runnable> crashes = List.of(
                () -> pipeline.injectCrash(Stage.QDISC, 1, 0, 1),
                () -> pipeline.injectCrash(Stage.TX_QUEUE, 1, 1, 1),
                () -> pipeline.injectCrash(Stage.RX_QUEUE, 0, 2, 7),
                () -> pipeline.injectCrash(Stage.SOCKET, 0, receiverId, 13),
                backlogCrash::start,
                () -> pipeline.injectCrash(Stage.TX_QUEUE, 1, 3, 3),
                () -> pipeline.injectCrash(Stage.RX_QUEUE, 0, 1, 1),
                () -> pipeline.injectCrash(Stage.SOCKET, 0, receiverId, 100));
            final long step = 40_000;
            traffic.send(step * (crashes.size() + 2), step, sent ->
            {
                final int index = (int)(sent / step) - 1;
                if (index < crashes.size())
                {
                    crashes.get(index).run();
                }
                // The books balance while traffic flows, not only at rest.
                pipeline.verify();
            });
            backlogCrash.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(backlogCrash.isAlive(), "the backlog crash ended");
            assertEquals(null, helperFailure.get(), "the backlog crash");
            traffic.assertAllArrivedOnceInOrder();

            final List<String> fired = crashLog.crashes();
            System.out.println("crash points fired: " + fired);
            assertEquals(9, fired.size(), "one injected crash per restart: " + fired);
            assertTrue(fired.stream().anyMatch(m -> m.startsWith("qdisc ") && m.endsWith(QDISC_ENQUEUE_POINT)),
                "the qdisc's enqueue crash point fired: " + fired);
            assertTrue(fired.stream().anyMatch(m -> m.startsWith("qdisc ") && m.endsWith(QDISC_BURST_POINT)),
                "the qdisc's tx_burst crash point fired: " + fired);
            for (final String stage : List.of("qdisc ", "tx queue ", "rx queue ", "socket "))
            {
                assertTrue(fired.stream().anyMatch(m -> m.startsWith(stage)), stage + "crashed: " + fired);
            }

            assertEquals(3, restarts(pipeline, CounterScope.Stage.QDISC), "qdisc restarts");
            assertEquals(2, restarts(pipeline, CounterScope.Stage.TXQ), "TX queue restarts");
            assertEquals(2, restarts(pipeline, CounterScope.Stage.RXQ), "RX queue restarts");
            assertEquals(2, pipeline.counter(CounterType.STAGE_RESTARTS,
                CounterScope.socket(0, receiverId).withStage(CounterScope.Stage.SOCKET)), "socket restarts");
            assertEquals(9, pipeline.total(CounterType.STAGE_RESTARTS, 0) +
                pipeline.total(CounterType.STAGE_RESTARTS, 1), "no other actor restarted");
            assertEquals(0, pipeline.total(CounterType.RX_DROP_FAILED, 0), "a crash point is between frames");
        }
        finally
        {
            crashLog.detach();
        }
    }

    @Test
    void aStageThatKeepsCrashingStopsThePipelineWithItsError() throws Exception
    {
        final Pipeline pipeline = Pipeline.start(KIT.system(), config("supervision-limit"));
        final AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        Thread sender = null;
        try
        {
            final SequencedTraffic traffic = new SequencedTraffic(pipeline, 4);
            sender = new Thread(() -> traffic.send(Long.MAX_VALUE / 2, 1000, sent ->
            {
                if (pipeline.whenTerminated().toCompletableFuture().isDone())
                {
                    throw new StopSending();
                }
                pipeline.injectCrash(Stage.TX_QUEUE, 1, 0, 1);
                pipeline.injectCrash(Stage.TX_QUEUE, 1, 1, 1);
                pipeline.injectCrash(Stage.TX_QUEUE, 1, 2, 1);
                pipeline.injectCrash(Stage.TX_QUEUE, 1, 3, 1);
            }), "crashing-sender");
            sender.setUncaughtExceptionHandler((thread, ex) -> senderFailure.set(ex));
            sender.start();
            final Throwable failure = pipeline.whenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertInstanceOf(CrashSwitch.InjectedCrash.class, failure);
            assertTrue(failure.getMessage().startsWith("tx queue 1/"), failure.getMessage());
            final long restarts = restarts(pipeline, CounterScope.Stage.TXQ);
            assertTrue(restarts >= Supervision.MAX_RESTARTS, "restarts before giving up: " + restarts);
        }
        finally
        {
            // The stop's send gate turns the sender's retries into STOPPED, which ends it.
            final StopReport report = pipeline.stop(Duration.ZERO);
            assertTrue(report.books().balances(), report.line());
        }
        sender.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(sender.isAlive(), "the sender ended");
        // It ends one of two ways: it saw the pipeline terminated, or the stop refused its send; anything else is a bug.
        final Throwable ended = senderFailure.get();
        assertTrue(ended instanceof StopSending ||
            ended instanceof AssertionError && String.valueOf(ended.getMessage()).contains("refused: STOPPED"),
            "the sender's end: " + ended);
    }

    private static final class StopSending extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
    }

    /**
     * The messages of the {@link CrashSwitch.InjectedCrash}es supervision logs as it restarts a stage: each names
     * the stage and the crash point that fired ("qdisc 1/0: injected crash after tx_burst, …").
     */
    private static final class CrashLog extends AppenderBase<ILoggingEvent>
    {
        private final Queue<String> crashes = new ConcurrentLinkedQueue<>();

        static CrashLog attach()
        {
            final CrashLog log = new CrashLog();
            log.setName("supervision-test-crashes");
            log.start();
            root().addAppender(log);
            return log;
        }

        void detach()
        {
            root().detachAppender(this);
            stop();
        }

        List<String> crashes()
        {
            return List.copyOf(crashes);
        }

        @Override
        protected void append(final ILoggingEvent event)
        {
            final IThrowableProxy thrown = event.getThrowableProxy();
            if (null != thrown && CrashSwitch.InjectedCrash.class.getName().equals(thrown.getClassName()))
            {
                crashes.add(thrown.getMessage());
            }
        }

        private static Logger root()
        {
            return (Logger)LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        }
    }

    /**
     * Crashes qdisc {@code 1/txq} at a ring frame taken into its backlog, not left to timing: its TX queue is stalled
     * (the driver's ring fills, the queue stops), and once the backlog holds packets the crash is armed at the next
     * crash point — while the queue is stopped every turn only takes ring frames into the backlog. The stall is
     * released when the qdisc has restarted.
     */
    private static void crashWhileBacklogged(final Pipeline pipeline, final int txq)
    {
        final CounterScope qdisc = CounterScope.txq(1, txq).withStage(CounterScope.Stage.QDISC);
        final long restartsBefore = pipeline.counter(CounterType.STAGE_RESTARTS, qdisc);
        pipeline.driver(1).fault(NicFault.TX_STALL, txq, 1);
        try
        {
            EndToEndSupport.await("qdisc 1/" + txq + " to hold a backlog", () -> pipeline.qdiscBacklog(1, txq) > 0,
                () -> pipeline.accounting().line());
            pipeline.injectCrash(Stage.QDISC, 1, txq, 1);
            EndToEndSupport.await("qdisc 1/" + txq + " to restart",
                () -> pipeline.counter(CounterType.STAGE_RESTARTS, qdisc) > restartsBefore,
                () -> pipeline.accounting().line());
        }
        finally
        {
            pipeline.driver(1).fault(NicFault.TX_STALL, txq, 0);
        }
    }

    /** Restarts of the qdisc, TX queue or RX queue actors of every queue of both ports. */
    private static long restarts(final Pipeline pipeline, final CounterScope.Stage stage)
    {
        long sum = 0;
        for (int p = 0; p < pipeline.portCount(); p++)
        {
            for (int q = 0; q < QUEUES; q++)
            {
                final CounterScope queue = CounterScope.Stage.RXQ == stage ? CounterScope.rxq(p, q) :
                    CounterScope.txq(p, q);
                sum += pipeline.counter(CounterType.STAGE_RESTARTS, queue.withStage(stage));
            }
        }
        return sum;
    }
}
