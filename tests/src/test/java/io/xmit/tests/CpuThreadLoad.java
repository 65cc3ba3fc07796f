package io.xmit.tests;

import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * For the allocation tests: load on a pipeline from connected senders, and what the pipeline's CPU threads allocate
 * meanwhile (per-thread allocation counters of the JVM).
 */
public final class CpuThreadLoad
{
    /** Bytes of payload per datagram; the first 8 carry its number. */
    public static final int PAYLOAD = 32;

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private CpuThreadLoad()
    {
    }

    /**
     * Opens a receiving socket on port 1 (UDP 9000, whose handler does nothing) and four sockets on port 0 connected
     * to it, the senders of {@link #send}.
     */
    public static UdpSocket[] openSenders(final Pipeline pipeline)
    {
        pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).handler((socket, datagram) -> { }));
        final UdpSocket[] senders = new UdpSocket[4];
        for (int i = 0; i < senders.length; i++)
        {
            senders[i] = pipeline.openUdp(SocketOptions.udp4(7000 + i).connect(Endpoint.of("10.0.0.2", 9000)));
        }
        return senders;
    }

    /** The ids of the pipeline CPU threads of this JVM; asserts there are {@code expected}. */
    public static long[] cpuThreadIds(final int expected)
    {
        final long[] ids = Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread instanceof CpuThread).mapToLong(Thread::threadId).toArray();
        assertEquals(expected, ids.length, "the pipeline's CPU threads");
        return ids;
    }

    /** Bytes allocated so far by each of {@code threads}. */
    public static long[] allocated(final long[] threads)
    {
        final long[] bytes = THREADS.getThreadAllocatedBytes(threads);
        for (final long value : bytes)
        {
            assertTrue(value >= 0, "per-thread allocation counting is not supported");
        }
        return bytes;
    }

    /** The bytes {@code threads} allocated between two {@link #allocated} readings. */
    public static long sum(final long[] before, final long[] after)
    {
        long bytes = 0;
        for (int i = 0; i < before.length; i++)
        {
            bytes += after[i] - before[i];
        }
        return bytes;
    }

    /**
     * Sends {@code count} datagrams round-robin over {@code senders} (a power of two of them), then waits (at most
     * 20 s) until the pipeline has sent and completed them all.
     *
     * @return the packets sent so far, {@code alreadySent + count}.
     */
    public static long send(final Pipeline pipeline, final UdpSocket[] senders, final UnsafeBuffer payload,
        final int count, final long alreadySent) throws InterruptedException
    {
        for (int i = 0; i < count; i++)
        {
            final UdpSocket socket = senders[i & (senders.length - 1)];
            payload.putLong(0, i);
            while (socket.send(payload, 0, PAYLOAD) < 0)
            {
                Thread.onSpinWait();
            }
        }
        final long total = alreadySent + count;
        Await.until("the pipeline to send and complete everything",
            () -> pipeline.total(CounterType.QDISC_PACKETS, 0) == total && !inFlight(senders),
            () -> pipeline.total(CounterType.QDISC_PACKETS, 0) + " of " + total + " sent", Duration.ofSeconds(20));
        return total;
    }

    private static boolean inFlight(final UdpSocket[] senders)
    {
        for (final UdpSocket socket : senders)
        {
            if (0 != socket.inFlight())
            {
                return true;
            }
        }
        return false;
    }
}
