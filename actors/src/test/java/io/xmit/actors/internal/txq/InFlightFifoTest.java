package io.xmit.actors.internal.txq;

import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.socket.SocketTableTest;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.pipeline.qdisc.DescriptorBatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket ids of packets in flight on a TX queue: first in, first out, refusing what does not fit, and one
 * producer with one consumer on two threads. A removed id is seen as the socket's in-flight count going down, so
 * each socket's count says how many of its ids have been removed so far.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InFlightFifoTest
{
    private static final int SOCKETS = 61;

    private final SocketTable table = new SocketTable();
    private final UdpSocketImpl[] sockets = new UdpSocketImpl[SOCKETS + 1];

    InFlightFifoTest()
    {
        for (int id = 1; id <= SOCKETS; id++)
        {
            sockets[id] = SocketTableTest.socket(id, 0, "10.0.0.1", id, false);
            table.put(sockets[id]);
        }
    }

    @Test
    void capacityIsRoundedUpToAPowerOfTwo()
    {
        assertEquals(1, new InFlightFifo(1).capacity());
        assertEquals(1024, new InFlightFifo(1000).capacity());
        assertEquals(1024, new InFlightFifo(1024).capacity());
        assertEquals(1 << 24, new InFlightFifo(1 << 24).capacity());
        assertEquals("in-flight capacity 0 is not in 1..16777216",
            assertThrows(IllegalArgumentException.class, () -> new InFlightFifo(0)).getMessage());
        assertEquals("in-flight capacity 16777217 is not in 1..16777216",
            assertThrows(IllegalArgumentException.class, () -> new InFlightFifo((1 << 24) + 1)).getMessage());
    }

    @Test
    void idsAreRemovedInTheOrderTheyWereAppended()
    {
        final InFlightFifo fifo = new InFlightFifo(8);
        assertTrue(fifo.append(batch(3, 1, 2), 3));
        assertTrue(fifo.append(batch(2, 3, 9), 2), "only the first count descriptors");
        assertEquals(5, fifo.size());

        final int[] order = {3, 1, 2, 2, 3};
        for (int i = 0; i < order.length; i++)
        {
            final long before = sockets[order[i]].inFlight();
            assertEquals(1, fifo.remove(1, table));
            assertEquals(before - 1, sockets[order[i]].inFlight(), "removal " + i + " released socket " + order[i]);
            assertEquals(4 - i, fifo.size());
        }
        assertEquals(0, sockets[9].inFlight(), "the descriptor past the count was not appended");
    }

    @Test
    void appendRefusesWhatDoesNotFitAndAppendsNothing()
    {
        final InFlightFifo fifo = new InFlightFifo(4);
        assertTrue(fifo.append(batch(1, 2, 3), 3));
        assertFalse(fifo.append(batch(4, 5), 2));
        assertEquals(3, fifo.size());
        assertTrue(fifo.append(batch(4), 1), "exactly full");
        assertFalse(fifo.append(batch(5), 1));
        assertTrue(fifo.append(batch(), 0), "nothing fits even when full");
        assertEquals(4, fifo.size());

        assertEquals(2, fifo.remove(2, table));
        assertTrue(fifo.append(batch(5, 6), 2), "room again after removal, across the wrap");
        assertEquals(4, fifo.remove(10, table));
        for (int id = 1; id <= 6; id++)
        {
            assertEquals(-1, sockets[id].inFlight(), "socket " + id + " released once");
        }
    }

    @Test
    void removeTakesFewerWhenFewerAreThere()
    {
        final InFlightFifo fifo = new InFlightFifo(16);
        assertEquals(0, fifo.remove(5, table), "empty");
        assertTrue(fifo.append(batch(7, 8), 2));
        assertEquals(2, fifo.remove(5, table));
        assertEquals(0, fifo.size());
        assertEquals(0, fifo.remove(1, table));
        assertEquals(0, fifo.remove(0, table));
        assertEquals(-1, sockets[7].inFlight());
        assertEquals(-1, sockets[8].inFlight());
    }

    @Test
    void aClosedSocketsIdIsRemovedAndIgnored()
    {
        final InFlightFifo fifo = new InFlightFifo(4);
        assertTrue(fifo.append(batch(5, 6), 2));
        table.remove(sockets[5]);
        assertEquals(2, fifo.remove(2, table));
        assertEquals(0, sockets[5].inFlight());
        assertEquals(-1, sockets[6].inFlight());
    }

    /**
     * One producer and one consumer on their own threads, bounded: up to ten million ids or ten seconds of producing,
     * whichever comes first (a loaded machine gets through fewer), then everything produced is drained and checked.
     */
    @Test
    void oneProducerAndOneConsumerPassIdsInOrder() throws InterruptedException
    {
        final long total = 10_000_000L;
        final InFlightFifo fifo = new InFlightFifo(1024);
        final long stopProducingAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        final AtomicLong produced = new AtomicLong(-1);
        final AtomicReference<String> producerFailure = new AtomicReference<>();

        final Thread producer = new Thread(() ->
        {
            final DescriptorBatch batch = new DescriptorBatch(64);
            long next = 0;
            while (next < total && System.nanoTime() < stopProducingAt)
            {
                final int count = (int)Math.min(1 + (next * 7 % 64), total - next);
                batch.clear();
                for (int i = 0; i < count; i++)
                {
                    batch.addExternal(0, 0, 0, idOf(next + i));
                }
                while (!fifo.append(batch, count))
                {
                    if (System.nanoTime() > deadline)
                    {
                        producerFailure.set("producer stuck at " + next);
                        return;
                    }
                    Thread.onSpinWait();
                }
                next += count;
            }
            produced.set(next);
        }, "in-flight-producer");
        producer.start();

        // Each socket's count of removed ids, as the order says it must be after every removal.
        final long[] expected = new long[SOCKETS + 1];
        long removed = 0;
        int ask = 1;
        while (removed != produced.get())
        {
            final int n = fifo.remove(ask, table);
            assertTrue(n >= 0 && n <= ask, "removed " + n + " of " + ask);
            for (int i = 0; i < n; i++)
            {
                expected[idOf(removed + i)]++;
            }
            for (int i = 0; i < n; i++)
            {
                final int id = idOf(removed + i);
                if (-sockets[id].inFlight() != expected[id])
                {
                    assertEquals(expected[id], -sockets[id].inFlight(),
                        "socket " + id + " after " + (removed + n) + " removals");
                }
            }
            removed += n;
            ask = 1 + (ask * 5 + 3) % 97;
            if (0 == n)
            {
                assertNull(producerFailure.get());
                assertTrue(System.nanoTime() < deadline, "the consumer made no progress at " + removed);
                Thread.onSpinWait();
            }
        }
        producer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(producer.isAlive());
        assertNull(producerFailure.get());
        assertTrue(removed >= 100_000, "too few ids to have interleaved: " + removed);
        assertEquals(0, fifo.size());
        assertEquals(0, fifo.remove(1, table));
        long released = 0;
        for (int id = 1; id <= SOCKETS; id++)
        {
            assertEquals(expected[id], -sockets[id].inFlight());
            released += expected[id];
        }
        assertEquals(removed, released);
    }

    /** Not periodic, so that an id out of place shows as a socket's count being off. */
    private static int idOf(final long seq)
    {
        long z = seq * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return 1 + (int)((z >>> 33) % SOCKETS);
    }

    private static DescriptorBatch batch(final int... tags)
    {
        final DescriptorBatch batch = new DescriptorBatch(Math.max(1, tags.length));
        for (final int tag : tags)
        {
            batch.addExternal(0, 0, 0, tag);
        }
        return batch;
    }
}
