package io.xmit.pipeline.host;

import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * IPv4 to MAC for the next hops of one port, with bounded hold queues for frames whose next hop is being
 * resolved: a fixed-capacity table in parallel arrays, indexed by an open-addressing hash of the address,
 * allocating nothing after construction. Time is always an argument ({@code now}, from {@code System.nanoTime}
 * or a test's clock); the table never reads a clock.
 * <p>
 * The state machine is Linux's neighbour state machine simplified (see {@link NeighbourState}):
 * <pre>
 *   (none) --hold--> INCOMPLETE --request every retrans, maxProbes times--> failed: held frames dropped, entry gone
 *                        |
 *                        +--ARP from it--> REACHABLE (a unicast reply) or STALE (anything else); held frames sent
 *   REACHABLE --reachableNanos after the confirmation--> STALE
 *   STALE --used by lookup--> unicast probes every retrans; a reply makes it REACHABLE, maxProbes without one
 *                             remove it
 * </pre>
 * The owner, single-threaded, drives it: {@link #lookup} for each frame to send, {@link #hold} when that says
 * {@link #MUST_RESOLVE}, {@link #onArp} for each ARP frame received, and {@link #poll} in its duty cycle (it
 * returns at once while nothing is due). Effects come back through the {@link NeighbourHandler}.
 * <p>
 * A full table makes room by evicting the entry confirmed longest ago that is not INCOMPLETE (held frames are
 * never evicted); when all are INCOMPLETE the new entry is refused and counted. Not thread-safe.
 * <p>
 * Over 500 lines on purpose: one state machine over parallel arrays; split, the transitions would be apart from the
 * storage they index.
 */
public final class NeighbourTable
{
    /** {@link #lookup}'s answer when there is no usable MAC: hold the frame. */
    public static final long MUST_RESOLVE = -1;

    private static final byte FREE = 0;
    private static final byte INCOMPLETE = 1;
    private static final byte REACHABLE = 2;
    private static final byte STALE = 3;
    private static final long NEVER = Long.MAX_VALUE;
    private static final int EMPTY_SLOT = 0;

    private final NeighbourHandler handler;
    private final int capacity;
    private final long reachableNanos;
    private final long retransNanos;
    private final int maxProbes;
    private final int holdPerNeighbour;
    private final int maxFrameLength;

    private final int[] ips;
    private final long[] macs;
    private final byte[] states;
    private final long[] confirmedAt;
    private final long[] nextProbeAt;
    private final int[] probes;
    private final int[] holdHead;
    private final int[] holdCount;
    private final int[] holdLengths;
    private final long[] holdTags;
    private final UnsafeBuffer arena;

    private final int[] slots;
    private final int slotMask;
    private final int slotShift;
    private final int[] freeEntries;
    private int freeCount;

    private long nextDeadline = NEVER;
    private final long[] drops = new long[NeighbourDrop.values().length];
    private long heldFrames;
    private long releasedFrames;
    private long solicitations;
    private long failures;
    private long evictions;
    private long refusals;

    public NeighbourTable(final NeighbourConfig config, final NeighbourHandler handler)
    {
        this.handler = handler;
        capacity = config.capacity();
        reachableNanos = config.reachableNanos();
        retransNanos = config.retransNanos();
        maxProbes = config.maxProbes();
        holdPerNeighbour = config.holdPerNeighbour();
        maxFrameLength = config.maxFrameLength();

        ips = new int[capacity];
        macs = new long[capacity];
        states = new byte[capacity];
        confirmedAt = new long[capacity];
        nextProbeAt = new long[capacity];
        probes = new int[capacity];
        holdHead = new int[capacity];
        holdCount = new int[capacity];
        holdLengths = new int[capacity * holdPerNeighbour];
        holdTags = new long[capacity * holdPerNeighbour];
        arena = new UnsafeBuffer(new byte[capacity * holdPerNeighbour * maxFrameLength]);

        // At most half full, so a probe sequence stays short.
        final int slotCount = Integer.highestOneBit(capacity) << 2;
        slots = new int[slotCount];
        slotMask = slotCount - 1;
        slotShift = Integer.SIZE - Integer.numberOfTrailingZeros(slotCount);
        freeEntries = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeEntries[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    /**
     * The MAC to send a frame for next hop {@code ip} to, or {@link #MUST_RESOLVE} when there is none
     * ({@link #hold} the frame). A REACHABLE entry older than {@code reachableNanos} turns STALE here; a STALE
     * entry is still answered with its MAC, and its first use starts unicast re-probing at the next
     * {@link #poll} (Linux waits delay_first_probe_time, 5 s, in DELAY first; this table probes at once).
     * Multicast and broadcast next hops are not resolved by ARP (their MAC follows from the address, RFC 1112
     * §6.4); the caller maps those itself.
     */
    public long lookup(final int ip, final long now)
    {
        final int entry = find(ip);
        if (entry < 0 || INCOMPLETE == states[entry])
        {
            return MUST_RESOLVE;
        }
        ageOut(entry, now);
        if (STALE == states[entry] && NEVER == nextProbeAt[entry])
        {
            probes[entry] = 0;
            schedule(entry, now);
        }
        return macs[entry];
    }

    /**
     * Copies an Ethernet frame bound for next hop {@code ip} into the neighbour's hold queue, creating an
     * INCOMPLETE entry (its first request goes out at the next {@link #poll}) if there is none. A full queue
     * drops its oldest frame ({@link NeighbourDrop#HOLD_FULL}, reported to the handler) to keep this one. When
     * the neighbour resolves, the held frames are sent in order with their destination MAC filled in.
     *
     * @param tag given back with the frame to {@link NeighbourHandler#transmit} or {@link NeighbourHandler#dropped}.
     * @return {@link HoldResult#HELD}, {@link HoldResult#RESOLVED} (nothing copied: the entry is usable), or the
     * counted drop of this frame.
     */
    public HoldResult hold(
        final int ip, final DirectBuffer buffer, final int offset, final int length, final long tag, final long now)
    {
        if (length < EthernetFlyweight.HEADER_LENGTH || length > maxFrameLength)
        {
            drops[NeighbourDrop.BAD_LENGTH.ordinal()]++;
            return HoldResult.DROPPED_BAD_LENGTH;
        }
        int entry = find(ip);
        if (entry >= 0 && INCOMPLETE != states[entry])
        {
            return HoldResult.RESOLVED;
        }
        if (entry < 0)
        {
            entry = allocate(ip);
            if (entry < 0)
            {
                drops[NeighbourDrop.TABLE_FULL.ordinal()]++;
                return HoldResult.DROPPED_TABLE_FULL;
            }
            states[entry] = INCOMPLETE;
            confirmedAt[entry] = now;
            probes[entry] = 0;
            schedule(entry, now);
        }

        if (holdCount[entry] == holdPerNeighbour)
        {
            final int oldest = takeOldest(entry);
            drops[NeighbourDrop.HOLD_FULL.ordinal()]++;
            handler.dropped(holdTags[oldest], NeighbourDrop.HOLD_FULL);
        }
        final int slot = holdSlot(entry, holdCount[entry]);
        arena.putBytes(slot * maxFrameLength, buffer, offset, length);
        holdLengths[slot] = length;
        holdTags[slot] = tag;
        holdCount[entry]++;
        heldFrames++;
        return HoldResult.HELD;
    }

    /**
     * Applies a parsed ARP request or reply (RFC 826 "Packet Reception"): if the sender is in the table its MAC
     * is updated; if it is not and {@code targetIsLocal} (the ARP asks for or answers one of our addresses), it
     * is added. A unicast reply ({@link ArpFrames#confirmsReachability}) makes the entry REACHABLE; any other
     * ARP makes a new, INCOMPLETE or changed entry STALE and leaves a known one as it was. An INCOMPLETE entry
     * that resolves sends its held frames, in order, through {@link NeighbourHandler#transmit}. A sender of
     * 0.0.0.0 (an RFC 5227 probe) teaches nothing. Answering a request is the caller's, with
     * {@link ArpFrames#writeReply}.
     *
     * @param arp a frame {@link ArpFrames#parse} classified as a request or a reply; anything else is ignored.
     * @return how many held frames were released.
     */
    public int onArp(final ArpFrames arp, final boolean targetIsLocal, final long now)
    {
        final int ip = arp.senderIp();
        if (arp.status().isMalformed() || 0 == ip)
        {
            return 0;
        }
        int entry = find(ip);
        if (entry < 0)
        {
            if (!targetIsLocal)
            {
                return 0;
            }
            entry = allocate(ip);
            if (entry < 0)
            {
                return 0;
            }
            states[entry] = STALE;
            macs[entry] = arp.senderMac();
        }

        final boolean wasIncomplete = INCOMPLETE == states[entry];
        final boolean changed = macs[entry] != arp.senderMac();
        macs[entry] = arp.senderMac();
        if (arp.confirmsReachability())
        {
            confirm(entry, REACHABLE, now);
        }
        else if (wasIncomplete || changed || NEVER == confirmedAt[entry])
        {
            confirm(entry, STALE, now);
        }
        return wasIncomplete ? release(entry) : 0;
    }

    /**
     * Does what is due at {@code now}: sends the next request of each entry being resolved or re-probed, and
     * fails those that have sent {@code maxProbes} and waited {@code retransNanos} after the last (INCOMPLETE
     * entries drop their held frames under {@link NeighbourDrop#UNRESOLVED}). Returns at once when nothing is
     * due, so it can run on every duty cycle.
     *
     * @return how many requests and failures it reported.
     */
    public int poll(final long now)
    {
        if (now < nextDeadline)
        {
            return 0;
        }
        nextDeadline = NEVER;
        int work = 0;
        long next = NEVER;
        for (int entry = 0; entry < capacity; entry++)
        {
            final long due = nextProbeAt[entry];
            if (FREE == states[entry] || NEVER == due)
            {
                continue;
            }
            if (now >= due)
            {
                work++;
                if (probes[entry] < maxProbes)
                {
                    probes[entry]++;
                    nextProbeAt[entry] = now + retransNanos;
                    solicitations++;
                    handler.solicit(
                        ips[entry], INCOMPLETE == states[entry] ? EthernetFlyweight.BROADCAST_MAC : macs[entry]);
                }
                else
                {
                    fail(entry);
                    continue;
                }
            }
            next = Math.min(next, nextProbeAt[entry]);
        }
        // The handler may have created entries (through hold) whose deadline is already in nextDeadline.
        nextDeadline = Math.min(nextDeadline, next);
        return work;
    }

    /** The state of the entry for {@code ip} at {@code now}. */
    public NeighbourState state(final int ip, final long now)
    {
        final int entry = find(ip);
        if (entry < 0)
        {
            return NeighbourState.NONE;
        }
        ageOut(entry, now);
        return switch (states[entry])
        {
            case INCOMPLETE -> NeighbourState.INCOMPLETE;
            case REACHABLE -> NeighbourState.REACHABLE;
            default -> NeighbourState.STALE;
        };
    }

    /** How many frames the entry for {@code ip} holds. */
    public int heldFor(final int ip)
    {
        final int entry = find(ip);
        return entry < 0 ? 0 : holdCount[entry];
    }

    /** How many entries the table has. */
    public int size()
    {
        return capacity - freeCount;
    }

    public int capacity()
    {
        return capacity;
    }

    /** Frames dropped for {@code reason}, counter {@link NeighbourDrop#counterName()}. */
    public long drops(final NeighbourDrop reason)
    {
        return drops[reason.ordinal()];
    }

    /** neigh_drop_hold_full: held frames pushed out of a full hold queue by newer ones. */
    public long holdFullDrops()
    {
        return drops[NeighbourDrop.HOLD_FULL.ordinal()];
    }

    /** neigh_drop_unresolved: held frames dropped because their neighbour never answered. */
    public long unresolvedDrops()
    {
        return drops[NeighbourDrop.UNRESOLVED.ordinal()];
    }

    /** neigh_drop_table_full: frames not held because no entry could be made for their next hop. */
    public long tableFullDrops()
    {
        return drops[NeighbourDrop.TABLE_FULL.ordinal()];
    }

    /** neigh_drop_bad_length: frames not held because they do not fit a hold slot. */
    public long badLengthDrops()
    {
        return drops[NeighbourDrop.BAD_LENGTH.ordinal()];
    }

    /** Frames copied into hold queues. */
    public long heldFrames()
    {
        return heldFrames;
    }

    /** Held frames handed to {@link NeighbourHandler#transmit}. */
    public long releasedFrames()
    {
        return releasedFrames;
    }

    /** ARP requests asked for through {@link NeighbourHandler#solicit}. */
    public long solicitations()
    {
        return solicitations;
    }

    /** Resolutions and re-probes that ran out of probes. */
    public long failures()
    {
        return failures;
    }

    /** Entries removed to make room for another. */
    public long evictions()
    {
        return evictions;
    }

    /** Entries not made because the table was full of INCOMPLETE entries (from hold or from ARP). */
    public long refusals()
    {
        return refusals;
    }

    private void ageOut(final int entry, final long now)
    {
        if (REACHABLE == states[entry] && now - confirmedAt[entry] >= reachableNanos)
        {
            states[entry] = STALE;
        }
    }

    private void confirm(final int entry, final byte state, final long now)
    {
        states[entry] = state;
        confirmedAt[entry] = now;
        nextProbeAt[entry] = NEVER;
        probes[entry] = 0;
    }

    private void schedule(final int entry, final long at)
    {
        nextProbeAt[entry] = at;
        nextDeadline = Math.min(nextDeadline, at);
    }

    private int release(final int entry)
    {
        final int count = holdCount[entry];
        final long mac = macs[entry];
        while (holdCount[entry] > 0)
        {
            final int slot = takeOldest(entry);
            final int frameOffset = slot * maxFrameLength;
            EthernetFlyweight.putMac(arena, frameOffset + EthernetFlyweight.DESTINATION_OFFSET, mac);
            releasedFrames++;
            handler.transmit(arena, frameOffset, holdLengths[slot], holdTags[slot]);
        }
        return count;
    }

    /**
     * Takes the oldest frame held for {@code entry} off its queue before the handler hears of it, so that a handler
     * that throws leaves the frames after it held (and told of later), none told twice and none forgotten. Its bytes
     * stay in place until a later hold reuses the slot.
     *
     * @return the frame's slot.
     */
    private int takeOldest(final int entry)
    {
        final int slot = holdSlot(entry, 0);
        holdHead[entry] = (holdHead[entry] + 1) % holdPerNeighbour;
        holdCount[entry]--;
        return slot;
    }

    /**
     * Drops every frame held for resolution, counting each under {@code reason} and telling the handler, in the
     * order they were held per neighbour; the entries stay (INCOMPLETE ones go on resolving if asked to).
     *
     * @return how many frames were dropped.
     */
    public int dropAllHeld(final NeighbourDrop reason)
    {
        int dropped = 0;
        for (int entry = 0; entry < holdCount.length; entry++)
        {
            while (holdCount[entry] > 0)
            {
                final int slot = takeOldest(entry);
                drops[reason.ordinal()]++;
                dropped++;
                handler.dropped(holdTags[slot], reason);
            }
        }
        return dropped;
    }

    private void fail(final int entry)
    {
        final int ip = ips[entry];
        failures++;
        while (holdCount[entry] > 0)
        {
            final int slot = takeOldest(entry);
            drops[NeighbourDrop.UNRESOLVED.ordinal()]++;
            handler.dropped(holdTags[slot], NeighbourDrop.UNRESOLVED);
        }
        remove(entry);
        handler.failed(ip);
    }

    private int holdSlot(final int entry, final int index)
    {
        return entry * holdPerNeighbour + (holdHead[entry] + index) % holdPerNeighbour;
    }

    private int allocate(final int ip)
    {
        if (0 == freeCount && !evictOldest())
        {
            refusals++;
            return -1;
        }
        final int entry = freeEntries[--freeCount];
        ips[entry] = ip;
        macs[entry] = 0;
        confirmedAt[entry] = NEVER;
        nextProbeAt[entry] = NEVER;
        probes[entry] = 0;
        holdHead[entry] = 0;
        holdCount[entry] = 0;
        int slot = home(ip);
        while (EMPTY_SLOT != slots[slot])
        {
            slot = (slot + 1) & slotMask;
        }
        slots[slot] = entry + 1;
        return entry;
    }

    private boolean evictOldest()
    {
        int oldest = -1;
        for (int entry = 0; entry < capacity; entry++)
        {
            if (FREE != states[entry] && INCOMPLETE != states[entry] &&
                (oldest < 0 || confirmedAt[entry] - confirmedAt[oldest] < 0))
            {
                oldest = entry;
            }
        }
        if (oldest < 0)
        {
            return false;
        }
        evictions++;
        remove(oldest);
        return true;
    }

    private int find(final int ip)
    {
        int slot = home(ip);
        int value;
        while (EMPTY_SLOT != (value = slots[slot]))
        {
            if (ips[value - 1] == ip)
            {
                return value - 1;
            }
            slot = (slot + 1) & slotMask;
        }
        return -1;
    }

    /** Removes the entry and closes the gap in its probe sequence (backward-shift deletion, no tombstones). */
    private void remove(final int entry)
    {
        int gap = home(ips[entry]);
        while (slots[gap] != entry + 1)
        {
            gap = (gap + 1) & slotMask;
        }
        int slot = gap;
        while (true)
        {
            slot = (slot + 1) & slotMask;
            final int value = slots[slot];
            if (EMPTY_SLOT == value)
            {
                break;
            }
            final int home = home(ips[value - 1]);
            // Move the value back into the gap unless its home lies cyclically in (gap, slot].
            final boolean staysPut = gap <= slot ? (gap < home && home <= slot) : (gap < home || home <= slot);
            if (!staysPut)
            {
                slots[gap] = value;
                gap = slot;
            }
        }
        slots[gap] = EMPTY_SLOT;
        states[entry] = FREE;
        nextProbeAt[entry] = NEVER;
        holdCount[entry] = 0;
        freeEntries[freeCount++] = entry;
    }

    private int home(final int ip)
    {
        return (ip * 0x9E37_79B9) >>> slotShift;
    }
}
