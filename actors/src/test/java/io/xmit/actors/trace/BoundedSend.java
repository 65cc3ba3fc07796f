package io.xmit.actors.trace;

import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;

import org.agrona.DirectBuffer;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/** A send for these tests that retries only while back-pressured, and for at most 10 s: no test hangs on a send. */
final class BoundedSend
{
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private BoundedSend()
    {
    }

    /** Sends to {@code socket}'s connected peer; any refusal but back pressure, or back pressure for 10 s, fails. */
    static void send(final UdpSocket socket, final DirectBuffer buffer, final int offset, final int length)
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        long result;
        while ((result = socket.send(buffer, offset, length)) < 0)
        {
            if (SendResult.BACK_PRESSURED != result)
            {
                fail("send on " + socket + " refused: " + result);
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("send on " + socket + " back-pressured for " + TimeUnit.NANOSECONDS.toSeconds(WAIT_NANOS) + " s");
            }
            Thread.onSpinWait();
        }
    }
}
