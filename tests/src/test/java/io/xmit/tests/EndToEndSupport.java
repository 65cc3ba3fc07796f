package io.xmit.tests;

import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterType;

import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Helpers for the end-to-end tests over the {@code loop} device: bounded waits, sends that ride out back-pressure,
 * and the small configurations the tests start from.
 */
final class EndToEndSupport
{
    /** The longest any single wait in these tests may take; a healthy pipeline needs milliseconds. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * {@code qdisc.sender-bypass} of {@link #loopConfig}, the default unless {@code -Dtest.qdisc.sender-bypass=on|off}
     * asks otherwise: the end-to-end suites run with the bypass in the sender's context on and off.
     */
    static final boolean SENDER_BYPASS = senderBypass(System.getProperty("test.qdisc.sender-bypass"));

    private EndToEndSupport()
    {
    }

    /** A 4 TX / 4 RX queue loop device without a rate, small rings (keeps /dev/shm use low). */
    static PipelineConfig loopConfig(final String name, final int cpus, final XpsPreset preset)
    {
        return PipelineConfig.builder()
            .name(name)
            .cpus(cpus)
            .device("loop:tx=4,rx=4,ring=1024,frame=2048,rate=0")
            .qdiscRingTerm(1 << 20)
            .socketRingTerm(1 << 16)
            .xpsPreset(preset)
            .qdiscSenderBypass(SENDER_BYPASS)
            .build();
    }

    private static boolean senderBypass(final String setting)
    {
        if (null == setting)
        {
            return PipelineConfig.DEFAULT_SENDER_BYPASS;
        }
        return switch (setting)
        {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("test.qdisc.sender-bypass = '" + setting +
                "' is not on or off");
        };
    }

    /** Waits until {@code condition} holds, failing with {@code what} and {@code state} after 10 s: {@link Await}. */
    static void await(final String what, final BooleanSupplier condition, final Supplier<Object> state)
    {
        Await.until(what, condition, state);
    }

    /**
     * Waits until {@code value} reaches {@code expected} (bounded), then requires it to be exactly {@code expected}:
     * a counter that overshoots is a failure, not a pass. {@link Await#exactly}.
     */
    static void awaitExactly(final String what, final long expected, final LongSupplier value)
    {
        Await.exactly(what, expected, value);
    }

    /** Sends to {@code to}, retrying only while back-pressured; any other refusal fails the test. */
    static void sendTo(final UdpSocket socket, final Endpoint to, final byte[] payload)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(payload);
        retry(socket, () -> socket.sendTo(to, buffer, 0, payload.length));
    }

    /** Sends to the connected peer, retrying only while back-pressured. */
    static void send(final UdpSocket socket, final byte[] payload)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(payload);
        retry(socket, () -> socket.send(buffer, 0, payload.length));
    }

    private static void retry(final UdpSocket socket, final LongSupplier attempt)
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        long result;
        while ((result = attempt.getAsLong()) < 0)
        {
            if (SendResult.BACK_PRESSURED != result)
            {
                fail("send on " + socket + " refused: " + result);
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("send on " + socket + " back-pressured for " + TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS) +
                    " s");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * What {@code port} dropped on receive, counted: every RX-queue drop reason and the device's missed and dropped
     * frames (its rings full). The one sum every end-to-end test uses, so no reason is left out of one of them.
     */
    static long rxDrops(final Pipeline pipeline, final int port)
    {
        long drops = 0;
        for (final CounterType type : List.of(CounterType.RX_DROP_MALFORMED, CounterType.RX_DROP_NO_SOCKET,
            CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_UNSUPPORTED, CounterType.RX_DROP_FAILED))
        {
            drops += pipeline.total(type, port);
        }
        for (int q = 0; q < pipeline.driver(port).rxQueueCount(); q++)
        {
            drops += pipeline.driver(port).stats(q).rxMissed() + pipeline.driver(port).stats(q).rxDropped();
        }
        return drops;
    }

    /** The reply a request/response server in these tests gives: {@code "re:"} then the request reversed. */
    static byte[] transform(final byte[] request)
    {
        final byte[] reply = new byte[request.length + 3];
        reply[0] = 'r';
        reply[1] = 'e';
        reply[2] = ':';
        for (int i = 0; i < request.length; i++)
        {
            reply[3 + i] = request[request.length - 1 - i];
        }
        return reply;
    }
}
