package io.xmit.deploy.cluster.data;

import io.xmit.actors.SendResult;
import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edge's relay of an app node's sends, over IPC rings standing in for its TX streams (the relay reads a
 * {@link PacketSubscription} either way, and an IPC ring holds a frame the moment it is committed): every frame goes
 * to its TX queue in order, a full qdisc ring stops the stream without losing or repeating a frame, and every frame
 * not relayed is counted under its reason.
 */
class TxRelayTest
{
    private static final int STREAM = 7000;
    private static final int SOCKET = 12;
    private static final int LOOKS = 100_000;

    private final IpcTxStreams rings = new IpcTxStreams("tx-relay-test", STREAM);
    private final PacketPublication[] tx = rings.tx;
    private final TxRelay relay = new TxRelay(rings.streams);
    private final ScriptedMember member = new ScriptedMember(SOCKET, true);

    @AfterEach
    void close()
    {
        rings.close();
    }

    @Test
    void relaysEveryFrameIntoItsTxQueueInOrder()
    {
        relay.add(member);
        for (int i = 0; i < 100; i++)
        {
            send(i % 2, SOCKET, i);
        }
        assertEquals(100, relay.poll());
        assertEquals(100, relay.relayed());
        final List<String> expected = new ArrayList<>();
        for (int q = 0; q < 2; q++)
        {
            for (int i = q; i < 100; i += 2)
            {
                expected.add(q + ":" + i);
            }
        }
        assertEquals(expected, member.accepted);
        assertEquals(List.of(0L, 0L, 0L, 0L), List.of(relay.rejected(), relay.refused(), relay.nodeDown(),
            relay.backPressured()));
    }

    @Test
    void aFullQdiscRingLeavesTheFrameInTheStreamAndTheNextPollRelaysIt()
    {
        relay.add(member);
        for (int i = 0; i < 5; i++)
        {
            send(0, SOCKET, i);
        }
        member.refuseNext = 3;
        for (int attempt = 0; attempt < 3; attempt++)
        {
            assertEquals(0, relay.poll(), "nothing taken while the ring refuses");
            assertTrue(relay.pressured());
        }
        assertFalse(relay.reached(new long[] {tx[0].position(), 0}), "the refused frame is still in the stream");
        assertEquals(5, relay.poll());
        assertFalse(relay.pressured());
        assertEquals(List.of("0:0", "0:1", "0:2", "0:3", "0:4"), member.accepted, "in order, none twice");
        assertEquals(List.of(5L, 3L), List.of(relay.relayed(), relay.backPressured()));
        assertTrue(relay.reached(new long[] {tx[0].position(), tx[1].position()}));
    }

    @Test
    void framesOfAnotherSocketAreRejectedAndRefusalsCounted()
    {
        relay.add(member);
        send(0, SOCKET + 1, 0);
        member.refuseWith = SendResult.STOPPED;
        send(1, SOCKET, 1);
        assertEquals(2, relay.poll());
        assertEquals(List.of(0L, 1L, 1L), List.of(relay.relayed(), relay.rejected(), relay.refused()));

        relay.remove(SOCKET);
        send(0, SOCKET, 2);
        assertEquals(1, relay.poll());
        assertEquals(2, relay.rejected(), "a socket released is a socket the node does not hold");
    }

    @Test
    void whatTheStreamsHoldWhenTheNodeIsGoneIsCountedNodeDown()
    {
        for (int i = 0; i < 7; i++)
        {
            send(i % 2, SOCKET, i);
        }
        relay.dropLeftovers();
        assertEquals(List.of(7L, 0L), List.of(relay.nodeDown(), relay.relayed()));
    }

    @Test
    void aFencedRelayRefusesEveryFrameAndCountsItStale()
    {
        relay.add(member);
        send(0, SOCKET, 0);
        assertEquals(1, relay.poll());
        relay.fence();
        for (int i = 1; i < 6; i++)
        {
            send(i % 2, SOCKET, i);
        }
        assertEquals(5, relay.poll());
        send(0, SOCKET, 6);
        send(1, SOCKET, 7);
        relay.dropLeftovers();
        assertEquals(List.of("0:0"), member.accepted, "nothing relayed once fenced");
        assertEquals(List.of(1L, 7L, 0L, 0L), List.of(relay.relayed(), relay.staleIncarnation(), relay.nodeDown(),
            relay.rejected()), "relayed, stale incarnation, node down, rejected");
    }

    /**
     * The node hears of its members' completions as totals, only for members whose total changed, frames the
     * pipeline refused counting as done (dropped); the relay keeps looking while a member has sends not done.
     */
    @Test
    void completionsAreReportedAsChangedTotalsWithRefusalsAsDone()
    {
        final ScriptedMember other = new ScriptedMember(SOCKET + 1, false);
        relay.add(member);
        relay.add(other);
        assertNull(relay.completions(), "nothing sent, nothing to report");
        assertFalse(relay.completionsPending());

        for (int i = 0; i < 4; i++)
        {
            send(0, SOCKET, i);
        }
        other.refuseWith = SendResult.TOO_LONG;
        send(1, SOCKET + 1, 4);
        assertEquals(5, relay.poll());
        assertTrue(relay.completionsPending(), "frames relayed since the last report");
        member.completed = 1;
        assertEquals(Map.of(SOCKET, 1L, SOCKET + 1, 1L), totals(relay.completions()), "one completed, one refused");
        assertTrue(relay.completionsPending(), "three of the member's four are in flight");

        member.completed = 4;
        assertEquals(Map.of(SOCKET, 4L), totals(relay.completions()), "only the total that changed");
        assertFalse(relay.completionsPending(), "every send done");
        assertNull(relay.completions());

        relay.fence();
        member.completed = 5;
        assertNull(relay.completions(), "a lost incarnation hears nothing");
    }

    /**
     * A look at the completions (one per timer tick while packets are in flight, whatever the packet rate) allocates
     * nothing when no count changed, and only the message it sends when one did: the relay gathers the changes in
     * arrays it keeps.
     */
    @Test
    void aLookAtTheCompletionsAllocatesNothingButTheMessage()
    {
        relay.add(member);
        relay.add(new ScriptedMember(SOCKET + 1, false));
        relay.completions();

        final AllocationMeter.Measurement unchanged = AllocationMeter.measure(looks ->
        {
            long reports = 0;
            for (int i = 0; i < looks; i++)
            {
                reports += null == relay.completions() ? 0 : 1;
            }
            return reports;
        }, LOOKS, LOOKS);
        assertEquals(0, unchanged.result(), "no count changed, nothing to report");
        assertEquals(0, unchanged.allocatedBytes(), "bytes allocated by " + LOOKS + " looks that found no change");

        final DataPlaneMessage.Completions[] sent = new DataPlaneMessage.Completions[LOOKS];
        final AllocationMeter.Measurement reports = AllocationMeter.measure(looks ->
        {
            for (int i = 0; i < looks; i++)
            {
                member.completed++;
                sent[i] = relay.completions();
            }
            return sent[looks - 1].completed()[0];
        }, LOOKS, LOOKS);
        final AllocationMeter.Measurement messages = AllocationMeter.measure(looks ->
        {
            for (int i = 0; i < looks; i++)
            {
                sent[i] = new DataPlaneMessage.Completions(new int[] {SOCKET}, new long[] {i});
            }
            return sent[looks - 1].completed()[0];
        }, LOOKS, LOOKS);
        assertEquals(messages.allocatedBytes(), reports.allocatedBytes(),
            "bytes allocated by " + LOOKS + " reports of one changed count, against " + LOOKS + " such messages");
    }

    @Test
    void reachedOnlyOnceEveryStreamIsReadToItsPosition()
    {
        relay.add(member);
        assertTrue(relay.reached(new long[] {0, 0}), "nothing sent, nothing to wait for");
        send(0, SOCKET, 0);
        send(1, SOCKET, 1);
        final long[] ends = {tx[0].position(), tx[1].position()};
        assertFalse(relay.reached(ends));
        relay.poll();
        assertTrue(relay.reached(ends));
    }

    /** The report as socket id → total (the relay's table has no order). */
    private static Map<Integer, Long> totals(final DataPlaneMessage.Completions completions)
    {
        final Map<Integer, Long> totals = new TreeMap<>();
        for (int i = 0; i < completions.socketIds().length; i++)
        {
            totals.put(completions.socketIds()[i], completions.completed()[i]);
        }
        return totals;
    }

    private void send(final int txq, final int socketId, final long sequence)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
        frame.putLong(0, sequence);
        assertTrue(tx[txq].send(0, socketId, 0, RingFrameHeader.NO_RX_QUEUE, 0, 0, 0, frame, 0, 64) > 0);
    }
}
