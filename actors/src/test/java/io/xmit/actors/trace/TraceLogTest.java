package io.xmit.actors.trace;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trace events as log lines on {@code xmit.trace}: one per packet per stage, in key=value form. */
class TraceLogTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void eachStageOfATracedPacketIsOneInfoLine() throws Exception
    {
        final Logger logger = (Logger)LoggerFactory.getLogger("xmit.trace");
        final ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.INFO);
        try (Pipeline pipeline = Pipeline.start(KIT.system(), PipelineConfig.builder().name("trace-log")
            .cpus(2).qdiscRingTerm(1 << 20).socketRingTerm(1 << 16).build()))
        {
            final AtomicInteger received = new AtomicInteger();
            pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).handler((s, d) -> received.incrementAndGet()));
            final UdpSocket sender = pipeline.openUdp(SocketOptions.udp4(7000).connect(Endpoint.of("10.0.0.2", 9000)));
            pipeline.trace(TraceSelector.parse("socket=" + sender.id()));
            BoundedSend.send(sender, new UnsafeBuffer(new byte[8]), 0, 8);
            Await.until("the datagram received and the sender with nothing in flight",
                () -> received.get() >= 1 && sender.inFlight() == 0, pipeline::counters);
            pipeline.tracer().flush();
            final List<String> messages = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
            assertEquals(List.of("send", "burst", "complete"), messages.stream()
                .map(line -> line.replaceAll(".* stage=(\\w+) .*", "$1")).toList(), messages.toString());
            assertTrue(messages.get(0).matches("trace=1 stage=send port=0 txq=\\d cpu=-1 sock=" + sender.id() +
                " via=\\S+ t_ns=\\d+"), messages.get(0));
            assertTrue(messages.get(1).matches("trace=1 stage=burst port=0 txq=\\d cpu=\\d qdisc=bypass " +
                "bulk=1/1 driver=accept t_ns=\\d+"), messages.get(1));
            assertTrue(lines.list.stream().allMatch(event -> Level.INFO == event.getLevel()));
        }
        finally
        {
            logger.detachAppender(lines);
            logger.setLevel(null);
        }
    }
}
