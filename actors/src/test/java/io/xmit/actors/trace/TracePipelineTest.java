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

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Message-level tracing end to end over the loop device: request/reply traffic with tracing on, the pcapng file read
 * back by {@link PcapngReader}, and every decision in its comments checked against the pipeline's counters and
 * configuration. Where tshark is installed, one more test checks that it reads each file as the reader does.
 */
class TracePipelineTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int CLIENTS = 8;
    private static final int REQUESTS = 10;

    /** The trace files, recorded once each for the tests that read them. */
    @TempDir
    static Path files;

    private static Recorded requestReply;
    private static Recorded none;
    private static Recorded full;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    private static PipelineConfig config(final String name, final TraceConfig trace)
    {
        return PipelineConfig.builder().name(name).cpus(2).qdiscRingTerm(1 << 20).socketRingTerm(1 << 16)
            .device("loop:tx=4,rx=4,ring=1024").xpsPreset(XpsPreset.RXQS).trace(trace).build();
    }

    /** A traced run: its file (closed), the packets read while the pipeline ran, and its counters at the end. */
    private record Recorded(Path file, List<Packet> whileRunning, Map<String, Long> counters)
    {
    }

    private static List<Packet> packets(final Path file) throws Exception
    {
        return TraceFiles.packets(file);
    }

    /** Request/reply traffic of {@link #CLIENTS} clients traced by flow; recorded once for the tests that read it. */
    private static synchronized Recorded requestReply() throws Exception
    {
        if (null == requestReply)
        {
            final Path file = files.resolve("rr.pcapng");
            final TraceConfig trace = TraceConfig.OFF.withSelector(TraceSelector.parse("flow=udp:*:*-10.0.0.1:7"))
                .withFile(file.toString());
            try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-rr", trace)))
            {
                final AtomicInteger replies = new AtomicInteger();
                exchange(pipeline, echo(pipeline, replies), replies, REQUESTS);
                pipeline.tracer().flush();
                final List<Packet> whileRunning = packets(file);
                assertEquals(0, pipeline.tracer().dropped());
                requestReply = new Recorded(file, whileRunning, pipeline.counters());
            }
        }
        return requestReply;
    }

    /** Traffic that a flow filter matches none of. */
    private static synchronized Recorded none() throws Exception
    {
        if (null == none)
        {
            final Path file = files.resolve("none.pcapng");
            final TraceConfig trace = TraceConfig.OFF.withSelector(TraceSelector.parse("flow=udp:*:*-10.9.9.9:1"))
                .withFile(file.toString());
            try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-none", trace)))
            {
                final AtomicInteger replies = new AtomicInteger();
                exchange(pipeline, echo(pipeline, replies), replies, 5);
                assertEquals(0, pipeline.tracer().events());
                none = new Recorded(file, List.of(), pipeline.counters());
            }
        }
        return none;
    }

    /** Every packet traced through a trace ring too small for them. */
    private static synchronized Recorded full() throws Exception
    {
        if (null == full)
        {
            final Path file = files.resolve("full.pcapng");
            final TraceConfig trace = new TraceConfig(TraceSelector.parse("sample=1"), file.toString(), 4096, 128);
            try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-full", trace)))
            {
                final AtomicInteger replies = new AtomicInteger();
                exchange(pipeline, echo(pipeline, replies), replies, 200);
                pipeline.tracer().flush();
                assertTrue(pipeline.tracer().dropped() > 0, "a 4 KiB ring cannot hold the events of 1,600 requests");
                assertEquals(pipeline.tracer().dropped(),
                    pipeline.counter(CounterType.TRACE_DROPPED, CounterScope.tracer()));
                full = new Recorded(file, List.of(), pipeline.counters());
            }
        }
        return full;
    }

    /** Echo servers on port A, each connected to its client on port B, so they record their RX queue (§2.4). */
    private static List<UdpSocket> echo(final Pipeline pipeline, final AtomicInteger replies)
    {
        final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final List<UdpSocket> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++)
        {
            pipeline.openUdp(SocketOptions.udp4(7).connect(Endpoint.of("10.0.0.2", 5000 + c)).onCpu(c % 2)
                .handler((socket, datagram) ->
                {
                    reply.putBytes(0, datagram.buffer(), datagram.payloadOffset(), datagram.payloadLength());
                    socket.reply(datagram, reply, 0, datagram.payloadLength());
                }));
            clients.add(pipeline.openUdp(SocketOptions.udp4(5000 + c).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7)).handler((socket, datagram) -> replies.incrementAndGet())));
        }
        return clients;
    }

    private static void exchange(final Pipeline pipeline, final List<UdpSocket> clients, final AtomicInteger replies,
        final int requests) throws InterruptedException
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        final int expected = replies.get() + requests * clients.size();
        for (int i = 0; i < requests; i++)
        {
            for (final UdpSocket client : clients)
            {
                payload.putInt(0, i);
                BoundedSend.send(client, payload, 0, 32);
            }
        }
        Await.exactly("replies", expected, replies::get);
        Await.until("every packet sent completed by the device", () -> completed(pipeline), pipeline::counters);
        assertEquals(expected, replies.get(), "replies");
        assertTrue(completed(pipeline), "every packet sent was completed by the device");
    }

    private static boolean completed(final Pipeline pipeline)
    {
        for (int p = 0; p < 2; p++)
        {
            if (pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, p) != pipeline.total(CounterType.SOCKET_SENT, p))
            {
                return false;
            }
        }
        return true;
    }

    @Test
    void recordsBothSidesOfEachRequestWithTheDecisionsThePipelineMade() throws Exception
    {
        final Recorded recorded = requestReply();
        final Map<String, Long> counters = recorded.counters();
        final List<Packet> whileRunning = recorded.whileRunning();
        TraceFiles.assertWholeBlocks(recorded.file());
        final List<Packet> packets = packets(recorded.file());
        // Running, the file holds whole blocks: each side already written is there, and the rest is added at close.
        assertTrue(whileRunning.size() <= packets.size() && whileRunning.size() >= 3 * CLIENTS * REQUESTS,
            "packets while running: " + whileRunning.size());
        assertEquals(4 * CLIENTS * REQUESTS, packets.size());

        // Per interface, as many packets as the pipeline counted as traced on that queue.
        final Map<String, Integer> perInterface = new HashMap<>();
        for (final Packet packet : packets)
        {
            perInterface.merge(packet.iface(), 1, Integer::sum);
        }
        for (int p = 0; p < 2; p++)
        {
            for (int q = 0; q < 4; q++)
            {
                for (final String dirName : List.of("rx", "tx"))
                {
                    final String iface = "loop" + (char)('A' + p) + "-" + dirName + q;
                    final CounterScope queue = "rx".equals(dirName) ? CounterScope.rxq(p, q) : CounterScope.txq(p, q);
                    assertEquals(counters.get(CounterType.TRACE_PACKETS.label() + " " + queue.label()),
                        (long)perInterface.getOrDefault(iface, 0), iface);
                }
            }
        }

        final Map<Long, Packet> serverRx = new HashMap<>();
        for (final Packet packet : packets)
        {
            final Map<String, String> k = packet.keys();
            final boolean rx = packet.iface().contains("-rx");
            assertEquals(rx ? 1 : 2, packet.direction(), "epb_flags direction of " + packet);
            assertEquals(packet.ifaceQueue(), packet.queue(), "epb_queue is the interface's queue: " + packet);
            assertEquals(Integer.toString(packet.queue()), k.get(rx ? "rxq" : "txq"), "queue in comment: " + packet);
            assertEquals(packet.iface().startsWith("loopA") ? "0" : "1", k.get("port"));
            if (rx)
            {
                assertTrue(k.containsKey("deliver_ns"), "delivered: " + packet);
                if ("0".equals(k.get("port")))
                {
                    serverRx.put(packet.id(), packet);
                }
            }
            else
            {
                assertEquals("accept", k.get("driver"), packet.toString());
                assertTrue(k.containsKey("complete_ns"), "completed: " + packet);
                assertTrue(k.get("qdisc").matches("bypass|enqueued"), packet.toString());
                final String[] bulk = k.get("bulk").split("/");
                assertTrue(Integer.parseInt(bulk[0]) >= 1 && Integer.parseInt(bulk[0]) <= Integer.parseInt(bulk[1]),
                    packet.toString());
            }
        }
        assertEquals(CLIENTS * REQUESTS, serverRx.size());

        // Each reply carries its request's id: RX on port A and TX on port A under one packet id, on the same queue
        // (xps_rxqs 1:1), by the same socket.
        int replies = 0;
        for (final Packet packet : packets)
        {
            if (packet.iface().startsWith("loopA-tx"))
            {
                final Packet request = serverRx.get(packet.id());
                assertTrue(null != request, "the request of reply " + packet);
                assertEquals("1", packet.keys().get("reply"));
                assertEquals(request.queue(), packet.queue(), "xps_rxqs 1:1: RX queue = TX queue: " + packet);
                assertEquals(request.keys().get("sock"), packet.keys().get("sock"));
                assertTrue(packet.keys().get("via").matches("xps-rxqs|cached"), packet.toString());
                replies++;
            }
        }
        assertEquals(CLIENTS * REQUESTS, replies);
    }

    @Test
    void aFilterThatMatchesNothingWritesAValidFileWithNoPackets() throws Exception
    {
        final Path file = none().file();
        TraceFiles.assertWholeBlocks(file);
        assertEquals(List.of(), packets(file));
    }

    @Test
    void aFullTraceRingDropsEventsCountedAndNeverPackets() throws Exception
    {
        // The drops are checked as the run is recorded; what was written is whole packets in whole blocks.
        final Path file = full().file();
        TraceFiles.assertWholeBlocks(file);
        final List<Packet> packets = packets(file);
        assertTrue(!packets.isEmpty(), "some packets were traced before the ring filled");
        for (final Packet packet : packets)
        {
            assertTrue(packet.keys().containsKey(packet.iface().contains("-rx") ? "rxq" : "txq"), packet.toString());
        }
    }

    /** The format as another tool reads it: only this test needs tshark, and skips without it saying so. */
    @Test
    void tsharkReadsEachTraceFileAsPcapngReaderDoes() throws Exception
    {
        Tshark.assumeInstalled();
        for (final Recorded recorded : List.of(requestReply(), none(), full()))
        {
            TraceFiles.assertTsharkReadsAsTheReaderDoes(recorded.file());
        }
        // A display filter on the packet id finds both directions of one request.
        final Path file = requestReply().file();
        final long id = packets(file).stream().filter(p -> p.iface().startsWith("loopA-rx")).findFirst()
            .orElseThrow().id();
        final Tshark.Result both = Tshark.run(file, "-Y", "frame.packet_id == " + id, "-T", "fields", "-e",
            "frame.packet_flags_direction");
        assertEquals(List.of(), both.warnings());
        assertEquals(List.of("0x00000001", "0x00000002"), both.out().stream().sorted().toList());
    }

    @Test
    void tracingCanBeTurnedOnAndOffWhileRunning() throws Exception
    {
        final TraceConfig trace = TraceConfig.OFF;
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-switch", trace)))
        {
            final AtomicInteger replies = new AtomicInteger();
            final List<UdpSocket> clients = echo(pipeline, replies);
            exchange(pipeline, clients, replies, 2);
            assertEquals(0, pipeline.tracer().events());
            pipeline.trace(TraceSelector.parse("sample=1,socket=" + clients.get(0).id()));
            exchange(pipeline, clients, replies, 2);
            pipeline.tracer().flush();
            // The socket filter matches client 0's two sends and its two replies' arrival, and nothing of the servers'.
            assertEquals(4, pipeline.total(CounterType.TRACE_PACKETS, 1));
            assertEquals(0, pipeline.total(CounterType.TRACE_PACKETS, 0));
            pipeline.trace(TraceSelector.OFF);
            final long events = pipeline.tracer().events();
            exchange(pipeline, clients, replies, 2);
            assertEquals(events, pipeline.tracer().events());
        }
    }
}
