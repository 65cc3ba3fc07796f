package io.xmit.transport.ring;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run token: one holder at a time, and the MISSED mark that leaves no loser's work behind. */
class RunTokenTest
{
    private final RunToken token = new RunToken();

    @Test
    void oneHolderAtATimeAndALoserMarksMissed()
    {
        assertEquals(RunToken.FREE, token.state());
        assertTrue(token.tryAcquire());
        assertFalse(token.tryAcquire());
        assertEquals(RunToken.HELD_MISSED, token.state());
        assertFalse(token.tryAcquire());
        assertTrue(token.release(), "the holder is told that a loser's work may wait");
        assertEquals(RunToken.FREE, token.state());
    }

    @Test
    void aQuietLoserLeavesNoMark()
    {
        assertTrue(token.tryAcquireQuietly());
        assertFalse(token.tryAcquireQuietly());
        assertEquals(RunToken.HELD, token.state());
        assertFalse(token.release());
    }

    @Test
    void releasingAFreeTokenIsAnError()
    {
        final IllegalStateException error = assertThrows(IllegalStateException.class, token::release);
        assertEquals("run token released while free", error.getMessage());
    }

    /**
     * Producers each add work, then try to run the engine; a holder whose release says MISSED runs it again. Bounded
     * (a fixed number of items or 5 s, whichever comes first); every item must be run exactly once, by one holder at
     * a time, and nothing may be left in the queue once every producer is done: the MISSED rule strands nothing.
     */
    @Test
    void underContentionEveryItemRunsExactlyOnceAndNoneIsStranded() throws InterruptedException
    {
        final int producers = 4;
        final int itemsEach = 200_000;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        final ConcurrentLinkedQueue<Integer> work = new ConcurrentLinkedQueue<>();
        final AtomicIntegerArray runs = new AtomicIntegerArray(producers * itemsEach);
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger produced = new AtomicInteger();
        final Runnable engine = () ->
        {
            if (0 != holders.getAndIncrement())
            {
                overlaps.incrementAndGet();
            }
            Integer item;
            while (null != (item = work.poll()))
            {
                runs.incrementAndGet(item);
            }
            holders.decrementAndGet();
        };

        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++)
        {
            final int base = p * itemsEach;
            final Thread thread = new Thread(() ->
            {
                for (int i = 0; i < itemsEach && System.nanoTime() < deadline; i++)
                {
                    work.add(base + i);
                    produced.incrementAndGet();
                    if (token.tryAcquire())
                    {
                        do
                        {
                            engine.run();
                        }
                        while (token.release() && token.tryAcquire());
                    }
                }
            }, "producer-" + p);
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }

        assertEquals(0, overlaps.get(), "two holders ran the engine at once");
        assertEquals(RunToken.FREE, token.state());
        assertTrue(work.isEmpty(), () -> work.size() + " items stranded");
        int ranOnce = 0;
        for (int i = 0; i < runs.length(); i++)
        {
            final int count = runs.get(i);
            assertTrue(count <= 1, "item " + i + " ran " + count + " times");
            ranOnce += count;
        }
        assertEquals(produced.get(), ranOnce);
    }
}
