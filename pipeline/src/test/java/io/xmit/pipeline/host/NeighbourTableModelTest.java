package io.xmit.pipeline.host;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import io.xmit.pipeline.frame.ArpFlyweight;
import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The neighbour table against a plain map model over 50,000 seeded random operations on 20 addresses and 8
 * entries, so that the open-addressing index sees collisions, evictions and backward-shift deletions. Entries
 * never age (reachableNanos is huge); one probe, so each "expire" step fails every INCOMPLETE entry.
 */
class NeighbourTableModelTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", 0x2E16_4B0DL);
    private static final int CAPACITY = 8;
    private static final long RETRANS = 10;
    private static final int ADDRESSES = 20;
    private static final int OPERATIONS = 50_000;

    /** What the model knows of one neighbour. */
    private record Entry(boolean incomplete, long confirmedAt)
    {
    }

    private final Random random = new Random(SEED);
    private final RecordingHandler handler = new RecordingHandler();
    private final NeighbourTable table = new NeighbourTable(
        new NeighbourConfig(CAPACITY, Long.MAX_VALUE / 4, RETRANS, 1, 2, 64), handler);
    private final Map<Integer, Entry> model = new HashMap<>();
    private final int[] addresses = new int[ADDRESSES];
    private final ArpFrames arp = new ArpFrames();
    private final UnsafeBuffer arpBuffer = new UnsafeBuffer(new byte[ArpFrames.FRAME_LENGTH]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);

    private long now = 1_000;

    @Test
    void agreesWithAMapModelOverRandomHoldsRepliesAndFailures()
    {
        for (int i = 0; i < ADDRESSES; i++)
        {
            // Unicast addresses in 10.0.0.0/8: ARP from a multicast or broadcast sender is refused before the table.
            addresses[i] = 0x0A00_0000 | random.nextInt(1 << 24);
        }
        final String context = "seed 0x" + Long.toHexString(SEED) + " (-Dtest.fuzz.seed=" + SEED + ")";
        for (int op = 0; op < OPERATIONS; op++)
        {
            now++;
            final int ip = addresses[random.nextInt(ADDRESSES)];
            final int choice = random.nextInt(10);
            if (choice < 5)
            {
                assertEquals(modelHold(ip), table.hold(ip, frame, 0, 60, op, now), context + " op " + op);
            }
            else if (choice < 9)
            {
                modelReply(ip);
                table.onArp(reply(ip), true, now);
            }
            else
            {
                model.values().removeIf(Entry::incomplete);
                table.poll(now);
                now += RETRANS;
                table.poll(now);
            }
            handler.events.clear();
            assertEquals(model.size(), table.size(), context + " op " + op);
            for (final int address : addresses)
            {
                final Entry entry = model.get(address);
                final NeighbourState expected = null == entry ? NeighbourState.NONE :
                    entry.incomplete() ? NeighbourState.INCOMPLETE : NeighbourState.REACHABLE;
                assertEquals(expected, table.state(address, now), context + " op " + op);
                if (null != entry && !entry.incomplete())
                {
                    assertEquals(macOf(address), table.lookup(address, now), context + " op " + op);
                }
            }
        }
        assertTrue(table.evictions() > 0 && table.refusals() > 0 && table.failures() > 0,
            context + ": evictions " + table.evictions() + ", refusals " + table.refusals() + ", failures " +
            table.failures());
    }

    private HoldResult modelHold(final int ip)
    {
        final Entry entry = model.get(ip);
        if (null != entry)
        {
            return entry.incomplete() ? HoldResult.HELD : HoldResult.RESOLVED;
        }
        if (!makeRoom())
        {
            return HoldResult.DROPPED_TABLE_FULL;
        }
        model.put(ip, new Entry(true, now));
        return HoldResult.HELD;
    }

    private void modelReply(final int ip)
    {
        if (model.containsKey(ip) || makeRoom())
        {
            model.put(ip, new Entry(false, now));
        }
    }

    /** Evicts the resolved entry confirmed longest ago when the table is full; false when none can go. */
    private boolean makeRoom()
    {
        if (model.size() < CAPACITY)
        {
            return true;
        }
        Integer oldest = null;
        for (final Map.Entry<Integer, Entry> e : model.entrySet())
        {
            if (!e.getValue().incomplete() &&
                (null == oldest || e.getValue().confirmedAt() < model.get(oldest).confirmedAt()))
            {
                oldest = e.getKey();
            }
        }
        if (null == oldest)
        {
            return false;
        }
        model.remove(oldest);
        return true;
    }

    private ArpFrames reply(final int ip)
    {
        new EthernetFlyweight().wrap(arpBuffer, 0)
            .destination(HostFrames.OUR_MAC)
            .source(macOf(ip))
            .ethertype(EthernetFlyweight.ETHERTYPE_ARP);
        new ArpFlyweight().wrap(arpBuffer, EthernetFlyweight.HEADER_LENGTH)
            .ethernetIpv4()
            .operation(ArpFlyweight.OPERATION_REPLY)
            .sender(macOf(ip), ip)
            .target(HostFrames.OUR_MAC, HostFrames.OUR_IP);
        arp.parse(arpBuffer, 0, ArpFrames.FRAME_LENGTH);
        return arp;
    }

    private static long macOf(final int ip)
    {
        return 0x0200_0000_0000L | (ip & 0xFFFF_FFFFL);
    }
}
