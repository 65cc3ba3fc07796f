package io.xmit.pipeline.flow;

import io.xmit.pipeline.AllocationMeter;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class HashAllocationTest
{
    private static final int OPERATIONS = 1_000_000;

    private final FlowHasher hasher = new FlowHasher(0x1234L, 0x5678L);
    private final Toeplitz toeplitz = Toeplitz.withDefaultKey();
    private final FlowKey key = new FlowKey();

    // Alternates IPv4 and IPv6 keys; each operation is one FlowHasher hash and one Toeplitz hash.
    private long run(final int operations)
    {
        long sum = 0;
        for (int i = 0; i < operations; i++)
        {
            if ((i & 1) == 0)
            {
                key.setIpv4(FlowKey.PROTO_UDP, 0x0A000000 | i, 0x0A000001, i & 0xFFFF, 11211);
            }
            else
            {
                key.setIpv6(FlowKey.PROTO_TCP, 0x2001_0db8_0000_0000L, i, 0x2001_0db8_0000_0000L, 1, i & 0xFFFF, 443);
            }
            sum += hasher.hash(key);
            sum += toeplitz.hash(key, (i & 2) == 0);
        }
        return sum;
    }

    @Test
    void flowHashAndToeplitzAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, 2 * OPERATIONS, OPERATIONS);

        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + OPERATIONS + " FlowHasher + Toeplitz hashes");
        assertNotEquals(0, m.result());
    }
}
