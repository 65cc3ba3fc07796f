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
import io.xmit.actors.trace.TraceFiles.Packet;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.nic.NicFault;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With every packet traced, the qdisc decisions in the file add up to the pipeline's own counters: TX queues busy on
 * every second {@code tx_burst} make packets bypass, be requeued, and wait in the backlog behind those requeued. The file
 * is read with {@link PcapngReader}; where tshark is installed, one more test checks that it reads the file the same.
 */
class TraceDecisionsTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int PACKETS = 400;

    /** The trace file, recorded once for the tests that read it. */
    @TempDir
    static Path files;

    private static Recorded recorded;

    /** The run's trace file (closed) and its counters at the end. */
    private record Recorded(Path file, Map<String, Long> counters)
    {
    }

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    /** Every packet traced while TX queues are busy every second burst; recorded once for the tests that read it. */
    private static synchronized Recorded recorded() throws Exception
    {
        if (null != recorded)
        {
            return recorded;
        }
        final Path file = files.resolve("decisions.pcapng");
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
                pipeline.driver(1).fault(NicFault.TX_BUSY_EVERY, q, 2);
            }
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
            for (int i = 0; i < PACKETS; i++)
            {
                BoundedSend.send(clients[i % clients.length], payload, 0, 16);
            }
            Await.until("every packet received and completed", () -> received.get() == PACKETS &&
                pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 1) == PACKETS, () -> received + " received, " +
                pipeline.counters());
            pipeline.tracer().flush();
            counters = pipeline.counters();
            assertEquals(0, pipeline.tracer().dropped());
        }
        recorded = new Recorded(file, counters);
        return recorded;
    }

    @Test
    void bypassEnqueueAndRequeueInTheCommentsAddUpToTheQdiscCounters() throws Exception
    {
        final Path file = recorded().file();
        final Map<String, Long> counters = recorded().counters();
        TraceFiles.assertWholeBlocks(file);

        final Map<String, Long> seen = new HashMap<>();
        for (final Packet packet : TraceFiles.packets(file))
        {
            final Map<String, String> k = packet.keys();
            final String line = packet.iface() + " " + packet.comment();
            seen.merge("packets " + packet.iface(), 1L, Long::sum);
            if ("tx".equals(k.get("dir")))
            {
                final String scope = CounterScope.txq(1, Integer.parseInt(k.get("txq"))).label();
                assertEquals("loopB-tx" + k.get("txq"), packet.iface());
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
        assertTrue(requeues > 0, "busy bursts were requeued: " + counters);
        assertTrue(counters.get("qdisc_enqueued port=1 txq=0") + counters.get("qdisc_enqueued port=1 txq=1") > 0);
    }

    /** The format as another tool reads it: only this test needs tshark, and skips without it saying so. */
    @Test
    void tsharkReadsTheFileAsPcapngReaderDoes() throws Exception
    {
        Tshark.assumeInstalled();
        TraceFiles.assertTsharkReadsAsTheReaderDoes(recorded().file());
    }
}
