package io.xmit.pipeline.host;

import java.util.Arrays;
import java.util.List;

import io.xmit.pipeline.frame.ArpFlyweight;
import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.xmit.pipeline.host.HostFrames.OUR_IP;
import static io.xmit.pipeline.host.HostFrames.OUR_MAC;
import static io.xmit.pipeline.host.HostFrames.PEER_IP;
import static io.xmit.pipeline.host.HostFrames.PEER_MAC;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The neighbour state machine with a hand-stepped clock: time is whatever the test passes as {@code now}.
 * Timers: REACHABLE for 1000, requests every 100, 3 probes; 3 frames held per neighbour, 4 neighbours.
 */
class NeighbourTableTest
{
    private static final long REACHABLE = 1000;
    private static final long RETRANS = 100;
    private static final int MAX_FRAME = 128;
    private static final int OTHER_IP = 0x0A00_0003;
    private static final long OTHER_MAC = 0x0200_0000_0003L;
    private static final String BROADCAST = "ffffffffffff";

    private final RecordingHandler handler = new RecordingHandler();
    private final NeighbourTable table =
        new NeighbourTable(new NeighbourConfig(4, REACHABLE, RETRANS, 3, 3, MAX_FRAME), handler);
    private final ArpFrames arp = new ArpFrames();
    private final UnsafeBuffer arpBuffer = new UnsafeBuffer(new byte[ArpFrames.FRAME_LENGTH]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[MAX_FRAME + 1]);

    /** Parses an ARP frame from {@code senderMac}/{@code senderIp} to {@code ethernetDestination}. */
    private ArpFrames arp(
        final int operation,
        final long senderMac,
        final int senderIp,
        final int targetIp,
        final long ethernetDestination)
    {
        new EthernetFlyweight().wrap(arpBuffer, 0)
            .destination(ethernetDestination)
            .source(senderMac)
            .ethertype(EthernetFlyweight.ETHERTYPE_ARP);
        new ArpFlyweight().wrap(arpBuffer, EthernetFlyweight.HEADER_LENGTH)
            .ethernetIpv4()
            .operation(operation)
            .sender(senderMac, senderIp)
            .target(ArpFlyweight.OPERATION_REPLY == operation ? OUR_MAC : 0L, targetIp);
        arp.parse(arpBuffer, 0, ArpFrames.FRAME_LENGTH);
        return arp;
    }

    /** The peer's unicast reply to our request: confirms it REACHABLE. */
    private int peerReplies(final long now)
    {
        return table.onArp(arp(ArpFlyweight.OPERATION_REPLY, PEER_MAC, PEER_IP, OUR_IP, OUR_MAC), true, now);
    }

    /** A 60-byte frame whose bytes after the destination MAC all carry {@code tag}. */
    private HoldResult holdFrame(final int ip, final int tag, final long now)
    {
        frame.setMemory(0, 60, (byte)tag);
        return table.hold(ip, frame, 0, 60, tag, now);
    }

    @Test
    void anUnknownNeighbourMustBeResolvedAndHoldingAFrameStartsResolution()
    {
        assertEquals(NeighbourTable.MUST_RESOLVE, table.lookup(PEER_IP, 0));
        assertEquals(NeighbourState.NONE, table.state(PEER_IP, 0));

        assertEquals(HoldResult.HELD, holdFrame(PEER_IP, 1, 0));

        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER_IP, 0));
        assertEquals(NeighbourTable.MUST_RESOLVE, table.lookup(PEER_IP, 0));
        assertEquals(1, table.heldFor(PEER_IP));
        assertEquals(1, table.poll(0));
        assertEquals(List.of("solicit 10.0.0.2 to " + BROADCAST), handler.take());
        assertEquals(0, table.poll(RETRANS - 1));
        assertEquals(List.of(), handler.take());
    }

    @Test
    void aReplyReleasesTheHeldFramesInOrderWithTheResolvedMacRfc826()
    {
        holdFrame(PEER_IP, 1, 0);
        holdFrame(PEER_IP, 2, 10);
        holdFrame(PEER_IP, 3, 20);
        table.poll(20);
        handler.take();

        assertEquals(3, peerReplies(50));

        assertEquals(List.of("transmit 1 to 20000000002", "transmit 2 to 20000000002", "transmit 3 to 20000000002"),
            handler.take());
        for (int i = 0; i < 3; i++)
        {
            final byte[] expected = new byte[60];
            Arrays.fill(expected, (byte)(i + 1));
            EthernetFlyweight.putMac(new UnsafeBuffer(expected), 0, PEER_MAC);
            assertArrayEquals(expected, handler.transmitted.get(i), "frame " + (i + 1));
        }
        assertEquals(NeighbourState.REACHABLE, table.state(PEER_IP, 50));
        assertEquals(PEER_MAC, table.lookup(PEER_IP, 50));
        assertEquals(0, table.heldFor(PEER_IP));
        assertEquals(3, table.heldFrames());
        assertEquals(3, table.releasedFrames());
        assertEquals(0, table.poll(10_000), "a confirmed entry sends no more requests");
    }

    /** An owner that throws on one frame: the frames after it stay held, and none is told of twice or forgotten. */
    @Test
    void aHandlerThatThrowsLeavesTheFramesAfterItHeld()
    {
        holdFrame(PEER_IP, 1, 0);
        holdFrame(PEER_IP, 2, 10);
        holdFrame(PEER_IP, 3, 20);
        table.poll(20);
        handler.take();
        handler.failNextTransmit = true;

        assertThrows(IllegalStateException.class, () -> peerReplies(50));

        assertEquals(List.of("transmit 1 to 20000000002"), handler.take());
        assertEquals(2, table.heldFor(PEER_IP));
        assertEquals(2, table.dropAllHeld(NeighbourDrop.SHUTDOWN));
        assertEquals(List.of("dropped 2 neigh_drop_shutdown", "dropped 3 neigh_drop_shutdown"), handler.take());
    }

    @Test
    void aStopDropsEveryHeldFrameCountedAndLeavesTheEntries()
    {
        holdFrame(PEER_IP, 1, 0);
        holdFrame(PEER_IP, 2, 10);
        holdFrame(OTHER_IP, 3, 20);
        handler.take();

        assertEquals(3, table.dropAllHeld(NeighbourDrop.SHUTDOWN));

        assertEquals(List.of("dropped 1 neigh_drop_shutdown", "dropped 2 neigh_drop_shutdown",
            "dropped 3 neigh_drop_shutdown"), handler.take());
        assertEquals(3, table.drops(NeighbourDrop.SHUTDOWN));
        assertEquals(0, table.heldFor(PEER_IP));
        assertEquals(0, table.heldFor(OTHER_IP));
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER_IP, 30), "the entries stay");
        assertEquals(0, table.dropAllHeld(NeighbourDrop.SHUTDOWN), "nothing is dropped twice");
    }

    @Test
    void anIncompleteEntryRetransmitsEveryRetransThenFailsAndDropsWhatItHolds()
    {
        holdFrame(PEER_IP, 1, 0);
        holdFrame(PEER_IP, 2, 0);

        assertEquals(1, table.poll(0));
        assertEquals(0, table.poll(99));
        assertEquals(1, table.poll(100));
        assertEquals(0, table.poll(150));
        assertEquals(1, table.poll(200));
        assertEquals(List.of("solicit 10.0.0.2 to " + BROADCAST, "solicit 10.0.0.2 to " + BROADCAST,
            "solicit 10.0.0.2 to " + BROADCAST), handler.take());
        assertEquals(0, table.poll(299));

        assertEquals(1, table.poll(300));

        assertEquals(List.of("dropped 1 neigh_drop_unresolved", "dropped 2 neigh_drop_unresolved", "failed 10.0.0.2"),
            handler.take());
        assertEquals(NeighbourState.NONE, table.state(PEER_IP, 300));
        assertEquals(2, table.unresolvedDrops());
        assertEquals(2, table.drops(NeighbourDrop.UNRESOLVED));
        assertEquals(1, table.failures());
        assertEquals(3, table.solicitations());
        assertEquals(0, table.size());
        assertEquals(0, table.poll(1_000_000));
    }

    @Test
    void aFullHoldQueueDropsItsOldestFrameLikeUnresQlen()
    {
        for (int tag = 1; tag <= 5; tag++)
        {
            assertEquals(HoldResult.HELD, holdFrame(PEER_IP, tag, tag));
        }
        assertEquals(List.of("dropped 1 neigh_drop_hold_full", "dropped 2 neigh_drop_hold_full"), handler.take());
        assertEquals(3, table.heldFor(PEER_IP));
        assertEquals(2, table.holdFullDrops());

        peerReplies(10);

        assertEquals(List.of("transmit 3 to 20000000002", "transmit 4 to 20000000002", "transmit 5 to 20000000002"),
            handler.take());
        assertEquals(5, table.heldFrames());
        assertEquals(3, table.releasedFrames());
    }

    @Test
    void aReachableEntryTurnsStaleAfterReachableNanosAndIsReprobedByUnicastWhenUsed()
    {
        holdFrame(PEER_IP, 1, 0);
        table.poll(0);
        peerReplies(0);
        handler.take();

        assertEquals(PEER_MAC, table.lookup(PEER_IP, REACHABLE - 1));
        assertEquals(NeighbourState.REACHABLE, table.state(PEER_IP, REACHABLE - 1));
        assertEquals(0, table.poll(REACHABLE - 1));

        assertEquals(PEER_MAC, table.lookup(PEER_IP, REACHABLE), "a stale entry is still used");
        assertEquals(NeighbourState.STALE, table.state(PEER_IP, REACHABLE));
        assertEquals(1, table.poll(REACHABLE));
        assertEquals(List.of("solicit 10.0.0.2 to 20000000002"), handler.take());

        peerReplies(REACHABLE + 50);

        assertEquals(NeighbourState.REACHABLE, table.state(PEER_IP, REACHABLE + 50));
        assertEquals(0, table.poll(REACHABLE + 10 * RETRANS));
        assertEquals(List.of(), handler.take());
    }

    @Test
    void aStaleEntryThatNeverAnswersItsProbesIsRemoved()
    {
        holdFrame(PEER_IP, 1, 0);
        table.poll(0);
        peerReplies(0);
        handler.take();
        table.lookup(PEER_IP, REACHABLE);

        table.poll(REACHABLE);
        table.poll(REACHABLE + RETRANS);
        table.poll(REACHABLE + 2 * RETRANS);
        assertEquals(PEER_MAC, table.lookup(PEER_IP, REACHABLE + 2 * RETRANS), "used while probed");
        table.poll(REACHABLE + 3 * RETRANS);

        assertEquals(List.of("solicit 10.0.0.2 to 20000000002", "solicit 10.0.0.2 to 20000000002",
            "solicit 10.0.0.2 to 20000000002", "failed 10.0.0.2"), handler.take());
        assertEquals(NeighbourTable.MUST_RESOLVE, table.lookup(PEER_IP, REACHABLE + 3 * RETRANS));
        assertEquals(1, table.failures());
        assertEquals(0, table.unresolvedDrops());
    }

    @Test
    void learnsTheSenderOfARequestForUsAsStaleButNotOfARequestForAnotherHostRfc826Merge()
    {
        assertEquals(0, table.onArp(
            arp(ArpFlyweight.OPERATION_REQUEST, OTHER_MAC, OTHER_IP, PEER_IP, EthernetFlyweight.BROADCAST_MAC),
            false, 0));
        assertEquals(NeighbourState.NONE, table.state(OTHER_IP, 0));

        table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, PEER_MAC, PEER_IP, OUR_IP, EthernetFlyweight.BROADCAST_MAC),
            true, 0);

        assertEquals(NeighbourState.STALE, table.state(PEER_IP, 0));
        assertEquals(PEER_MAC, table.lookup(PEER_IP, 0));
    }

    @Test
    void aGratuitousArpUpdatesAKnownNeighboursMacEvenWhenNotForUsRfc826Merge()
    {
        holdFrame(PEER_IP, 1, 0);
        peerReplies(0);
        handler.take();
        final long newMac = 0x0200_0000_0042L;

        table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, newMac, PEER_IP, PEER_IP, EthernetFlyweight.BROADCAST_MAC),
            false, 10);

        assertEquals(newMac, table.lookup(PEER_IP, 10));
        assertEquals(NeighbourState.STALE, table.state(PEER_IP, 10), "a changed MAC is unconfirmed");
    }

    @Test
    void aRequestWithTheSameMacLeavesAReachableEntryAsItIs()
    {
        holdFrame(PEER_IP, 1, 0);
        peerReplies(0);

        table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, PEER_MAC, PEER_IP, OUR_IP, EthernetFlyweight.BROADCAST_MAC),
            true, 500);

        assertEquals(NeighbourState.REACHABLE, table.state(PEER_IP, REACHABLE - 1), "confirmation time unchanged");
        assertEquals(NeighbourState.STALE, table.state(PEER_IP, REACHABLE));
    }

    @Test
    void aRequestFromTheNeighbourBeingResolvedReleasesItsFramesAsStale()
    {
        holdFrame(PEER_IP, 7, 0);
        table.poll(0);
        handler.take();

        assertEquals(1, table.onArp(
            arp(ArpFlyweight.OPERATION_REQUEST, PEER_MAC, PEER_IP, OUR_IP, EthernetFlyweight.BROADCAST_MAC), true, 5));

        assertEquals(List.of("transmit 7 to 20000000002"), handler.take());
        assertEquals(NeighbourState.STALE, table.state(PEER_IP, 5));
        assertEquals(0, table.poll(RETRANS), "no more broadcasts once the MAC is known");
    }

    @Test
    void anArpProbeFromTheUnspecifiedAddressTeachesNothingRfc5227()
    {
        table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, PEER_MAC, 0, OUR_IP, EthernetFlyweight.BROADCAST_MAC),
            true, 0);

        assertEquals(0, table.size());
    }

    @Test
    void holdingForAResolvedNeighbourCopiesNothing()
    {
        holdFrame(PEER_IP, 1, 0);
        peerReplies(0);

        assertEquals(HoldResult.RESOLVED, holdFrame(PEER_IP, 2, 1));

        assertEquals(1, table.heldFrames());
    }

    @Test
    void framesThatDoNotFitAHoldSlotAreDroppedAndCounted()
    {
        assertEquals(HoldResult.DROPPED_BAD_LENGTH, table.hold(PEER_IP, frame, 0, MAX_FRAME + 1, 1, 0));
        assertEquals(HoldResult.DROPPED_BAD_LENGTH, table.hold(PEER_IP, frame, 0, 13, 2, 0));
        assertEquals(HoldResult.HELD, table.hold(PEER_IP, frame, 0, MAX_FRAME, 3, 0));

        assertEquals(2, table.badLengthDrops());
        assertEquals(1, table.size());
    }

    @Test
    void aFullTableEvictsTheEntryConfirmedLongestAgo()
    {
        for (int i = 0; i < 4; i++)
        {
            final int ip = 0x0A00_0010 + i;
            table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, 0x0200_0000_0010L + i, ip, OUR_IP,
                EthernetFlyweight.BROADCAST_MAC), true, 100 - i);
        }
        assertEquals(4, table.size());

        assertEquals(HoldResult.HELD, holdFrame(PEER_IP, 1, 200));

        assertEquals(1, table.evictions());
        assertEquals(NeighbourState.NONE, table.state(0x0A00_0013, 200), "confirmed at 97, the oldest");
        for (int i = 0; i < 3; i++)
        {
            assertEquals(NeighbourState.STALE, table.state(0x0A00_0010 + i, 200));
        }
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER_IP, 200));
    }

    @Test
    void aTableFullOfIncompleteEntriesRefusesAndCounts()
    {
        for (int i = 0; i < 4; i++)
        {
            assertEquals(HoldResult.HELD, holdFrame(0x0A00_0010 + i, i, 0));
        }

        assertEquals(HoldResult.DROPPED_TABLE_FULL, holdFrame(PEER_IP, 9, 1));
        table.onArp(arp(ArpFlyweight.OPERATION_REQUEST, PEER_MAC, PEER_IP, OUR_IP, EthernetFlyweight.BROADCAST_MAC),
            true, 1);

        assertEquals(1, table.tableFullDrops());
        assertEquals(2, table.refusals());
        assertEquals(0, table.evictions());
        assertEquals(NeighbourState.NONE, table.state(PEER_IP, 1));
        assertEquals(List.of(), handler.take(), "the refused frame is the caller's, told by the result");
    }

    @Test
    void aFailedEntryCanBeResolvedAgainFromScratch()
    {
        holdFrame(PEER_IP, 1, 0);
        for (long t = 0; t <= 3 * RETRANS; t += RETRANS)
        {
            table.poll(t);
        }
        handler.take();

        assertEquals(HoldResult.HELD, holdFrame(PEER_IP, 2, 1000));
        assertEquals(1, table.poll(1000));
        peerReplies(1001);

        assertEquals(List.of("solicit 10.0.0.2 to " + BROADCAST, "transmit 2 to 20000000002"), handler.take());
    }

    @Test
    void rejectsNonPositiveOrOversizedConfigurationAndDefaultsToLinuxValues()
    {
        assertThrows(IllegalArgumentException.class, () -> new NeighbourConfig(0, 1, 1, 1, 1, 64));
        assertThrows(IllegalArgumentException.class, () -> new NeighbourConfig(1, 1, 1, 1, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> new NeighbourConfig(1 << 20, 1, 1, 1, 3, 2048));
        assertEquals(new NeighbourConfig(256, 30_000_000_000L, 1_000_000_000L, 3, 3, 2048), NeighbourConfig.defaults());
    }
}
