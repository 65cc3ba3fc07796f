package io.xmit.pipeline.xps;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueueMapTest
{
    private static final int HASH_FIRST = 0;
    private static final int HASH_SECOND_OF_THREE = 0x5555_5556;
    private static final int HASH_LAST = -1;

    private static XpsMask cpus(final int... bits)
    {
        return XpsMask.of(4, bits);
    }

    private static int queue(final int packed)
    {
        return TxQueueSelector.queue(packed);
    }

    private static SelectionRule rule(final int packed)
    {
        return TxQueueSelector.rule(packed);
    }

    @Test
    void createValidatesCountsNamingTheLimit()
    {
        assertEquals("realNumTx 0 is outside 1..65535",
            assertThrows(IllegalArgumentException.class, () -> QueueMap.create(0, 4, 4)).getMessage());
        assertEquals("realNumTx 65536 is outside 1..65535",
            assertThrows(IllegalArgumentException.class, () -> QueueMap.create(65536, 4, 4)).getMessage());
        assertEquals("numCpus 8193 is outside 1..8192",
            assertThrows(IllegalArgumentException.class, () -> QueueMap.create(4, 8193, 4)).getMessage());
        assertEquals("numRxQueues 0 is outside 1..65535",
            assertThrows(IllegalArgumentException.class, () -> QueueMap.create(4, 4, 0)).getMessage());
    }

    @Test
    void freshMapHasNoXpsAndLooksUpNothing()
    {
        // kernel-semantics §2.1: no map at all -> -1 at once.
        final QueueMap map = QueueMap.create(4, 4, 4);
        assertFalse(map.cpuMapEnabled());
        assertFalse(map.rxqMapEnabled());
        assertEquals(QueueMap.NO_QUEUE, map.xpsQueue(0, 0, 123));
        assertEquals(XpsMask.empty(4), map.xpsCpus(0));
        assertEquals(XpsMask.empty(4), map.xpsRxqs(0));
    }

    @Test
    void writesAppendInInsertionOrderAndRemovalMovesLastIntoTheSlot()
    {
        // §2.6: write tx-0, tx-1, tx-2 for cpu 0 -> [0, 1, 2]; remove tx-0 -> [2, 1].
        QueueMap map = QueueMap.create(4, 4, 4);
        map = map.withXpsCpus(0, cpus(0)).withXpsCpus(1, cpus(0)).withXpsCpus(2, cpus(0));
        assertArrayEquals(new int[]{0, 1, 2}, map.cpuEntry(0));
        map = map.withXpsCpus(0, cpus());
        assertArrayEquals(new int[]{2, 1}, map.cpuEntry(0));
    }

    @Test
    void rewritingAQueueAlreadyInAnEntryKeepsItsPosition()
    {
        // §2.6: append only if absent.
        QueueMap map = QueueMap.create(4, 4, 4);
        map = map.withXpsCpus(2, cpus(0)).withXpsCpus(1, cpus(0)).withXpsCpus(2, cpus(0, 1));
        assertArrayEquals(new int[]{2, 1}, map.cpuEntry(0));
        assertArrayEquals(new int[]{2}, map.cpuEntry(1));
    }

    @Test
    void writeOrderDecidesWhichQueueAHashPicks()
    {
        // §2.3 + §2.6: the same masks written in another order give another entry order.
        final QueueMap ab = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0)).withXpsCpus(3, cpus(0));
        final QueueMap ba = QueueMap.create(4, 4, 4).withXpsCpus(3, cpus(0)).withXpsCpus(1, cpus(0));
        assertEquals(1, queue(ab.xpsQueue(0, -1, HASH_FIRST)));
        assertEquals(3, queue(ba.xpsQueue(0, -1, HASH_FIRST)));
        assertEquals(ab.xpsCpus(1), ba.xpsCpus(1));
    }

    @Test
    void readBackIsTheIdsWhoseEntryHoldsTheQueue()
    {
        QueueMap map = QueueMap.create(4, 4, 3);
        map = map.withXpsCpus(1, cpus(0, 2, 3)).withXpsCpus(2, cpus(2)).withXpsRxqs(1, XpsMask.of(3, 1, 2));
        assertEquals(cpus(0, 2, 3), map.xpsCpus(1));
        assertEquals(cpus(2), map.xpsCpus(2));
        assertEquals(cpus(), map.xpsCpus(0));
        assertEquals(XpsMask.of(3, 1, 2), map.xpsRxqs(1));
        assertEquals("d", map.xpsCpus(1).toString());
    }

    @Test
    void emptiedEntriesAreFreedAndAnEmptyMapIsDisabled()
    {
        // §2.6: empty entries freed; no entries left -> map type disabled.
        QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0, 1)).withXpsRxqs(2, XpsMask.of(4, 3));
        assertTrue(map.cpuMapEnabled());
        assertTrue(map.rxqMapEnabled());
        map = map.withXpsCpus(1, cpus(1));
        assertArrayEquals(new int[0], map.cpuEntry(0));
        assertEquals(QueueMap.NO_QUEUE, map.xpsQueue(0, -1, 0));
        map = map.withXpsCpus(1, cpus());
        assertFalse(map.cpuMapEnabled());
        assertTrue(map.rxqMapEnabled());
        map = map.withXpsRxqs(2, XpsMask.empty(4));
        assertFalse(map.rxqMapEnabled());
    }

    @Test
    void withMethodsLeaveTheOriginalSnapshotUnchanged()
    {
        final QueueMap before = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0));
        final QueueMap after = before.withXpsCpus(2, cpus(0)).withXpsRxqs(1, XpsMask.of(4, 0)).withRealNumTx(2);
        assertArrayEquals(new int[]{1}, before.cpuEntry(0));
        assertFalse(before.rxqMapEnabled());
        assertEquals(4, before.realNumTx());
        assertArrayEquals(new int[]{1}, after.cpuEntry(0));
    }

    @Test
    void singleQueueEntryIgnoresTheHash()
    {
        // §2.3: len == 1 -> queues[0].
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(2, cpus(1));
        assertEquals(2, queue(map.xpsQueue(1, -1, HASH_FIRST)));
        assertEquals(2, queue(map.xpsQueue(1, -1, HASH_LAST)));
        assertEquals(SelectionRule.XPS_CPUS, rule(map.xpsQueue(1, -1, HASH_LAST)));
    }

    @Test
    void multiQueueEntryPicksByReciprocalScaleOfTheHash()
    {
        // §2.3: queues[reciprocalScale(hash, len)].
        final QueueMap map = QueueMap.create(4, 4, 4)
            .withXpsCpus(3, cpus(0)).withXpsCpus(0, cpus(0)).withXpsCpus(2, cpus(0));
        assertArrayEquals(new int[]{3, 0, 2}, map.cpuEntry(0));
        assertEquals(3, queue(map.xpsQueue(0, -1, HASH_FIRST)));
        assertEquals(0, queue(map.xpsQueue(0, -1, HASH_SECOND_OF_THREE)));
        assertEquals(2, queue(map.xpsQueue(0, -1, HASH_LAST)));
    }

    @Test
    void rxQueueMapIsConsultedBeforeTheCpuMap()
    {
        // §2.2(a) before (b).
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 2));
        final int packed = map.xpsQueue(0, 2, 0);
        assertEquals(3, queue(packed));
        assertEquals(SelectionRule.XPS_RXQS, rule(packed));
    }

    @Test
    void rxQueueWithoutEntryFallsThroughToTheCpuMap()
    {
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 2));
        assertEquals(1, queue(map.xpsQueue(0, 1, 0)));
        assertEquals(SelectionRule.XPS_CPUS, rule(map.xpsQueue(0, 1, 0)));
    }

    @Test
    void noRecordedRxQueueSkipsTheRxQueueMap()
    {
        // §2.2(a): only when sk_rx_queue_get >= 0.
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0)).withXpsRxqs(3, XpsMask.of(4, 0));
        assertEquals(SelectionRule.XPS_CPUS, rule(map.xpsQueue(0, -1, 0)));
    }

    @Test
    void senderOffThePipelineSkipsTheCpuMap()
    {
        final QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(1, cpus(0, 1, 2, 3));
        assertEquals(QueueMap.NO_QUEUE, map.xpsQueue(-1, -1, 0));
    }

    @Test
    void keysBeyondTheIdsFindNoEntry()
    {
        // §2.3: key >= nrIds -> -1.
        final QueueMap map = QueueMap.create(4, 2, 2).withXpsCpus(1, XpsMask.of(2, 0, 1))
            .withXpsRxqs(2, XpsMask.of(2, 0, 1));
        assertEquals(QueueMap.NO_QUEUE, map.xpsQueue(2, -1, 0));
        assertEquals(SelectionRule.XPS_CPUS, rule(map.xpsQueue(1, 2, 0)));
    }

    @Test
    void chosenQueueBeyondRealNumTxFallsThroughWithoutRetryInsideTheEntry()
    {
        // §2.3: in the kernel's window between a queue-count change and the map reset, an entry can name a
        // queue >= realNumTx; that map yields -1 and the next is tried, never another queue of the entry.
        final QueueMap map = new QueueMap(2, 2, 2, 2,
            new int[]{0, 2, 2}, new int[]{0, 5},
            new int[]{0, 1, 1}, new int[]{3});
        assertEquals(0, queue(map.xpsQueue(0, -1, HASH_FIRST)));
        assertEquals(QueueMap.NO_QUEUE, map.xpsQueue(0, -1, HASH_LAST));
        final int viaCpu = map.xpsQueue(0, 0, HASH_FIRST);
        assertEquals(0, queue(viaCpu));
        assertEquals(SelectionRule.XPS_CPUS, rule(viaCpu));
    }

    @Test
    void shrinkingRemovesQueuesAtOrAboveTheNewCountInAscendingOrder()
    {
        // §2.7: netif_reset_xps_queues_gt removes queue 2, then 3, each moving the last queue into its slot:
        // [3, 0, 1] -> (remove 3) [1, 0].
        QueueMap map = QueueMap.create(4, 4, 4);
        map = map.withXpsCpus(3, cpus(0)).withXpsCpus(0, cpus(0)).withXpsCpus(1, cpus(0));
        map = map.withXpsRxqs(2, XpsMask.of(4, 1)).withXpsCpus(2, cpus(1));
        assertArrayEquals(new int[]{3, 0, 1}, map.cpuEntry(0));

        final QueueMap shrunk = map.withRealNumTx(2);
        assertEquals(2, shrunk.realNumTx());
        assertArrayEquals(new int[]{1, 0}, shrunk.cpuEntry(0));
        assertArrayEquals(new int[0], shrunk.cpuEntry(1));
        assertFalse(shrunk.rxqMapEnabled());
        assertEquals(QueueMap.NO_QUEUE, shrunk.xpsQueue(1, 1, 0));
    }

    @Test
    void shrinkingAwayEveryMappedQueueDisablesTheMapAndGrowingBackReadsEmpty()
    {
        QueueMap map = QueueMap.create(4, 4, 4).withXpsCpus(3, cpus(0, 1));
        map = map.withRealNumTx(3);
        assertFalse(map.cpuMapEnabled());
        map = map.withRealNumTx(4);
        assertEquals(cpus(), map.xpsCpus(3));
    }

    @Test
    void growingKeepsTheMaps()
    {
        final QueueMap map = QueueMap.create(2, 4, 4).withXpsCpus(1, cpus(0)).withRealNumTx(8);
        assertEquals(8, map.realNumTx());
        assertArrayEquals(new int[]{1}, map.cpuEntry(0));
    }

    @Test
    void rejectsWritesToMissingQueuesAndSingleQueueDevices()
    {
        // §2.5: tx-<n> exists only below realNumTx; xps_cpus is ENOENT on single-queue devices.
        final QueueMap map = QueueMap.create(4, 4, 4);
        assertEquals("xps_cpus for tx-4: no such TX queue; queues are tx-0..tx-3",
            assertThrows(IllegalArgumentException.class, () -> map.withXpsCpus(4, cpus(0))).getMessage());
        assertEquals("xps_rxqs for tx-3: no such TX queue; queues are tx-0..tx-1",
            assertThrows(IllegalArgumentException.class, () -> map.withRealNumTx(2).xpsRxqs(3)).getMessage());
        final QueueMap single = QueueMap.create(1, 4, 4);
        assertEquals("xps_cpus for tx-0: the device has a single TX queue, which XPS does not apply to",
            assertThrows(IllegalArgumentException.class, () -> single.withXpsCpus(0, cpus(0))).getMessage());
    }

    @Test
    void singleQueueRefusalIsByTheAllocatedCountAndOnlyForXpsCpus()
    {
        // §2.5: xps_cpus checks netif_is_multiqueue (num_tx_queues > 1), not realNumTx; xps_rxqs has no such check.
        final QueueMap narrowed = QueueMap.create(4, 4, 4).withRealNumTx(1);
        assertEquals(4, narrowed.numTxQueues());
        assertEquals(XpsMask.of(4, 2), narrowed.withXpsCpus(0, cpus(2)).xpsCpus(0));
        final QueueMap single = QueueMap.create(1, 4, 4);
        assertEquals(XpsMask.of(4, 1), single.withXpsRxqs(0, XpsMask.of(4, 1)).xpsRxqs(0));
        assertEquals("xps_cpus for tx-0: the device has a single TX queue, which XPS does not apply to",
            assertThrows(IllegalArgumentException.class, () -> single.xpsCpus(0)).getMessage());
    }

    @Test
    void rejectsMasksOfTheWrongSize()
    {
        final QueueMap map = QueueMap.create(4, 4, 2);
        assertEquals("xps_cpus mask '03' for tx-1: it covers 8 bits; this device has 4 CPUs",
            assertThrows(IllegalArgumentException.class, () -> map.withXpsCpus(1, XpsMask.of(8, 0, 1))).getMessage());
        assertEquals("xps_rxqs mask '1' for tx-1: it covers 4 bits; this device has 2 RX queues",
            assertThrows(IllegalArgumentException.class, () -> map.withXpsRxqs(1, XpsMask.of(4, 0))).getMessage());
    }

    @Test
    void rejectsBadQueueCountAndEntryIds()
    {
        final QueueMap map = QueueMap.create(4, 4, 4);
        assertEquals("realNumTx 0 is outside 1..65535",
            assertThrows(IllegalArgumentException.class, () -> map.withRealNumTx(0)).getMessage());
        assertEquals("cpu 4 is outside 0..3",
            assertThrows(IllegalArgumentException.class, () -> map.cpuEntry(4)).getMessage());
    }

    @Test
    void describesItsMaps()
    {
        final QueueMap map = QueueMap.create(4, 4, 2).withXpsCpus(1, cpus(0)).withXpsCpus(2, cpus(0, 3))
            .withXpsRxqs(3, XpsMask.of(2, 1));
        assertEquals("QueueMap{realNumTx=4, numCpus=4, numRxQueues=2, xpsCpus={0=[1, 2], 3=[2]}, xpsRxqs={1=[3]}}",
            map.toString());
    }

    /** A map rebuilt from its entries keeps each entry's order, so a flow hash picks as it did in the original. */
    @Test
    void rebuiltFromItsEntriesKeepsEachEntrysOrder()
    {
        final QueueMap written = QueueMap.create(4, 2, 4)
            .withXpsCpus(3, XpsMask.of(2, 0)).withXpsCpus(1, XpsMask.of(2, 0, 1))
            .withXpsRxqs(2, XpsMask.of(4, 1)).withRealNumTx(3);
        final QueueMap rebuilt = QueueMap.fromEntries(written.numTxQueues(), written.realNumTx(), 2, 4,
            new int[][] {written.cpuEntry(0), written.cpuEntry(1)},
            new int[][] {written.rxqEntry(0), written.rxqEntry(1), written.rxqEntry(2), written.rxqEntry(3)});
        assertEquals(written.toString(), rebuilt.toString());
        assertEquals(4, rebuilt.numTxQueues());
        assertArrayEquals(new int[] {1}, rebuilt.cpuEntry(0), "tx-3 went with the shrink");
        for (int hash = 0; hash < 64; hash++)
        {
            assertEquals(written.xpsQueue(0, 1, hash * 0x3C6EF372), rebuilt.xpsQueue(0, 1, hash * 0x3C6EF372));
        }
    }

    @Test
    void rebuildingRefusesEntriesNoWriteCouldMake()
    {
        assertEquals("cpu 1's entry [0, 4] names tx-4; queues are tx-0..tx-3", assertThrows(
            IllegalArgumentException.class, () -> QueueMap.fromEntries(4, 4, 2, 1, new int[][] {{}, {0, 4}},
                new int[][] {{}})).getMessage());
        assertEquals("rx queue 0's entry [2, 2] names tx-2 twice", assertThrows(IllegalArgumentException.class,
            () -> QueueMap.fromEntries(4, 4, 1, 1, new int[][] {{}}, new int[][] {{2, 2}})).getMessage());
        assertEquals("expected one cpu entry for each of 2 cpus, got 1", assertThrows(IllegalArgumentException.class,
            () -> QueueMap.fromEntries(4, 4, 2, 1, new int[][] {{}}, new int[][] {{}})).getMessage());
        assertEquals("realNumTx 5 is outside 1..4", assertThrows(IllegalArgumentException.class,
            () -> QueueMap.fromEntries(4, 5, 1, 1, new int[][] {{}}, new int[][] {{}})).getMessage());
    }
}
