package io.xmit.pipeline.flow;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlowHasherTest
{
    private final FlowHasher hasher = new FlowHasher(0x0123456789abcdefL, 0xfedcba9876543210L);

    @Test
    void bothDirectionsOfAnIpv4FlowHashAlike()
    {
        // kernel-semantics §3.4: canonicalised, so a->b and b->a share a hash.
        final FlowKey ab = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        final FlowKey ba = FlowKey.parse("udp:10.0.0.2:11211-10.0.0.1:5000");
        assertEquals(hasher.hash(ab), hasher.hash(ba));
    }

    @Test
    void bothDirectionsOfAnIpv6FlowHashAlike()
    {
        final FlowKey ab = FlowKey.parse("tcp:[2001:db8::1]:80-[2001:db8::2]:443");
        final FlowKey ba = FlowKey.parse("tcp:[2001:db8::2]:443-[2001:db8::1]:80");
        assertEquals(hasher.hash(ab), hasher.hash(ba));

        // Addresses differing only in the high half, and with the top bit set (unsigned order).
        final FlowKey cd = FlowKey.parse("tcp:[fe80::1]:1-[2001::1]:2");
        final FlowKey dc = FlowKey.parse("tcp:[2001::1]:2-[fe80::1]:1");
        assertEquals(hasher.hash(cd), hasher.hash(dc));
    }

    @Test
    void addressesAndPortsAreSortedIndependently()
    {
        // Current kernel: sorting addresses and ports separately, so swapping only the ports is the same flow.
        final FlowKey a = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:6000");
        final FlowKey b = FlowKey.parse("udp:10.0.0.1:6000-10.0.0.2:5000");
        final FlowKey c = FlowKey.parse("udp:10.0.0.2:5000-10.0.0.1:6000");
        assertEquals(hasher.hash(a), hasher.hash(b));
        assertEquals(hasher.hash(a), hasher.hash(c));
    }

    @Test
    void ipv4AddressesWithTopBitSetHashSymmetrically()
    {
        final FlowKey ab = FlowKey.parse("udp:200.1.1.1:1-10.0.0.1:2");
        final FlowKey ba = FlowKey.parse("udp:10.0.0.1:2-200.1.1.1:1");
        assertEquals(hasher.hash(ab), hasher.hash(ba));
    }

    @Test
    void hashIsStableAcrossCallsAndEqualKeys()
    {
        final FlowKey key = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        final int first = hasher.hash(key);
        for (int i = 0; i < 100; i++)
        {
            assertEquals(first, hasher.hash(key));
        }
        assertEquals(first, new FlowHasher(0x0123456789abcdefL, 0xfedcba9876543210L).hash(new FlowKey().copyFrom(key)));
    }

    @Test
    void hashEqualsTruncatedSipHashOfCanonicalMessage()
    {
        // Pins the message layout documented on FlowHasher.
        final FlowKey key = FlowKey.parse("udp:10.0.0.2:11211-10.0.0.1:5000");
        final long m0 = (0x0A000001L << 32) | 0x0A000002L;
        final long m1 = (11211L << 32) | (5000L << 16) | (FlowKey.PROTO_UDP << 8) | FlowKey.FAMILY_IPV4;
        assertEquals((int)SipHash24.hash(0x0123456789abcdefL, 0xfedcba9876543210L, m0, m1), hasher.hash(key));
    }

    @Test
    void zeroTruncatedHashBecomesOne()
    {
        // kernel-semantics §3.4: 0 -> 1, only the low 32 bits count.
        assertEquals(1, FlowHasher.fold(0L));
        assertEquals(1, FlowHasher.fold(0xABCD_EF01_0000_0000L));
        assertEquals(0x1234_5678, FlowHasher.fold(0xFFFF_FFFF_1234_5678L));
        assertEquals(-1, FlowHasher.fold(0xFFFF_FFFFL));
    }

    @Test
    void hashIsNeverZeroOverManyFlows()
    {
        final FlowKey key = new FlowKey();
        for (int i = 0; i < 200_000; i++)
        {
            key.setIpv4(FlowKey.PROTO_UDP, 0x0A000000 | i, 0x0A010001, 1024 + (i & 0x3FF), 80);
            assertNotEquals(0, hasher.hash(key));
        }
    }

    @Test
    void differentFlowsGetDifferentHashes()
    {
        final Set<Integer> seen = new HashSet<>();
        final FlowKey key = new FlowKey();
        for (int port = 1; port <= 1000; port++)
        {
            key.setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002, port, 11211);
            assertTrue(seen.add(hasher.hash(key)), "collision at port " + port);
        }
        key.setIpv4(FlowKey.PROTO_TCP, 0x0A000001, 0x0A000002, 1, 11211);
        assertTrue(seen.add(hasher.hash(key)), "protocol must be part of the hash");
        key.setIpv6(FlowKey.PROTO_UDP, 0, 0x0A000001, 0, 0x0A000002, 1, 11211);
        assertTrue(seen.add(hasher.hash(key)), "family must be part of the hash");
    }

    @Test
    void differentKeysGiveDifferentHashesForTheSameFlow()
    {
        final FlowKey key = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
        assertNotEquals(hasher.hash(key), new FlowHasher(1, 2).hash(key));
        assertNotEquals(FlowHasher.random().hash(key), FlowHasher.random().hash(key));
    }

    @Test
    void hashesSpreadEvenlyOverQueues()
    {
        // §3.3 consumer: reciprocalScale over 16 queues; 100k flows, each queue within 7% of 6250.
        final int queues = 16;
        final int flows = 100_000;
        final int[] counts = new int[queues];
        final FlowKey key = new FlowKey();
        for (int i = 0; i < flows; i++)
        {
            key.setIpv4(FlowKey.PROTO_UDP, 0x0A000000 | (i >>> 8), 0xC0A80001, 10_000 + (i & 0xFF), 11211);
            counts[Hashing.reciprocalScale(hasher.hash(key), queues)]++;
        }
        for (int q = 0; q < queues; q++)
        {
            assertEquals(flows / queues, counts[q], flows / queues * 0.07, "queue " + q);
        }
    }
}
