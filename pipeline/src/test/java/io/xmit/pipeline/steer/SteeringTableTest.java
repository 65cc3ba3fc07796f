package io.xmit.pipeline.steer;

import io.xmit.pipeline.AllocationMeter;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SteeringTableTest
{
    private static final int SLOTS = SteeringTable.DEFAULT_SLOTS;

    @Test
    void losingOneOfNMovesExactlyItsSlotsAndTheyReturn()
    {
        for (int n = 2; n <= 8; n++)
        {
            final String[] members = names(n);
            final long[] keys = keys(n);
            final SteeringTable<String> all = SteeringTable.of(members, keys);
            for (int lost = 0; lost < n; lost++)
            {
                final SteeringTable<String> without = SteeringTable.of(remove(members, lost), remove(keys, lost));
                int moved = 0;
                for (int s = 0; s < SLOTS; s++)
                {
                    if (all.owner(s) == members[lost])
                    {
                        moved++;
                        assertTrue(without.owner(s) != members[lost], "slot " + s + " still on the lost member");
                    }
                    else
                    {
                        assertSame(all.owner(s), without.owner(s), "n=" + n + ": slot " + s + " of a live member moved");
                    }
                }
                assertEquals(all.slotsOf(members[lost]), moved);
                final SteeringTable<String> back = SteeringTable.of(members, keys);
                for (int s = 0; s < SLOTS; s++)
                {
                    assertSame(all.owner(s), back.owner(s), "slot " + s + " did not return");
                }
            }
        }
    }

    @Test
    void ownerDoesNotDependOnTheMembersOrder()
    {
        final SteeringTable<String> forward = SteeringTable.of(names(5), keys(5));
        final String[] reversed = names(5);
        final long[] reversedKeys = keys(5);
        for (int i = 0; i < 5 / 2; i++)
        {
            swap(reversed, i, 4 - i);
            final long k = reversedKeys[i];
            reversedKeys[i] = reversedKeys[4 - i];
            reversedKeys[4 - i] = k;
        }
        final SteeringTable<String> backward = SteeringTable.of(reversed, reversedKeys);
        for (int s = 0; s < SLOTS; s++)
        {
            assertEquals(forward.owner(s), backward.owner(s));
        }
    }

    /**
     * The stated bound: with 1024 slots and 2 to 16 members, each member owns its fair share 1024 / n within four
     * standard deviations of a uniformly random assignment, 4 × √(1024 × (1/n) × (1 − 1/n)) slots (±32 for 2
     * members, ±26 for 4, ±32 × √(15)/16 ≈ ±31 for 16: about ±25 % of the fair share at 8 members).
     */
    @Test
    void spreadOverNMembersIsWithinFourStandardDeviationsOfTheFairShare()
    {
        for (int n = 2; n <= 16; n++)
        {
            final String[] members = names(n);
            final SteeringTable<String> table = SteeringTable.of(members, keys(n));
            final double fair = (double)SLOTS / n;
            final double bound = 4 * Math.sqrt(SLOTS * (1.0 / n) * (1 - 1.0 / n));
            int total = 0;
            for (final String member : members)
            {
                final int owned = table.slotsOf(member);
                total += owned;
                assertTrue(Math.abs(owned - fair) <= bound,
                    "n=" + n + ": " + member + " owns " + owned + " slots, fair share " + fair + " ± " + bound);
            }
            assertEquals(SLOTS, total);
        }
    }

    @Test
    void aFlowHashPicksItsSlotsOwner()
    {
        final String[] members = names(3);
        final SteeringTable<String> table = SteeringTable.of(members, keys(3));
        assertEquals(0, table.slot(0));
        assertEquals(SLOTS - 1, table.slot(-1));
        assertEquals(SLOTS / 2, table.slot(Integer.MIN_VALUE));
        assertSame(table.owner(SLOTS - 1), table.member(-1));
        assertSame(table.owner(SLOTS / 2), table.member(0x8000_0000));
    }

    @Test
    void anEmptyGroupHasNoMember()
    {
        final SteeringTable<String> table = SteeringTable.of(new String[0], new long[0]);
        assertNull(table.member(12345));
        assertEquals(0, table.size());
    }

    @Test
    void refusesBadInputNamingIt()
    {
        assertEquals("steering slots must be a power of two from 1 to 1048576, was 1000",
            assertThrows(IllegalArgumentException.class, () -> SteeringTable.of(names(2), keys(2), 1000))
                .getMessage());
        assertEquals("steering key 7 names two members (0 and 1); keys are unique",
            assertThrows(IllegalArgumentException.class,
                () -> SteeringTable.of(names(2), new long[] {7, 7})).getMessage());
        assertEquals("steering needs one key per member: 2 members, 1 keys",
            assertThrows(IllegalArgumentException.class,
                () -> SteeringTable.of(names(2), new long[] {7})).getMessage());
    }

    @Test
    void lookupsAllocateNothing()
    {
        final String[] members = names(4);
        final SteeringTable<String> table = SteeringTable.of(members, keys(4));
        final AllocationMeter.Measurement measurement = AllocationMeter.measure(operations ->
        {
            long sum = 0;
            int hash = 0x1234_5678;
            for (int i = 0; i < operations; i++)
            {
                hash = hash * 0x0100_0193 + i;
                sum += table.member(hash).length();
            }
            return sum;
        }, 200_000, 1_000_000);
        assertEquals(0, measurement.allocatedBytes(), "bytes allocated by 1,000,000 lookups");
        assertTrue(measurement.result() > 0);
    }

    private static String[] names(final int n)
    {
        final String[] names = new String[n];
        for (int i = 0; i < n; i++)
        {
            names[i] = "member-" + i;
        }
        return names;
    }

    /** Keys as a deployment would make them: a stable number per (node, socket index), not 0..n-1. */
    private static long[] keys(final int n)
    {
        final long[] keys = new long[n];
        for (int i = 0; i < n; i++)
        {
            keys[i] = 1_000_003L * (i + 1) + 17;
        }
        return keys;
    }

    private static String[] remove(final String[] from, final int index)
    {
        final String[] out = Arrays.copyOf(from, from.length - 1);
        System.arraycopy(from, index + 1, out, index, from.length - index - 1);
        return out;
    }

    private static long[] remove(final long[] from, final int index)
    {
        final long[] out = Arrays.copyOf(from, from.length - 1);
        System.arraycopy(from, index + 1, out, index, from.length - index - 1);
        return out;
    }

    private static void swap(final String[] a, final int i, final int j)
    {
        final String t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
