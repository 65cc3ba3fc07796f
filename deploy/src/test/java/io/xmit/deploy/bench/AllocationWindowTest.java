package io.xmit.deploy.bench;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The marginal bytes per packet of the {@code cluster} bench from made-up windows: allocation rates summed over the
 * processes, packet rates from the load's process, windows of different lengths compared as rates.
 */
class AllocationWindowTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void whatTheThreadsAllocateWhateverTheRateCancelsOut()
    {
        // Load: 3,000 replies/s and 2,000 B/s in 2 s, then 750/s and 2,000 B/s in 1 s; the echo 1,000 B/s both
        // times. A fixed 3,000 B/s of background and nothing per packet: the marginal is 0, the upper bound 1 B.
        final List<AllocationWindow> fast = List.of(new AllocationWindow(4_000, 6_000, 2 * SECOND),
            new AllocationWindow(2_000, 6_000, 2 * SECOND));
        final List<AllocationWindow> slow = List.of(new AllocationWindow(2_000, 750, SECOND),
            new AllocationWindow(1_000, 750, SECOND));

        assertEquals(0.0, AllocationWindow.marginalBytesPerPacket(fast, slow));
        assertEquals(6_000, AllocationWindow.bytes(fast));
    }

    @Test
    void bytesThatGrowWithThePacketsAreCountedPerReplyOfTheLoad()
    {
        // 1,000 B/s of background in each of two processes, plus 16 B per reply in the load's and 8 B per request in
        // the echo's: 4,000 replies/s against 1,000 in windows of 1 s and 0.5 s.
        final List<AllocationWindow> fast = List.of(new AllocationWindow(1_000 + 16 * 4_000, 4_000, SECOND),
            new AllocationWindow(1_000 + 8 * 4_000, 4_000, SECOND));
        final List<AllocationWindow> slow = List.of(new AllocationWindow(500 + 16 * 500, 500, SECOND / 2),
            new AllocationWindow(500 + 8 * 500, 500, SECOND / 2));

        assertEquals(24.0, AllocationWindow.marginalBytesPerPacket(fast, slow), 1e-9);
    }

    @Test
    void equalReplyRatesHaveNoMarginal()
    {
        final List<AllocationWindow> same = List.of(new AllocationWindow(100, 10, SECOND));

        assertEquals(Double.NaN, AllocationWindow.marginalBytesPerPacket(same, same));
    }

    @Test
    void badInputIsRefusedByName()
    {
        assertEquals("not an allocation window (BYTES PACKETS NANOS): '12 3'",
            assertThrows(IllegalArgumentException.class, () -> AllocationWindow.parse("12 3")).getMessage());
        assertEquals(new AllocationWindow(12, 3, 7), AllocationWindow.parse("12 3 7"));
        assertEquals("allocation window out of range: 1 bytes, 1 packets, 0 ns",
            assertThrows(IllegalArgumentException.class, () -> new AllocationWindow(1, 1, 0)).getMessage());
        assertEquals("windows of 1 and 2 processes: the same processes, at least one, are measured twice",
            assertThrows(IllegalArgumentException.class, () -> AllocationWindow.marginalBytesPerPacket(
                List.of(new AllocationWindow(1, 1, 1)),
                List.of(new AllocationWindow(1, 1, 1), new AllocationWindow(1, 1, 1)))).getMessage());
    }
}
