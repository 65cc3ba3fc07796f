package io.xmit.deploy.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The load's RTT recording allocates nothing on the thread that receives the replies, whatever the RTT. */
class PacedLoadTest
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @Test
    void aReplySlowerThanAnyBeforeAllocatesNothing()
    {
        final PacedLoad load = new PacedLoad(BenchPipeline.PAYLOAD, new DataPathThreads(name -> false));
        final UnsafeBuffer reply = new UnsafeBuffer(new byte[BenchPipeline.PAYLOAD]);
        load.window();
        reply.putLong(0, System.nanoTime() - TimeUnit.MICROSECONDS.toNanos(50));
        load.replied(reply, 0);
        reply.putLong(0, System.nanoTime() - TimeUnit.SECONDS.toNanos(30));
        allocatedBy(() -> { });

        assertEquals(0, allocatedBy(() -> load.replied(reply, 0)), "bytes allocated by a reply 30 s late");
        assertEquals(2, load.replies());
    }

    private static long allocatedBy(final Runnable action)
    {
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        action.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
