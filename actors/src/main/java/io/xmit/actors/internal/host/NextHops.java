package io.xmit.actors.internal.host;

import io.xmit.pipeline.host.NeighbourTable;

/**
 * The resolved IPv4 next hops of one port, as its host actor last published them: an immutable open-addressing
 * table IPv4 → MAC that senders on any thread read through one volatile load ({@link HostPath#nextHops()}), without
 * allocating or locking. The host actor owns the {@link NeighbourTable} and publishes a new snapshot when a
 * neighbour is learned, changes its MAC or goes away.
 * <p>
 * Each entry has a use mark that a sender sets when it sends to it (a plain store, only when it is clear, so senders
 * share the line read-mostly): the host actor collects the marks and tells its table which stale neighbours are in
 * use, so those are re-probed, as the kernel's neighbour state machine re-confirms an entry only when it is used.
 */
final class NextHops
{
    static final NextHops EMPTY = new NextHops(new int[0], new long[0]);

    private static final int EMPTY_SLOT = 0;

    private final int[] ips;
    private final long[] macs;
    private final byte[] used;
    private final int mask;
    private final int shift;

    /** {@code ips[i]} → {@code macs[i]}; no IP is 0 (an ARP sender of 0.0.0.0 teaches nothing). */
    NextHops(final int[] ips, final long[] macs)
    {
        // At most half full, so a probe sequence stays short.
        int slots = 16;
        while (slots < ips.length * 2)
        {
            slots <<= 1;
        }
        this.ips = new int[slots];
        this.macs = new long[slots];
        this.used = new byte[slots];
        mask = slots - 1;
        shift = Integer.SIZE - Integer.numberOfTrailingZeros(slots);
        for (int i = 0; i < ips.length; i++)
        {
            int slot = home(ips[i]);
            while (EMPTY_SLOT != this.ips[slot])
            {
                slot = (slot + 1) & mask;
            }
            this.ips[slot] = ips[i];
            this.macs[slot] = macs[i];
        }
    }

    /** The MAC of next hop {@code ip}, marking it used, or {@link HostPath#UNRESOLVED}. */
    long lookup(final int ip)
    {
        int slot = home(ip);
        int candidate;
        while (EMPTY_SLOT != (candidate = ips[slot]))
        {
            if (candidate == ip)
            {
                if (0 == used[slot])
                {
                    used[slot] = 1;
                }
                return macs[slot];
            }
            slot = (slot + 1) & mask;
        }
        return HostPath.UNRESOLVED;
    }

    /** Slots, for the host actor's scan of the use marks. */
    int slots()
    {
        return ips.length;
    }

    /** The IP in {@code slot}, 0 for none. */
    int ipAt(final int slot)
    {
        return ips[slot];
    }

    /** True if a sender used {@code slot} since the last call; clears the mark. */
    boolean takeUse(final int slot)
    {
        if (0 == used[slot])
        {
            return false;
        }
        used[slot] = 0;
        return true;
    }

    private int home(final int ip)
    {
        return (ip * 0x9E37_79B9) >>> shift;
    }
}
