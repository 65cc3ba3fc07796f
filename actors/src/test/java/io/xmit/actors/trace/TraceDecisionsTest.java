package io.xmit.actors.trace;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With every packet traced, the qdisc decisions in the file add up to the pipeline's own counters: TX queues failing
 * every second {@code tx_burst} make packets bypass, be requeued, and wait in the backlog behind those requeued.
 */
class TraceDecisionsTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int PACKETS = 400;
    private static final Pattern KEY_VALUE = Pattern.compile("(\\w+)=(\\S+)");

    @TempDir
    Path dir;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void bypassEnqueueAndRequeueInTheCommentsAddUpToTheQdiscCounters() throws Exception
    {
        Tshark.assumeInstalled();
        final Path file = dir.resolve("decisions.pcapng");
        final PipelineConfig config = PipelineConfig.builder().name("trace-decisions").cpus(2)
            .qdiscRingTerm(1 << 20).socketRingTerm(1 << 18).device("loop:tx=2,rx=2,ring=1024").xpsPreset(XpsPreset.NONE)
            .trace(TraceConfig.OFF.withSelector(TraceSelector.parse("sample=1")).withFile(file.toString())
                .withRingSize(8 << 20))
            .build();
        final Map<String, Long> counters;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            final AtomicInteger received = new AtomicInteger();
            pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) -> received.incrementAndGet()));
            final UdpSocket[] clients = new UdpSocket[4];
            for (int c = 0; c < clients.length; c++)
            {
                clients[c] = pipeline.openUdp(SocketOptions.udp4(6000 + c).onPort(1)
                    .connect(Endpoint.of("10.0.0.1", 7)));
            }
            for (int q = 0; q < 2; q++)
            {
                pipeline.driver(1).fault(NicFault.TX_FAIL_EVERY, q, 2);
            }
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            for (int i = 0; i < PACKETS; i++)
            {
                BoundedSend.send(clients[i % clients.length], payload, 0, 16);
            }
            await(() -> received.get() == PACKETS &&
                pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 1) == PACKETS, () -> received + " received, " +
                pipeline.counters());
            pipeline.tracer().flush();
            counters = pipeline.counters();
            assertEquals(0, pipeline.tracer().dropped());
        }

        final Tshark.Result result = Tshark.run(file, "-T", "fields", "-E", "separator=|", "-e",
            "frame.interface_name", "-e", "frame.comment");
        assertEquals(0, result.exit());
        assertEquals(List.of(), result.warnings());
        final Map<String, Long> seen = new HashMap<>();
        for (final String line : result.out())
        {
            final String[] f = line.split("\\|", -1);
            final Map<String, String> k = new HashMap<>();
            final Matcher m = KEY_VALUE.matcher(f[1]);
            while (m.find())
            {
                k.put(m.group(1), m.group(2));
            }
            seen.merge("packets " + f[0], 1L, Long::sum);
            if ("tx".equals(k.get("dir")))
            {
                final String scope = CounterScope.txq(1, Integer.parseInt(k.get("txq"))).label();
                assertEquals("loopB-tx" + k.get("txq"), f[0]);
                assertEquals("accept", k.get("driver"), line);
                assertTrue(k.containsKey("complete_ns"), line);
                final long requeues = Long.parseLong(k.get("requeues"));
                seen.merge("qdisc_requeues " + scope, requeues, Long::sum);
                seen.merge(("bypass".equals(k.get("qdisc")) && 0 == requeues ? "qdisc_bypassed " :
                    "enqueued".equals(k.get("qdisc")) ? "qdisc_enqueued " : "requeued bypass ") + scope, 1L,
                    Long::sum);
            }
        }
        long requeues = 0;
        for (int q = 0; q < 2; q++)
        {
            final String scope = CounterScope.txq(1, q).label();
            assertEquals(counters.get("qdisc_packets " + scope), seen.getOrDefault("packets loopB-tx" + q, 0L), scope);
            assertEquals(counters.get("qdisc_bypassed " + scope), seen.getOrDefault("qdisc_bypassed " + scope, 0L));
            assertEquals(counters.get("qdisc_enqueued " + scope), seen.getOrDefault("qdisc_enqueued " + scope, 0L));
            assertEquals(counters.get("qdisc_requeues " + scope), seen.getOrDefault("qdisc_requeues " + scope, 0L));
            requeues += counters.get("qdisc_requeues " + scope);
            final String rx = CounterScope.rxq(0, q).label();
            assertEquals(counters.get("rx_delivered " + rx), seen.getOrDefault("packets loopA-rx" + q, 0L), rx);
        }
        assertTrue(requeues > 0, "failed bursts were requeued: " + counters);
        assertTrue(counters.get("qdisc_enqueued port=1 txq=0") + counters.get("qdisc_enqueued port=1 txq=1") > 0);
    }

    private static void await(final BooleanSupplier condition, final Supplier<String> state)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, state);
            Thread.sleep(1);
        }
    }
}
