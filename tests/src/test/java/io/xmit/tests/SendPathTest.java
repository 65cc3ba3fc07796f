package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.nic.NicFault;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.xmit.tests.EndToEndSupport.await;
import static io.xmit.tests.EndToEndSupport.awaitExactly;
import static io.xmit.tests.EndToEndSupport.loopConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class SendPathTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void theSendBufferLimitCountsPacketsInFlightUntilTheyComplete()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("send-sndbuf", 2, XpsPreset.NONE)))
        {
            final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(5000)
                .connect(Endpoint.of("10.0.0.2", 9)).sendBuffer(4));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
            for (int q = 0; q < 4; q++)
            {
                pipeline.driver(0).fault(NicFault.TX_STALL, q, 1);
            }
            for (int i = 0; i < 4; i++)
            {
                assertTrue(socket.send(payload, 0, 8) > 0, "send " + i);
            }
            assertEquals(4, socket.inFlight());
            assertEquals(SendResult.SEND_BUFFER_FULL, socket.send(payload, 0, 8));
            assertEquals(1, pipeline.counter(CounterType.SOCKET_SEND_REFUSED, CounterScope.socket(0, socket.id())));
            assertEquals(4, pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, socket.id())));

            for (int q = 0; q < 4; q++)
            {
                pipeline.driver(0).fault(NicFault.TX_STALL, q, 0);
            }
            await("the stalled packets to complete", () -> 0 == socket.inFlight(), socket::toString);
            assertTrue(socket.send(payload, 0, 8) > 0, "room again once they completed");
            awaitExactly("completions", 5, () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
        }
    }

    @Test
    void refusedSendsAreResultsNamedAndCountedNotExceptions()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("send-refused", 2, XpsPreset.NONE)))
        {
            final UdpSocket unconnected = pipeline.openUdp(SocketOptions.udp4(5001));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);
            assertEquals(SendResult.NOT_CONNECTED, unconnected.send(payload, 0, 8));
            assertEquals(SendResult.WRONG_FAMILY, unconnected.sendTo(Endpoint.of("fd00::2", 9), payload, 0, 8));
            assertEquals(SendResult.NO_DESTINATION_PORT, unconnected.sendTo(Endpoint.of("10.0.0.2", 0), payload, 0, 8));
            // The loop device's largest frame is 2048 bytes: 2048 − 42 bytes of headers is the largest payload.
            assertEquals(SendResult.TOO_LONG, unconnected.sendTo(Endpoint.of("10.0.0.2", 9), payload, 0, 2007));
            assertTrue(unconnected.sendTo(Endpoint.of("10.0.0.2", 9), payload, 0, 2006) > 0);
            assertEquals("NOT_CONNECTED", SendResult.name(SendResult.NOT_CONNECTED));
            assertEquals("TOO_LONG", SendResult.name(SendResult.TOO_LONG));
            final CounterScope scope = CounterScope.socket(0, unconnected.id());
            assertEquals(4, pipeline.counter(CounterType.SOCKET_SEND_REFUSED, scope));
            assertEquals(1, pipeline.counter(CounterType.SOCKET_SENT, scope));
            awaitExactly("the largest frame delivered", 1, () -> pipeline.total(CounterType.RX_PACKETS, 1));
            assertEquals(2048, pipeline.total(CounterType.RX_BYTES, 1));
        }
    }

    /**
     * A payload that cannot be read is the caller's error, thrown, but never at the ring's expense: a claim left
     * open would block its TX queue's ring, and every sender behind it, until Aeron gave up on it. Bad arguments throw
     * before the claim; a buffer that fails while being copied gives its claim back.
     */
    @Test
    void aPayloadThatCannotBeReadThrowsAndTheQueueGoesOn()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("send-bad-payload", 2, XpsPreset.NONE)))
        {
            final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(5002).connect(Endpoint.of("10.0.0.2", 9)));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[64]);
            final UnsafeBuffer failing = new UnsafeBuffer(new byte[64])
            {
                @Override
                public void boundsCheck(final int index, final int length)
                {
                    throw new IllegalStateException("this buffer cannot be read");
                }
            };
            assertThrows(NullPointerException.class, () -> socket.send(null, 0, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> socket.send(payload, -1, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> socket.send(payload, 60, 8));
            assertThrows(IllegalStateException.class, () -> socket.send(failing, 0, 8));
            assertTrue(socket.send(payload, 0, 8) > 0);
            awaitExactly("the good datagram sent after the bad ones", 1,
                () -> pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, 0));
            assertEquals(1, pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, socket.id())));
            assertTrue(pipeline.verify().atRest(), pipeline.accounting().line());
        }
    }
}
