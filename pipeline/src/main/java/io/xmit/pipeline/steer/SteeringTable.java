package io.xmit.pipeline.steer;

import java.util.Arrays;

/**
 * Which member of a group takes a flow: rendezvous (highest-random-weight) hashing, precomputed. Slot {@code s} of
 * {@link #slots()} belongs to the member {@code i} with the highest weight {@code w(s, key_i)}; a frame's flow hash
 * picks the slot, so a lookup ({@link #member}) is one array read and allocates nothing.
 * <p>
 * Unlike the kernel's {@code reciprocal_scale(hash, n)} over a reuseport group, which moves nearly every flow when a
 * member leaves, a slot's owner depends only on the live members' keys: removing a member moves exactly its slots
 * (each to the member with the next-highest weight there), and adding it back returns exactly those slots to it.
 * Keys must therefore name a member stably (across its leaving and coming back), not by its place in a list.
 * <p>
 * Immutable: a membership change builds a new table ({@link #of}) off the hot path, published to readers by one
 * volatile write, as the socket table and the queue map are.
 *
 * @param <T> the members.
 */
public final class SteeringTable<T>
{
    /** The slot count when none is given: 1024 slots keep each member within a few per cent of its fair share. */
    public static final int DEFAULT_SLOTS = 1024;
    public static final int MAX_SLOTS = 1 << 20;

    private final Object[] bySlot;
    private final Object[] members;
    private final long[] keys;

    private SteeringTable(final Object[] bySlot, final Object[] members, final long[] keys)
    {
        this.bySlot = bySlot;
        this.members = members;
        this.keys = keys;
    }

    /**
     * Builds the table of {@code members}, each named by the key at the same index.
     *
     * @param slots a power of two from 1 to {@link #MAX_SLOTS}.
     * @throws IllegalArgumentException if the lengths differ, a member is null, two keys are equal, or
     *                                  {@code slots} is not allowed; naming the value.
     */
    public static <T> SteeringTable<T> of(final T[] members, final long[] keys, final int slots)
    {
        if (slots < 1 || slots > MAX_SLOTS || Integer.bitCount(slots) != 1)
        {
            throw new IllegalArgumentException(
                "steering slots must be a power of two from 1 to " + MAX_SLOTS + ", was " + slots);
        }
        if (members.length != keys.length)
        {
            throw new IllegalArgumentException(
                "steering needs one key per member: " + members.length + " members, " + keys.length + " keys");
        }
        for (int i = 0; i < members.length; i++)
        {
            if (null == members[i])
            {
                throw new IllegalArgumentException("steering member " + i + " is null");
            }
            for (int j = 0; j < i; j++)
            {
                if (keys[i] == keys[j])
                {
                    throw new IllegalArgumentException(
                        "steering key " + keys[i] + " names two members (" + j + " and " + i + "); keys are unique");
                }
            }
        }
        final Object[] bySlot = new Object[members.length == 0 ? 1 : slots];
        if (members.length > 0)
        {
            for (int s = 0; s < slots; s++)
            {
                bySlot[s] = members[highestWeight(s, keys)];
            }
        }
        return new SteeringTable<>(bySlot, members.clone(), keys.clone());
    }

    /** {@link #of(Object[], long[], int)} with {@link #DEFAULT_SLOTS}. */
    public static <T> SteeringTable<T> of(final T[] members, final long[] keys)
    {
        return of(members, keys, DEFAULT_SLOTS);
    }

    /**
     * The member that takes a frame with {@code flowHash}, or null if the group has no member.
     * One array read: the slot is the hash scaled to the slot count ({@code reciprocal_scale}).
     */
    @SuppressWarnings("unchecked")
    public T member(final int flowHash)
    {
        return (T)bySlot[slot(flowHash)];
    }

    /** The slot a flow hash falls in: its top bits, since a flow hash's low bits also pick the RX queue (RSS). */
    public int slot(final int flowHash)
    {
        return (int)(((flowHash & 0xFFFF_FFFFL) * bySlot.length) >>> 32);
    }

    /** The owner of slot {@code slot}, or null in a table without members. */
    @SuppressWarnings("unchecked")
    public T owner(final int slot)
    {
        return (T)bySlot[slot];
    }

    public int slots()
    {
        return bySlot.length;
    }

    public int size()
    {
        return members.length;
    }

    /** How many slots {@code member} owns (by identity). */
    public int slotsOf(final T member)
    {
        int owned = 0;
        for (final Object owner : bySlot)
        {
            if (owner == member)
            {
                owned++;
            }
        }
        return owned;
    }

    /**
     * The rendezvous weight of member {@code key} at slot {@code slot}: a 64-bit mix (the splitmix64 finaliser) of
     * both, so that each slot ranks the members independently of the others.
     */
    static long weight(final int slot, final long key)
    {
        long z = key * 0x9E37_79B9_7F4A_7C15L + slot * 0xC2B2_AE3D_27D4_EB4FL;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    private static int highestWeight(final int slot, final long[] keys)
    {
        int best = 0;
        long bestWeight = weight(slot, keys[0]);
        for (int i = 1; i < keys.length; i++)
        {
            final long w = weight(slot, keys[i]);
            // Ties (astronomically rare) go to the smaller key, so the owner never depends on the members' order.
            if (w > bestWeight || (w == bestWeight && keys[i] < keys[best]))
            {
                best = i;
                bestWeight = w;
            }
        }
        return best;
    }

    @Override
    public String toString()
    {
        return "SteeringTable{slots=" + bySlot.length + ", keys=" + Arrays.toString(keys) + "}";
    }
}
