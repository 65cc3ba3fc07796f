package io.xmit.deploy.bench;

import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The request generator of every open-loop load ({@code xmit run}'s request/response, a cluster's {@code --load}, the
 * {@code cluster} bench's variants and its failover phase): one thread paces requests at a fixed rate, round-robin
 * over the flows, each request carrying its send time in its first 8 bytes for the RTT. It sleeps through long gaps (a
 * spinning generator would take a whole core from the pipeline's CPUs) and spins the last {@link #SPIN_NS}.
 */
public final class RequestPacer
{
    /** An {@link Attempt}'s outcomes: the request is done with (sent, or refused and counted), go on to the next. */
    public static final int NEXT = 1;
    /** The request was back-pressured: offer it again at once. */
    public static final int RETRY = 0;
    /** The load cannot go on (a stopped pipeline): the pacer returns. */
    public static final int STOP = -1;

    static final long SPIN_NS = 20_000;

    /** One flow's offer of one request, counted by its implementation: {@link #NEXT}, {@link #RETRY}, {@link #STOP}. */
    @FunctionalInterface
    public interface Attempt
    {
        int send(int flow, UnsafeBuffer payload, int length);
    }

    private RequestPacer()
    {
    }

    /**
     * Offers requests of {@code payloadLength} bytes until {@code running} says no or an attempt says {@link #STOP},
     * one every {@code interval} nanoseconds (read before each wait, so a load may change its rate as it runs).
     *
     * @param payloadLength bytes per request, at least 8.
     */
    public static void pace(final int payloadLength, final int flows, final LongSupplier interval,
        final BooleanSupplier running, final Attempt attempt)
    {
        if (payloadLength < Long.BYTES || flows < 1)
        {
            throw new IllegalArgumentException("payload length " + payloadLength + " is not >= 8 or flows " + flows +
                " not >= 1");
        }
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[payloadLength]);
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
            final int outcome = attempt.send(flow, payload, payloadLength);
            if (NEXT == outcome)
            {
                next += interval.getAsLong();
                flow = flow + 1 == flows ? 0 : flow + 1;
            }
            else if (STOP == outcome)
            {
                return;
            }
        }
    }

    /**
     * Offers requests over connected client sockets until {@code running} says no, counting those sent and the
     * back-pressured attempts; any other refusal (a stopped pipeline) ends it.
     *
     * @param payloadLength bytes per request, at least 8.
     */
    public static void offer(final List<UdpSocket> clients, final int payloadLength, final long rate,
        final BooleanSupplier running, final AtomicLong requests, final AtomicLong backPressured)
    {
        final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        pace(payloadLength, clients.size(), () -> interval, running, (flow, payload, length) ->
        {
            final long result = clients.get(flow).send(payload, 0, length);
            if (result > 0)
            {
                requests.incrementAndGet();
                return NEXT;
            }
            if (SendResult.BACK_PRESSURED == result)
            {
                backPressured.incrementAndGet();
                return RETRY;
            }
            return STOP;
        });
    }
}
