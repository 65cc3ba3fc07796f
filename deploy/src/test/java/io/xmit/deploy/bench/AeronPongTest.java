package io.xmit.deploy.bench;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.xmit.pipeline.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The {@code aeron-udp} variant's echo is in place only once its replies can reach the ping: the ping waits for its
 * own publication alone, so a pong that polled before its publication connected refused the first echoes
 * {@code NOT_CONNECTED}, and those requests were lost without a reason (issue 16's unexplained losses).
 */
class AeronPongTest
{
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPongWhosePingDoesNotListenIsNotReadyAndSaysWhy() throws IOException
    {
        final int pongPort = freeUdpPort();
        final int pingPort = freeUdpPort();
        final DataPathThreads threads = new DataPathThreads(name -> false);

        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> new AeronPong(pongPort, pingPort, threads, Duration.ofSeconds(1)).close());
        assertEquals("not within 1 s: pong's publication to 127.0.0.1:" + pingPort + " stream " +
            BareAeron.PONG_STREAM + " connected", ex.getMessage());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyRequestFromTheFirstIsAnsweredOnceBothEndsAreReady() throws Exception
    {
        final int pongPort = freeUdpPort();
        final int pingPort = freeUdpPort();
        final DataPathThreads threads = new DataPathThreads(name -> false);
        try (AeronPing ping = new AeronPing(pingPort, pongPort, threads);
            AeronPong pong = new AeronPong(pongPort, pingPort, threads))
        {
            ping.startLoad(2_000, 1);
            Await.atLeast("replies", 500, ping::packets, Duration.ofSeconds(60));
            final String[] rest = ping.load().stop(TimeUnit.SECONDS.toNanos(30)).split(" ");

            assertEquals(rest[0], rest[1], "sent and answered");
            assertEquals("0 0", pong.repliesLost(), "echoes given up on: back-pressured, refused");
        }
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
