package io.xmit.pipeline.xps;

import io.xmit.pipeline.flow.Hashing;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static io.xmit.pipeline.xps.TxQueueSelector.pickTx;
import static io.xmit.pipeline.xps.TxQueueSelector.queue;
import static io.xmit.pipeline.xps.TxQueueSelector.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxQueueSelectorTest
{
    private static final int HASH = 0xC000_0000;
    private static final long SECOND = 1_000_000_000L;

    private static XpsMask cpus(final int... bits)
    {
        return XpsMask.of(4, bits);
    }

    private static SocketQueueState connected()
    {
        final SocketQueueState sk = new SocketQueueState();
        sk.connect();
        return sk;
    }

    private static SocketQueueState busy(final SocketQueueState sk)
    {
        sk.packetSent();
        return sk;
    }

    @Test
    void singleQueueDeviceAlwaysPicksQueueZeroAndLeavesTheCacheAlone()
    {
        // kernel-semantics §1.1(b): realNumTx == 1 -> 0, no hook, hash or cache.
        final QueueMap map = QueueMap.create(1, 4, 4);
        final SocketQueueState sk = connected();
        sk.setTxQueue(5);
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(0, queue(picked));
        assertEquals(SelectionRule.SINGLE, rule(picked));
        assertEquals(5, sk.txQueue());
        assertEquals(SelectionRule.SINGLE, rule(pickTx(map, null, -1, HASH)));
    }

    @Test
    void validCachedQueueWinsOverXpsAndHashWhileNotOooOkay()
    {
        // §1.2: cached, not ooo_okay, in range -> cached; neither XPS nor the hash consulted.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0));
        final SocketQueueState sk = busy(connected());
        sk.setTxQueue(2);
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(2, queue(picked));
        assertEquals(SelectionRule.CACHED, rule(picked));
        assertEquals(2, sk.txQueue());
    }

    @Test
    void oooOkayReselectsAndRecachesTheNewQueue()
    {
        // §1.2 + §1.5: nothing in flight -> ooo_okay -> XPS/hash again, and the result is cached.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0));
        final SocketQueueState sk = connected();
        sk.setTxQueue(2);
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(1, queue(picked));
        assertEquals(SelectionRule.XPS_CPUS, rule(picked));
        assertEquals(1, sk.txQueue());

        sk.packetSent();
        assertEquals(SelectionRule.CACHED, rule(pickTx(map, sk, 3, HASH)));
        assertEquals(1, queue(pickTx(map, sk, 3, HASH)));
    }

    @Test
    void cachedQueueBeyondShrunkQueueCountIsCaughtByTheBoundCheck()
    {
        // §1.4: the cache is not cleared when realNumTx changes; §1.2's bound check reselects.
        final QueueMap wide = QueueMap.create(8, 4, 4);
        final SocketQueueState sk = busy(connected());
        sk.setTxQueue(6);
        assertEquals(SelectionRule.CACHED, rule(pickTx(wide, sk, -1, HASH)));

        final QueueMap narrow = wide.withRealNumTx(4);
        assertEquals(6, sk.txQueue());
        final int picked = pickTx(narrow, sk, -1, HASH);
        assertEquals(SelectionRule.HASH, rule(picked));
        assertEquals(Hashing.reciprocalScale(HASH, 4), queue(picked));
        assertEquals(3, sk.txQueue());
    }

    @Test
    void rxQueueMapBeatsCpuMap()
    {
        // §2.2(a) before (b), keyed by the socket's recorded RX queue.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 1));
        final SocketQueueState sk = connected();
        sk.recordRxQueue(1);
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(3, queue(picked));
        assertEquals(SelectionRule.XPS_RXQS, rule(picked));
        assertEquals(3, sk.txQueue());
    }

    @Test
    void rxQueueWithoutEntryFallsToTheCpuMap()
    {
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 1));
        final SocketQueueState sk = connected();
        sk.recordRxQueue(0);
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(2, queue(picked));
        assertEquals(SelectionRule.XPS_CPUS, rule(picked));
    }

    @Test
    void packetWithoutSocketSkipsCacheAndRxQueueMap()
    {
        // §1.3: sk == null -> no cached queue; §2.2(a) needs the socket's RX queue.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 0));
        final int picked = pickTx(map, null, 0, HASH);
        assertEquals(2, queue(picked));
        assertEquals(SelectionRule.XPS_CPUS, rule(picked));
    }

    @Test
    void noXpsFallsBackToScaledFlowHash()
    {
        // §3.1 with numTc == 0: (off, cnt) = (0, realNumTx); §3.3: reciprocalScale(hash, cnt).
        final QueueMap map = QueueMap.create(4, 4, 4);
        final int picked = pickTx(map, null, 0, HASH);
        assertEquals(3, queue(picked));
        assertEquals(SelectionRule.HASH, rule(picked));
        assertEquals(0, queue(pickTx(map, null, 0, 0x3FFF_FFFF)));
        assertEquals(2, queue(pickTx(QueueMap.create(3, 4, 4), null, 0, -1)));
    }

    @Test
    void senderOffThePipelineFallsToTheHash()
    {
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0, 1, 2, 3));
        assertEquals(SelectionRule.HASH, rule(pickTx(map, null, -1, HASH)));
    }

    @Test
    void xpsQueueBeyondRealNumTxFallsToTheHash()
    {
        // §2.3: chosen queue >= realNumTx -> -1 -> §2.2 next map -> §3 hash.
        final QueueMap map = new QueueMap(2, 2, 1, 1, new int[]{0, 1}, new int[]{3}, new int[]{0, 0}, new int[0]);
        final int picked = pickTx(map, null, 0, -1);
        assertEquals(SelectionRule.HASH, rule(picked));
        assertEquals(1, queue(picked));
    }

    @Test
    void unconnectedSocketNeverCaches()
    {
        // §1.2/§1.4: no dst, no cache; every packet goes through XPS or the hash again.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0));
        final SocketQueueState sk = busy(new SocketQueueState());
        assertEquals(SelectionRule.XPS_CPUS, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(-1, sk.txQueue());
        final int second = pickTx(map, sk, 1, HASH);
        assertEquals(SelectionRule.HASH, rule(second));
        assertEquals(-1, sk.txQueue());
    }

    @Test
    void connectedSocketStaysOnItsQueueAfterThreadMigrationWhileBusyWithoutReselection()
    {
        // P3 sticky queues, the kernel before 6.19 (txq_reselection_ms = 0): the cache only moves on ooo_okay, even
        // when the sender CPU maps elsewhere.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(0, cpus(0)).withXpsCpus(3, cpus(1));
        final long[] now = {0};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], SocketQueueState.NEVER_RESELECT);
        sk.connect();
        assertEquals(0, queue(pickTx(map, sk, 0, HASH)));
        sk.packetSent();
        now[0] = 3_600 * SECOND;
        final int migrated = pickTx(map, sk, 1, HASH);
        assertEquals(0, queue(migrated));
        assertEquals(SelectionRule.CACHED, rule(migrated));
        sk.packetCompleted();
        assertEquals(3, queue(pickTx(map, sk, 1, HASH)));
    }

    @Test
    void busyConnectedSocketFollowsXpsOnceItsQueueIsOlderThanTheReselectionPeriod()
    {
        // §1.6, the audit's scenario: xps_cpus tx-0={0}, tx-3={1}; cached on tx-0 from CPU 0, a packet always in
        // flight, the thread moves to CPU 1. 6.19 keeps tx-0 up to txq_reselection_ms (1 s), then XPS picks tx-3.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(0, cpus(0)).withXpsCpus(3, cpus(1));
        final long[] now = {5 * SECOND};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], SECOND);
        sk.connect();
        assertEquals(SelectionRule.XPS_CPUS, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(0, sk.txQueue());
        sk.packetSent();

        now[0] += SECOND;
        final int atThePeriod = pickTx(map, sk, 1, HASH);
        assertEquals(0, queue(atThePeriod));
        assertEquals(SelectionRule.CACHED, rule(atThePeriod));

        now[0] += 1;
        final int aged = pickTx(map, sk, 1, HASH);
        assertEquals(3, queue(aged));
        assertEquals(SelectionRule.XPS_CPUS, rule(aged));
        assertEquals(3, sk.txQueue());

        // The new mapping is stamped now: the flow stays on tx-3 for another period, though still busy.
        now[0] += SECOND;
        assertEquals(SelectionRule.CACHED, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(3, sk.txQueue());
    }

    @Test
    void reselectionThatPicksTheSameQueueRefreshesItsTimeOnlyOnceASecondOld()
    {
        // §1.6: sk_tx_queue_set with the value already cached refreshes the time only past HZ (1 s), whatever the
        // period, so with a 100 ms period a busy flow re-runs XPS on every packet between 100 ms and 1 s.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(0));
        final long[] now = {0};
        final SocketQueueState sk = new SocketQueueState(() -> now[0], SECOND / 10);
        sk.connect();
        pickTx(map, sk, 0, HASH);
        sk.packetSent();

        now[0] = SECOND / 2;
        assertEquals(SelectionRule.XPS_CPUS, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(SelectionRule.XPS_CPUS, rule(pickTx(map, sk, 0, HASH)));

        now[0] = SECOND + 1;
        assertEquals(SelectionRule.XPS_CPUS, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(SelectionRule.CACHED, rule(pickTx(map, sk, 0, HASH)));
        assertEquals(2, sk.txQueue());
    }

    @Test
    void dstChangeForcesReselection()
    {
        // §1.4: cleared on every dst change.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(0));
        final SocketQueueState sk = busy(connected());
        sk.setTxQueue(1);
        sk.connect();
        final int picked = pickTx(map, sk, 0, HASH);
        assertEquals(SelectionRule.XPS_CPUS, rule(picked));
        assertEquals(2, sk.txQueue());
    }

    @Test
    void pickedQueueIsAlwaysBelowRealNumTx()
    {
        // §1.1(d) holds by construction: no rule here can produce a queue >= realNumTx.
        final SplittableRandom random = new SplittableRandom(11);
        QueueMap map = QueueMap.create(8, 4, 4);
        for (int txq = 0; txq < 8; txq++)
        {
            map = map.withXpsCpus(txq, cpus(random.nextInt(4), random.nextInt(4)))
                .withXpsRxqs(txq, XpsMask.of(4, random.nextInt(4)));
        }
        final QueueMap narrow = map.withRealNumTx(3);
        final SocketQueueState sk = connected();
        for (int i = 0; i < 10_000; i++)
        {
            sk.recordRxQueue(random.nextInt(4));
            if (random.nextBoolean())
            {
                sk.packetSent();
            }
            else if (sk.inFlight() > 0)
            {
                sk.packetCompleted();
            }
            final QueueMap m = random.nextBoolean() ? map : narrow;
            final int picked = pickTx(m, sk, random.nextInt(5) - 1, random.nextInt());
            assertTrue(queue(picked) < m.realNumTx(), () -> "picked " + queue(picked) + " on " + m);
        }
    }

    @Test
    void packedResultRoundTripsEveryRuleAndTheLargestQueue()
    {
        for (final SelectionRule r : SelectionRule.values())
        {
            final int packed = TxQueueSelector.pack(0xFFFE, r);
            assertEquals(0xFFFE, queue(packed));
            assertEquals(r, rule(packed));
            assertNotEquals(QueueMap.NO_QUEUE, packed);
        }
    }

    @Test
    void rulesHaveStableLabels()
    {
        assertEquals("single", SelectionRule.SINGLE.label());
        assertEquals("cached", SelectionRule.CACHED.label());
        assertEquals("xps-rxqs", SelectionRule.XPS_RXQS.label());
        assertEquals("xps-cpus", SelectionRule.XPS_CPUS.label());
        assertEquals("hash", SelectionRule.HASH.label());
    }
}
