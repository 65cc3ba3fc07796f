package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EchoSmokeTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void echoesOverTheLoopDevice() throws Exception
    {
        final PipelineConfig config = PipelineConfig.builder().name("smoke").cpus(2)
            .qdiscRingTerm(1 << 20).socketRingTerm(1 << 16).build();
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config))
        {
            final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) ->
            {
                reply.putBytes(0, datagram.buffer(), datagram.payloadOffset(), datagram.payloadLength());
                socket.reply(datagram, reply, 0, datagram.payloadLength());
            }));
            final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7))
                .handler((socket, datagram) -> received.add(new String(datagram.payload()))));
            for (int i = 0; i < 100; i++)
            {
                // Retries only while back-pressured, for a bounded time.
                EndToEndSupport.send(client, String.format("hello %04d", i).getBytes());
            }
            Await.until("100 echoes", () -> received.size() >= 100, pipeline::counters);
            System.out.println(pipeline.counters());
            assertEquals(100, received.size());
            assertEquals("hello 0000", received.peek());
            assertEquals(100, pipeline.total(CounterType.QDISC_PACKETS, 1));
        }
    }
}
