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

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicReference;

import static io.xmit.tests.EndToEndSupport.await;
import static io.xmit.tests.EndToEndSupport.awaitExactly;
import static io.xmit.tests.EndToEndSupport.loopConfig;
import static io.xmit.tests.EndToEndSupport.sendTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class SocketLifecycleTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    /** A handler that throws loses the pipeline nothing: each such datagram counts as delivered and as failed. */
    @Test
    void aFailingHandlerIsCountedAndTheSocketGoesOn()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-handler", 2, XpsPreset.NONE)))
        {
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) ->
            {
                if (datagram.payloadLength() > 1)
                {
                    throw new IllegalStateException("the application's bug");
                }
            }));
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1));
            final Endpoint serverEndpoint = Endpoint.of("10.0.0.1", 7);
            for (int i = 0; i < 3; i++)
            {
                sendTo(client, serverEndpoint, new byte[] {1, 2});
            }
            sendTo(client, serverEndpoint, new byte[] {3});
            final CounterScope scope = CounterScope.socket(0, server.id());
            awaitExactly("datagrams delivered", 4, () -> pipeline.counter(CounterType.SOCKET_DELIVERED, scope));
            assertEquals(3, pipeline.counter(CounterType.SOCKET_HANDLER_FAILED, scope));
            assertEquals(0, pipeline.counter(CounterType.STAGE_RESTARTS, scope.withStage(CounterScope.Stage.SOCKET)));
        }
    }

    @Test
    void aCloseFromAHandlerIsRefusedAndLeavesTheSocketOpen()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-close-cpu", 2, XpsPreset.NONE)))
        {
            final AtomicReference<Throwable> closeFromHandler = new AtomicReference<>();
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) ->
                closeFromHandler.compareAndSet(null, assertThrows(IllegalStateException.class, socket::close))));
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1));

            sendTo(client, Endpoint.of("10.0.0.1", 7), new byte[] {1});

            await("the handler's close attempt", () -> null != closeFromHandler.get(), closeFromHandler::get);
            assertTrue(closeFromHandler.get().getMessage().contains("cannot run on xmit CPU"),
                closeFromHandler.get().getMessage());
            assertFalse(server.isClosed(), "a close refused on a CPU leaves the socket open");
        }
    }

    @Test
    void aClosedSocketRefusesSendsAndClosesOnce()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-close", 2, XpsPreset.NONE)))
        {
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7));

            server.close();

            assertTrue(server.isClosed());
            assertEquals(SendResult.CLOSED, server.sendTo(Endpoint.of("10.0.0.2", 5000), new UnsafeBuffer(new byte[1]),
                0, 1));
            server.close();
            assertTrue(server.isClosed());
        }
    }

    @Test
    void datagramsForAClosedSocketCountAsNoSocket()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-no-socket", 2, XpsPreset.NONE)))
        {
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) -> { }));
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1));
            server.close();

            sendTo(client, Endpoint.of("10.0.0.1", 7), new byte[] {2});

            awaitExactly("no-socket drops", 1, () -> pipeline.total(CounterType.RX_DROP_NO_SOCKET, 0));
        }
    }

    @Test
    void aClosedSocketsAddressCanBeBoundAgain()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-rebind", 2, XpsPreset.NONE)))
        {
            pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) -> { })).close();
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(5000).onPort(1));

            final UdpSocket again = pipeline.openUdp(SocketOptions.udp4(7).handler((socket, datagram) -> { }));
            sendTo(client, Endpoint.of("10.0.0.1", 7), new byte[] {3});

            awaitExactly("delivered to the new socket", 1,
                () -> pipeline.counter(CounterType.SOCKET_DELIVERED, CounterScope.socket(0, again.id())));
        }
    }

    @Test
    void controlCallsAfterCloseFailAtOnce()
    {
        final Pipeline pipeline = Pipeline.start(KIT.system(), loopConfig("life-after", 2, XpsPreset.NONE));
        pipeline.close();
        pipeline.close();
        assertEquals("pipeline 'life-after' is closed",
            assertThrows(IllegalStateException.class, () -> pipeline.openUdp(SocketOptions.udp4(7))).getMessage());
        assertEquals("pipeline 'life-after' is closed",
            assertThrows(IllegalStateException.class, () -> pipeline.setTxQueueCount(0, 2)).getMessage());
    }
}
