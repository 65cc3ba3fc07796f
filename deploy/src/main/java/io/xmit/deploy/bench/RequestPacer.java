package io.xmit.deploy.bench;

import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The request generator of {@code xmit run}'s open-loop request/response: one thread paces requests at a fixed rate
 * over client sockets, round-robin, each request carrying its send time in its first 8 bytes for the RTT. It sleeps
 * through long gaps (a spinning generator would take a whole core from the pipeline's CPUs) and spins the last
 * {@link #SPIN_NS}. A send refused with back-pressure is retried; any other refusal (a stopped pipeline) ends it.
 */
public final class RequestPacer
{
    static final long SPIN_NS = 20_000;

    private RequestPacer()
    {
    }

    /**
     * Offers requests until {@code running} says no, counting those sent and the back-pressured attempts.
     *
     * @param payloadLength bytes per request, at least 8.
     */
    public static void offer(final List<UdpSocket> clients, final int payloadLength, final long rate,
        final BooleanSupplier running, final AtomicLong requests, final AtomicLong backPressured)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[payloadLength]);
        final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        int flow = 0;
        while (running.getAsBoolean())
        {
            final long now = System.nanoTime();
            if (now < next)
            {
                if (next - now > SPIN_NS)
                {
                    LockSupport.parkNanos(next - now - SPIN_NS);
                }
                else
                {
                    Thread.onSpinWait();
                }
                continue;
            }
            payload.putLong(0, now);
            final long result = clients.get(flow).send(payload, 0, payloadLength);
            if (result > 0)
            {
                requests.incrementAndGet();
                next += interval;
                flow = flow + 1 == clients.size() ? 0 : flow + 1;
            }
            else if (SendResult.BACK_PRESSURED == result)
            {
                backPressured.incrementAndGet();
            }
            else
            {
                return;
            }
        }
    }
}
