package io.xmit.pipeline.xps;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Differential test of {@link QueueMap} against a deliberately simple reference model kept here: each XPS map is
 * a {@code List<List<Integer>>}, one list of TX queues per CPU or RX queue, updated by the kernel-semantics
 * rules read literally.
 * <p>
 * It pins, over seeded random sequences of {@code xps_cpus} / {@code xps_rxqs} writes (empty masks included) and
 * {@code realNumTx} changes:
 * <ul>
 * <li>§2.6: writing mask M for tx queue n appends n to the entry of every id in M if absent (insertion order
 * kept) and removes n from every other id's entry by moving the entry's last queue into its slot; an empty
 * entry is "no entry", a map with no entries is disabled; the read-back is the ids whose entry holds n.</li>
 * <li>§2.7: shrinking {@code realNumTx} to k removes queues {@code >= k} in ascending order, each by the same
 * move-last rule, from every entry of both maps; growing adds nothing back.</li>
 * <li>§2.3: an entry of one queue gives it, a longer one gives {@code queues[reciprocalScale(hash, len)]}, and
 * a chosen queue {@code >= realNumTx} means none from that map, with no retry inside the entry.</li>
 * <li>§2.2: the rx-queue map first (only when it is enabled and the RX queue is {@code >= 0}), then the CPU map
 * (only for a sender CPU {@code >= 0}).</li>
 * <li>§2.5: a device that allocated a single TX queue refuses xps_cpus writes and reads, not xps_rxqs ones.</li>
 * </ul>
 * After every operation it compares every entry (exact order), both enabled flags, every read-back mask and
 * {@link QueueMap#xpsQueue} for every CPU and RX queue (and -1 for each) under several hashes. Every failure
 * message names the seed and the scenario, and lists the operations that led there.
 */
class QueueMapDifferentialTest
{
    private static final long SEED = 0x5EED_0A2F_C0DE_2026L;
    private static final int SCENARIOS = 2_500;
    private static final int MAX_OPS = 40;
    private static final int MAX_REAL_NUM_TX = 16;
    private static final int MAX_CPUS = 12;
    private static final int MAX_RX_QUEUES = 12;
    private static final int HASHES_PER_CHECK = 3;
    private static final int NONE = -1;

    @Test
    void matchesTheReferenceModelOverRandomWritesAndQueueCountChanges()
    {
        final Coverage coverage = new Coverage();
        for (int scenario = 0; scenario < SCENARIOS; scenario++)
        {
            runScenario(scenario, coverage);
        }
        coverage.assertReached();
    }

    private static void runScenario(final int scenario, final Coverage coverage)
    {
        final SplittableRandom random = new SplittableRandom(SEED + scenario);
        final int initialRealNumTx = 1 + random.nextInt(MAX_REAL_NUM_TX);
        final int numCpus = 1 + random.nextInt(MAX_CPUS);
        final int numRxQueues = 1 + random.nextInt(MAX_RX_QUEUES);
        final int opCount = 1 + random.nextInt(MAX_OPS);

        final Trace trace = new Trace(scenario, initialRealNumTx, numCpus, numRxQueues);
        final Model model = new Model(initialRealNumTx, numCpus, numRxQueues, coverage);
        QueueMap map = QueueMap.create(initialRealNumTx, numCpus, numRxQueues);
        compare(map, model, random, trace, coverage);

        for (int op = 0; op < opCount; op++)
        {
            final int kind = random.nextInt(10);
            if (kind < 8)
            {
                final boolean cpus = kind < 4;
                final int nbits = cpus ? numCpus : numRxQueues;
                final int txq = random.nextInt(model.realNumTx);
                final int[] ids = randomIds(random, nbits);
                final XpsMask mask = XpsMask.of(nbits, ids);
                final String attribute = cpus ? "xps_cpus" : "xps_rxqs";
                trace.add(attribute + " tx-" + txq + " <- " + Arrays.toString(ids));

                if (cpus && model.numTxQueues == 1)
                {
                    // §2.5: xps_cpus is ENOENT on a device that allocated a single TX queue; xps_rxqs is not.
                    final QueueMap before = map;
                    expectRejected(() -> write(before, cpus, txq, mask), attribute + " for tx-" + txq +
                        ": the device has a single TX queue, which XPS does not apply to", map, model, trace);
                    coverage.rejectedSingleQueueWrites++;
                }
                else
                {
                    map = write(map, cpus, txq, mask);
                    model.write(cpus ? model.cpuMap : model.rxqMap, txq, ids);
                    if (ids.length == 0)
                    {
                        coverage.emptyMaskWrites++;
                    }
                }
            }
            else
            {
                final int n = 1 + random.nextInt(initialRealNumTx);
                trace.add("realNumTx " + model.realNumTx + " -> " + n);
                map = map.withRealNumTx(n);
                model.setRealNumTx(n);
            }
            compare(map, model, random, trace, coverage);
            coverage.operations++;
        }
        coverage.scenarios++;
    }

    private static QueueMap write(final QueueMap map, final boolean cpus, final int txq, final XpsMask mask)
    {
        return cpus ? map.withXpsCpus(txq, mask) : map.withXpsRxqs(txq, mask);
    }

    /**
     * Empty, full, one id, or each id with a per-write probability: ascending, no duplicates.
     */
    private static int[] randomIds(final SplittableRandom random, final int nbits)
    {
        final int style = random.nextInt(8);
        if (style == 0)
        {
            return new int[0];
        }
        if (style == 1)
        {
            final int[] all = new int[nbits];
            for (int j = 0; j < nbits; j++)
            {
                all[j] = j;
            }
            return all;
        }
        if (style == 2)
        {
            return new int[]{random.nextInt(nbits)};
        }
        final double density = random.nextDouble();
        final int[] ids = new int[nbits];
        int count = 0;
        for (int j = 0; j < nbits; j++)
        {
            if (random.nextDouble() < density)
            {
                ids[count++] = j;
            }
        }
        return Arrays.copyOf(ids, count);
    }

    private static void compare(
        final QueueMap map,
        final Model model,
        final SplittableRandom random,
        final Trace trace,
        final Coverage coverage)
    {
        if (map.realNumTx() != model.realNumTx)
        {
            fail(trace.failure("realNumTx() is " + map.realNumTx() + ", expected " + model.realNumTx, map, model));
        }
        compareEntries(map, model, true, trace);
        compareEntries(map, model, false, trace);
        if (map.cpuMapEnabled() != Model.enabled(model.cpuMap))
        {
            fail(trace.failure("cpuMapEnabled() is " + map.cpuMapEnabled(), map, model));
        }
        if (map.rxqMapEnabled() != Model.enabled(model.rxqMap))
        {
            fail(trace.failure("rxqMapEnabled() is " + map.rxqMapEnabled(), map, model));
        }
        compareReadBack(map, model, trace);
        compareLookups(map, model, random, trace, coverage);
    }

    private static void compareEntries(final QueueMap map, final Model model, final boolean cpus, final Trace trace)
    {
        final List<List<Integer>> expected = cpus ? model.cpuMap : model.rxqMap;
        for (int j = 0; j < expected.size(); j++)
        {
            final int[] actual = cpus ? map.cpuEntry(j) : map.rxqEntry(j);
            if (!Arrays.equals(actual, toArray(expected.get(j))))
            {
                fail(trace.failure((cpus ? "cpuEntry(" : "rxqEntry(") + j + ") is " + Arrays.toString(actual) +
                    ", expected " + expected.get(j), map, model));
            }
        }
    }

    private static void compareReadBack(final QueueMap map, final Model model, final Trace trace)
    {
        if (model.numTxQueues == 1)
        {
            expectRejected(() -> map.xpsCpus(0),
                "xps_cpus for tx-0: the device has a single TX queue, which XPS does not apply to", map, model, trace);
        }
        for (int txq = 0; txq < model.realNumTx; txq++)
        {
            if (model.numTxQueues > 1)
            {
                final XpsMask expectedCpus = XpsMask.of(model.cpuMap.size(), Model.idsHolding(model.cpuMap, txq));
                final XpsMask actualCpus = map.xpsCpus(txq);
                if (!expectedCpus.equals(actualCpus))
                {
                    fail(trace.failure("xpsCpus(" + txq + ") is " + actualCpus + ", expected " + expectedCpus, map,
                        model));
                }
            }
            final XpsMask expectedRxqs = XpsMask.of(model.rxqMap.size(), Model.idsHolding(model.rxqMap, txq));
            final XpsMask actualRxqs = map.xpsRxqs(txq);
            if (!expectedRxqs.equals(actualRxqs))
            {
                fail(trace.failure("xpsRxqs(" + txq + ") is " + actualRxqs + ", expected " + expectedRxqs, map, model));
            }
        }
    }

    private static void compareLookups(
        final QueueMap map,
        final Model model,
        final SplittableRandom random,
        final Trace trace,
        final Coverage coverage)
    {
        for (int h = 0; h < HASHES_PER_CHECK; h++)
        {
            final int hash = random.nextInt();
            for (int cpu = -1; cpu < model.cpuMap.size(); cpu++)
            {
                for (int rxq = -1; rxq < model.rxqMap.size(); rxq++)
                {
                    final int packed = map.xpsQueue(cpu, rxq, hash);

                    // §2.2: rx-queue map first, then the CPU map.
                    int expectedQueue = NONE;
                    SelectionRule expectedRule = null;
                    if (Model.enabled(model.rxqMap) && rxq >= 0)
                    {
                        expectedQueue = model.lookup(model.rxqMap, rxq, hash);
                        expectedRule = SelectionRule.XPS_RXQS;
                    }
                    if (expectedQueue == NONE && cpu >= 0)
                    {
                        expectedQueue = model.lookup(model.cpuMap, cpu, hash);
                        expectedRule = SelectionRule.XPS_CPUS;
                    }

                    if (expectedQueue == NONE)
                    {
                        if (packed != QueueMap.NO_QUEUE)
                        {
                            fail(trace.failure("xpsQueue(cpu " + cpu + ", rxq " + rxq + ", hash 0x" +
                                Integer.toHexString(hash) + ") is queue " + TxQueueSelector.queue(packed) + " by " +
                                TxQueueSelector.rule(packed) + ", expected NO_QUEUE", map, model));
                        }
                        coverage.noQueueLookups++;
                    }
                    else
                    {
                        if (packed == QueueMap.NO_QUEUE || TxQueueSelector.queue(packed) != expectedQueue ||
                            TxQueueSelector.rule(packed) != expectedRule)
                        {
                            final String actual = packed == QueueMap.NO_QUEUE ? "NO_QUEUE" :
                                "queue " + TxQueueSelector.queue(packed) + " by " + TxQueueSelector.rule(packed);
                            fail(trace.failure("xpsQueue(cpu " + cpu + ", rxq " + rxq + ", hash 0x" +
                                Integer.toHexString(hash) + ") is " + actual + ", expected queue " + expectedQueue +
                                " by " + expectedRule, map, model));
                        }
                        if (expectedRule == SelectionRule.XPS_RXQS)
                        {
                            coverage.rxqLookups++;
                        }
                        else
                        {
                            coverage.cpuLookups++;
                        }
                    }
                }
            }
        }
    }

    private static void expectRejected(
        final Runnable action, final String message, final QueueMap map, final Model model, final Trace trace)
    {
        try
        {
            action.run();
        }
        catch (final IllegalArgumentException ex)
        {
            if (!message.equals(ex.getMessage()))
            {
                fail(trace.failure("rejected with '" + ex.getMessage() + "', expected '" + message + "'", map, model));
            }
            return;
        }
        fail(trace.failure("accepted; expected IllegalArgumentException '" + message + "'", map, model));
    }

    private static int[] toArray(final List<Integer> entry)
    {
        final int[] out = new int[entry.size()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = entry.get(i);
        }
        return out;
    }

    /**
     * The reference: kernel-semantics §2.3, §2.6 and §2.7 on plain lists.
     */
    private static final class Model
    {
        private final List<List<Integer>> cpuMap;
        private final List<List<Integer>> rxqMap;
        private final Coverage coverage;
        /** The device's allocated TX queues: realNumTx never grows past its start here. */
        private final int numTxQueues;
        private int realNumTx;

        Model(final int realNumTx, final int numCpus, final int numRxQueues, final Coverage coverage)
        {
            this.numTxQueues = realNumTx;
            this.realNumTx = realNumTx;
            this.cpuMap = emptyMap(numCpus);
            this.rxqMap = emptyMap(numRxQueues);
            this.coverage = coverage;
        }

        private static List<List<Integer>> emptyMap(final int nrIds)
        {
            final List<List<Integer>> map = new ArrayList<>(nrIds);
            for (int j = 0; j < nrIds; j++)
            {
                map.add(new ArrayList<>());
            }
            return map;
        }

        /**
         * §2.6: each id in the mask (ascending) gets txq appended if absent; every other id loses it.
         */
        void write(final List<List<Integer>> map, final int txq, final int[] ascendingIds)
        {
            int next = 0;
            for (int j = 0; j < map.size(); j++)
            {
                final List<Integer> entry = map.get(j);
                if (next < ascendingIds.length && ascendingIds[next] == j)
                {
                    next++;
                    if (!entry.contains(txq))
                    {
                        entry.add(txq);
                    }
                }
                else
                {
                    removeMovingLast(entry, txq);
                }
            }
        }

        /**
         * §2.7: shrinking removes every queue {@code >= n}, in ascending order, from every entry of both maps;
         * growing adds nothing.
         */
        void setRealNumTx(final int n)
        {
            if (n < realNumTx)
            {
                final int removedBefore = coverage.removals;
                shrink(cpuMap, n);
                shrink(rxqMap, n);
                if (coverage.removals > removedBefore)
                {
                    coverage.shrinksThatRemoved++;
                }
            }
            else if (n > realNumTx)
            {
                coverage.grows++;
            }
            realNumTx = n;
        }

        private void shrink(final List<List<Integer>> map, final int n)
        {
            for (final List<Integer> entry : map)
            {
                final TreeSet<Integer> doomed = new TreeSet<>();
                for (final int queue : entry)
                {
                    if (queue >= n)
                    {
                        doomed.add(queue);
                    }
                }
                for (final int queue : doomed)
                {
                    removeMovingLast(entry, queue);
                }
            }
        }

        /**
         * The entry's last queue moves into the removed queue's slot, then the entry shrinks by one.
         */
        private void removeMovingLast(final List<Integer> entry, final int queue)
        {
            final int pos = entry.indexOf(queue);
            if (pos < 0)
            {
                return;
            }
            final int lastIndex = entry.size() - 1;
            if (pos < lastIndex)
            {
                entry.set(pos, entry.get(lastIndex));
                coverage.reorderingRemovals++;
            }
            entry.remove(lastIndex);
            coverage.removals++;
        }

        /**
         * §2.3: no entry -> none; one queue -> it; else by reciprocal scale; a queue past realNumTx -> none.
         */
        int lookup(final List<List<Integer>> map, final int key, final int hash)
        {
            if (key >= map.size())
            {
                return NONE;
            }
            final List<Integer> entry = map.get(key);
            if (entry.isEmpty())
            {
                return NONE;
            }
            final int index = entry.size() == 1 ? 0 : (int)(((hash & 0xFFFFFFFFL) * entry.size()) >>> 32);
            if (index > 0)
            {
                coverage.laterSlotPicks++;
            }
            coverage.longestEntry = Math.max(coverage.longestEntry, entry.size());
            final int queue = entry.get(index);
            return queue < realNumTx ? queue : NONE;
        }

        static boolean enabled(final List<List<Integer>> map)
        {
            for (final List<Integer> entry : map)
            {
                if (!entry.isEmpty())
                {
                    return true;
                }
            }
            return false;
        }

        static int[] idsHolding(final List<List<Integer>> map, final int txq)
        {
            final List<Integer> ids = new ArrayList<>();
            for (int j = 0; j < map.size(); j++)
            {
                if (map.get(j).contains(txq))
                {
                    ids.add(j);
                }
            }
            return toArray(ids);
        }

        static String describe(final List<List<Integer>> map)
        {
            final StringBuilder out = new StringBuilder("{");
            for (int j = 0; j < map.size(); j++)
            {
                if (!map.get(j).isEmpty())
                {
                    out.append(out.length() > 1 ? ", " : "").append(j).append("=").append(map.get(j));
                }
            }
            return out.append("}").toString();
        }
    }

    /**
     * What a failure message needs to reproduce and explain a scenario.
     */
    private static final class Trace
    {
        private final int scenario;
        private final int initialRealNumTx;
        private final int numCpus;
        private final int numRxQueues;
        private final List<String> ops = new ArrayList<>();

        Trace(final int scenario, final int initialRealNumTx, final int numCpus, final int numRxQueues)
        {
            this.scenario = scenario;
            this.initialRealNumTx = initialRealNumTx;
            this.numCpus = numCpus;
            this.numRxQueues = numRxQueues;
        }

        void add(final String op)
        {
            ops.add(op);
        }

        String failure(final String what, final QueueMap map, final Model model)
        {
            final StringBuilder out = new StringBuilder()
                .append("seed=0x").append(Long.toHexString(SEED)).append(" scenario=").append(scenario)
                .append(" (SplittableRandom(seed + scenario)): ")
                .append(what).append(" after ").append(ops.size()).append(" op(s)")
                .append("\n  create(realNumTx=").append(initialRealNumTx).append(", numCpus=").append(numCpus)
                .append(", numRxQueues=").append(numRxQueues).append(")");
            for (int i = 0; i < ops.size(); i++)
            {
                out.append("\n  op ").append(i + 1).append(": ").append(ops.get(i));
            }
            return out
                .append("\n  actual:   ").append(map)
                .append("\n  expected: realNumTx=").append(model.realNumTx)
                .append(", xpsCpus=").append(Model.describe(model.cpuMap))
                .append(", xpsRxqs=").append(Model.describe(model.rxqMap))
                .toString();
        }
    }

    /**
     * Counts showing the random sequences reached the paths the test is for.
     */
    private static final class Coverage
    {
        int scenarios;
        int operations;
        int emptyMaskWrites;
        int rejectedSingleQueueWrites;
        int removals;
        int reorderingRemovals;
        int shrinksThatRemoved;
        int grows;
        int laterSlotPicks;
        int longestEntry;
        long rxqLookups;
        long cpuLookups;
        long noQueueLookups;

        void assertReached()
        {
            final String counts = "seed=0x" + Long.toHexString(SEED) + " coverage: scenarios=" + scenarios +
                " operations=" + operations + " emptyMaskWrites=" + emptyMaskWrites +
                " rejectedSingleQueueWrites=" + rejectedSingleQueueWrites + " removals=" + removals +
                " reorderingRemovals=" + reorderingRemovals + " shrinksThatRemoved=" + shrinksThatRemoved +
                " grows=" + grows + " laterSlotPicks=" + laterSlotPicks + " longestEntry=" + longestEntry +
                " rxqLookups=" + rxqLookups + " cpuLookups=" + cpuLookups + " noQueueLookups=" + noQueueLookups;
            if (scenarios != SCENARIOS || emptyMaskWrites == 0 || rejectedSingleQueueWrites == 0 ||
                reorderingRemovals == 0 || shrinksThatRemoved == 0 || grows == 0 || laterSlotPicks == 0 ||
                longestEntry < 8 || rxqLookups == 0 || cpuLookups == 0 || noQueueLookups == 0)
            {
                fail("the random scenarios missed a path: " + counts);
            }
        }
    }
}
