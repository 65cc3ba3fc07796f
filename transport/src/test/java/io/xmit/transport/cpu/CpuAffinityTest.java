package io.xmit.transport.cpu;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuAffinityTest
{
    @Test
    void pinsTheCallingThreadToOneCore() throws InterruptedException
    {
        final BitSet allowed = CpuAffinity.currentAffinity();
        assertNotNull(allowed);
        final int core = allowed.previousSetBit(allowed.length());
        final AtomicReference<CpuAffinity.Result> result = new AtomicReference<>();
        final AtomicReference<BitSet> after = new AtomicReference<>();
        final Thread thread = Thread.ofPlatform().start(() ->
        {
            result.set(CpuAffinity.pinCurrentThread(core));
            after.set(CpuAffinity.currentAffinity());
        });
        thread.join();
        assertEquals(new CpuAffinity.Result(true, ""), result.get());
        final BitSet expected = new BitSet();
        expected.set(core);
        assertEquals(expected, after.get());
    }

    @Test
    void aCoreOutsideTheAllowedSetIsReportedWithErrno() throws InterruptedException
    {
        final AtomicReference<CpuAffinity.Result> result = new AtomicReference<>();
        final Thread thread = Thread.ofPlatform().start(() -> result.set(CpuAffinity.pinCurrentThread(1023)));
        thread.join();
        assertFalse(result.get().pinned());
        assertEquals("sched_setaffinity(core 1023) failed: EINVAL (the core is not online or not in this " +
            "process's allowed set, e.g. a cgroup cpuset)", result.get().reason());
    }

    @Test
    void aCoreOutOfRangeIsRefusedWithoutACall()
    {
        assertEquals(new CpuAffinity.Result(false, "core -1 is out of range 0..1023"), CpuAffinity.pinCurrentThread(-1));
        assertTrue(CpuAffinity.pinCurrentThread(1024).reason().contains("out of range"));
    }
}
