package io.xmit.pipeline.xps;

import io.xmit.pipeline.flow.Hashing;

import java.util.Arrays;

/**
 * An immutable snapshot of a device's TX queue count and XPS maps, published by the mapping actor and read
 * by senders with one volatile load: the real TX queue count (and the count the device allocated), the CPU and RX
 * queue counts, and the two XPS maps (kernel-semantics §2), each a list of TX queues per id (CPU or RX queue).
 * <p>
 * The maps are derived from sysfs-style writes exactly as the kernel derives them (§2.6), so the order of
 * writes shows in the order of an entry's queues, and that order decides which queue a flow hash picks.
 * What {@link #xpsCpus} and {@link #xpsRxqs} read back is computed from the maps, as in the kernel: there is
 * no second copy of the written masks that could disagree with them.
 * <p>
 * No traffic classes: this is the kernel with {@code numTc == 0}, whose maps hold one entry per id
 * ({@code map[id * 1 + 0]}), every queue belongs to that one class, and the priority is never consulted.
 * Every xmit CPU is online, so a CPU mask is used as written (§2.6 intersects it with the online CPUs).
 * <p>
 * Each map is stored flat: entry {@code j} is {@code queues[start[j] .. start[j + 1])}; an empty range is
 * "no entry", and a map with no entries at all is disabled (§2.6).
 * <p>
 * Limits: {@code realNumTx} 1..{@value #MAX_TX_QUEUES} (queue ids must stay below the socket cache's
 * "none" value 0xFFFF, §1.3); {@code numCpus} 1..{@value #MAX_CPUS} (the kernel's largest {@code NR_CPUS});
 * {@code numRxQueues} 1..{@value #MAX_RX_QUEUES} (a recorded RX queue is a 16-bit {@code queueMapping − 1},
 * §2.4).
 */
public final class QueueMap
{
    public static final int MAX_TX_QUEUES = 0xFFFF;
    public static final int MAX_CPUS = 8192;
    public static final int MAX_RX_QUEUES = 0xFFFF;

    /**
     * {@link #xpsQueue} found no usable XPS entry.
     */
    public static final int NO_QUEUE = -1;

    private static final int[] NO_QUEUES = new int[0];

    private final int numTxQueues;
    private final int realNumTx;
    private final int numCpus;
    private final int numRxQueues;
    private final int[] cpuStart;
    private final int[] cpuQueues;
    private final int[] rxqStart;
    private final int[] rxqQueues;

    QueueMap(
        final int numTxQueues,
        final int realNumTx,
        final int numCpus,
        final int numRxQueues,
        final int[] cpuStart,
        final int[] cpuQueues,
        final int[] rxqStart,
        final int[] rxqQueues)
    {
        this.numTxQueues = numTxQueues;
        this.realNumTx = realNumTx;
        this.numCpus = numCpus;
        this.numRxQueues = numRxQueues;
        this.cpuStart = cpuStart;
        this.cpuQueues = cpuQueues;
        this.rxqStart = rxqStart;
        this.rxqQueues = rxqQueues;
    }

    /**
     * A device with no XPS maps, {@code realNumTx} TX queues allocated and all of them real.
     *
     * @throws IllegalArgumentException if a count is outside the limits in the class comment.
     */
    public static QueueMap create(final int realNumTx, final int numCpus, final int numRxQueues)
    {
        checkRange("realNumTx", realNumTx, MAX_TX_QUEUES);
        checkRange("numCpus", numCpus, MAX_CPUS);
        checkRange("numRxQueues", numRxQueues, MAX_RX_QUEUES);
        return new QueueMap(realNumTx, realNumTx, numCpus, numRxQueues, new int[numCpus + 1], NO_QUEUES,
            new int[numRxQueues + 1], NO_QUEUES);
    }

    /**
     * The map whose entries are {@code cpuEntries} and {@code rxqEntries} (entry {@code j}: the TX queues of CPU or RX
     * queue {@code j}, in map order; empty for none), as {@link #cpuEntry} and {@link #rxqEntry} read them back: how a
     * map written out by a running pipeline is rebuilt in another process, with the order of each entry kept.
     *
     * @throws IllegalArgumentException if a count is outside the limits in the class comment, {@code realNumTx} is
     *                                  above {@code numTxQueues}, there is not one entry per CPU and per RX queue,
     *                                  or an entry names a queue twice or one that is not real.
     */
    public static QueueMap fromEntries(final int numTxQueues, final int realNumTx, final int numCpus,
        final int numRxQueues, final int[][] cpuEntries, final int[][] rxqEntries)
    {
        checkRange("numTxQueues", numTxQueues, MAX_TX_QUEUES);
        checkRange("realNumTx", realNumTx, numTxQueues);
        checkRange("numCpus", numCpus, MAX_CPUS);
        checkRange("numRxQueues", numRxQueues, MAX_RX_QUEUES);
        checkEntries("cpu", cpuEntries, numCpus, realNumTx);
        checkEntries("rx queue", rxqEntries, numRxQueues, realNumTx);
        final Flat cpus = flatten(cpuEntries);
        final Flat rxqs = flatten(rxqEntries);
        return new QueueMap(numTxQueues, realNumTx, numCpus, numRxQueues, cpus.start, cpus.queues, rxqs.start,
            rxqs.queues);
    }

    /**
     * The XPS queue for a packet, rx-queue map first, then the CPU map (kernel-semantics §2.1–§2.3).
     *
     * @param senderCpu the 0-based xmit CPU sending, or -1 when not sending from a pipeline CPU (skips the
     *                  CPU map).
     * @param rxQueue   the socket's recorded RX queue, or -1 for none (skips the rx-queue map).
     * @param flowHash  the packet's flow hash, which picks within an entry of several queues.
     * @return the queue packed with the map that chose it, {@link SelectionRule#XPS_RXQS} or
     * {@link SelectionRule#XPS_CPUS}, as {@link TxQueueSelector#pickTx} packs its result; or {@link #NO_QUEUE}.
     */
    public int xpsQueue(final int senderCpu, final int rxQueue, final int flowHash)
    {
        if (rxqQueues.length != 0 && rxQueue >= 0)
        {
            final int queue = lookup(rxqStart, rxqQueues, numRxQueues, rxQueue, flowHash);
            if (queue >= 0)
            {
                return TxQueueSelector.pack(queue, SelectionRule.XPS_RXQS);
            }
        }
        if (cpuQueues.length != 0 && senderCpu >= 0)
        {
            final int queue = lookup(cpuStart, cpuQueues, numCpus, senderCpu, flowHash);
            if (queue >= 0)
            {
                return TxQueueSelector.pack(queue, SelectionRule.XPS_CPUS);
            }
        }
        return NO_QUEUE;
    }

    // kernel-semantics §2.3: one entry, no retry inside it; a queue past realNumTx falls through.
    private int lookup(final int[] start, final int[] queues, final int nrIds, final int key, final int flowHash)
    {
        if (key >= nrIds)
        {
            return NO_QUEUE;
        }
        final int from = start[key];
        final int length = start[key + 1] - from;
        if (length == 0)
        {
            return NO_QUEUE;
        }
        final int queue = length == 1 ? queues[from] : queues[from + Hashing.reciprocalScale(flowHash, length)];
        return queue < realNumTx ? queue : NO_QUEUE;
    }

    /**
     * This map after writing {@code mask} to {@code queues/tx-<txq>/xps_cpus} (kernel-semantics §2.5, §2.6).
     *
     * @throws IllegalArgumentException if there is no such TX queue, the device allocated a single TX queue, or
     *                                  the mask is not {@code numCpus} bits.
     */
    public QueueMap withXpsCpus(final int txq, final XpsMask mask)
    {
        checkMultiqueue(txq);
        checkXpsTarget("xps_cpus", txq);
        checkMaskSize("xps_cpus", txq, mask, numCpus, "CPUs");
        final Flat cpus = setXpsQueue(expand(cpuStart, cpuQueues), txq, mask);
        return new QueueMap(numTxQueues, realNumTx, numCpus, numRxQueues, cpus.start, cpus.queues, rxqStart,
            rxqQueues);
    }

    /**
     * This map after writing {@code mask} to {@code queues/tx-<txq>/xps_rxqs} (kernel-semantics §2.5, §2.6).
     *
     * @throws IllegalArgumentException if there is no such TX queue or the mask is not {@code numRxQueues} bits
     *                                  (unlike {@code xps_cpus}, a single-queue device takes it).
     */
    public QueueMap withXpsRxqs(final int txq, final XpsMask mask)
    {
        checkXpsTarget("xps_rxqs", txq);
        checkMaskSize("xps_rxqs", txq, mask, numRxQueues, "RX queues");
        final Flat rxqs = setXpsQueue(expand(rxqStart, rxqQueues), txq, mask);
        return new QueueMap(numTxQueues, realNumTx, numCpus, numRxQueues, cpuStart, cpuQueues, rxqs.start,
            rxqs.queues);
    }

    /**
     * This map with {@code n} real TX queues; shrinking removes queues {@code >= n} from both maps
     * (kernel-semantics §2.7); growing past the allocated count allocates that many. Sockets' cached queues are left
     * alone: {@code pickTx}'s bound check catches
     * them (§1.4).
     *
     * @throws IllegalArgumentException if {@code n} is outside 1..{@value #MAX_TX_QUEUES}.
     */
    public QueueMap withRealNumTx(final int n)
    {
        checkRange("realNumTx", n, MAX_TX_QUEUES);
        if (n == realNumTx)
        {
            return this;
        }
        if (n > realNumTx)
        {
            return new QueueMap(Math.max(numTxQueues, n), n, numCpus, numRxQueues, cpuStart, cpuQueues, rxqStart,
                rxqQueues);
        }
        final Flat cpus = removeQueuesFrom(expand(cpuStart, cpuQueues), n, realNumTx);
        final Flat rxqs = removeQueuesFrom(expand(rxqStart, rxqQueues), n, realNumTx);
        return new QueueMap(numTxQueues, n, numCpus, numRxQueues, cpus.start, cpus.queues, rxqs.start, rxqs.queues);
    }

    /**
     * Reading {@code queues/tx-<txq>/xps_cpus}: the CPUs whose entry holds {@code txq} (kernel-semantics §2.6).
     */
    public XpsMask xpsCpus(final int txq)
    {
        checkMultiqueue(txq);
        checkXpsTarget("xps_cpus", txq);
        return readBack(cpuStart, cpuQueues, numCpus, txq);
    }

    /**
     * Reading {@code queues/tx-<txq>/xps_rxqs}: the RX queues whose entry holds {@code txq} (§2.6).
     */
    public XpsMask xpsRxqs(final int txq)
    {
        checkXpsTarget("xps_rxqs", txq);
        return readBack(rxqStart, rxqQueues, numRxQueues, txq);
    }

    public int realNumTx()
    {
        return realNumTx;
    }

    /** The TX queues the device allocated ({@code num_tx_queues}), of which {@link #realNumTx} are in use. */
    public int numTxQueues()
    {
        return numTxQueues;
    }

    public int numCpus()
    {
        return numCpus;
    }

    public int numRxQueues()
    {
        return numRxQueues;
    }

    /**
     * @return whether any CPU has an XPS entry; when false the CPU map is not consulted (§2.6).
     */
    public boolean cpuMapEnabled()
    {
        return cpuQueues.length != 0;
    }

    /**
     * @return whether any RX queue has an XPS entry; when false the rx-queue map is not consulted (§2.2).
     */
    public boolean rxqMapEnabled()
    {
        return rxqQueues.length != 0;
    }

    /**
     * @return a copy of CPU {@code cpu}'s entry, in map order; empty for no entry.
     */
    public int[] cpuEntry(final int cpu)
    {
        checkId("cpu", cpu, numCpus);
        return Arrays.copyOfRange(cpuQueues, cpuStart[cpu], cpuStart[cpu + 1]);
    }

    /**
     * @return a copy of RX queue {@code rxq}'s entry, in map order; empty for no entry.
     */
    public int[] rxqEntry(final int rxq)
    {
        checkId("rx queue", rxq, numRxQueues);
        return Arrays.copyOfRange(rxqQueues, rxqStart[rxq], rxqStart[rxq + 1]);
    }

    @Override
    public String toString()
    {
        return "QueueMap{realNumTx=" + realNumTx + ", numCpus=" + numCpus + ", numRxQueues=" + numRxQueues +
            ", xpsCpus=" + describe(cpuStart, cpuQueues) + ", xpsRxqs=" + describe(rxqStart, rxqQueues) + "}";
    }

    private static String describe(final int[] start, final int[] queues)
    {
        final StringBuilder out = new StringBuilder("{");
        for (int j = 0; j + 1 < start.length; j++)
        {
            if (start[j + 1] > start[j])
            {
                out.append(out.length() > 1 ? ", " : "").append(j).append("=")
                    .append(Arrays.toString(Arrays.copyOfRange(queues, start[j], start[j + 1])));
            }
        }
        return out.append("}").toString();
    }

    private record Flat(int[] start, int[] queues)
    {
    }

    /*
     * kernel-semantics §2.6: for each id in the mask append txq to its entry if absent, keeping insertion
     * order; for every other id remove txq, moving the entry's last queue into its slot.
     */
    private static Flat setXpsQueue(final int[][] entries, final int txq, final XpsMask mask)
    {
        for (int j = 0; j < entries.length; j++)
        {
            final int[] entry = entries[j];
            final int pos = indexOf(entry, txq);
            if (mask.get(j))
            {
                if (pos < 0)
                {
                    final int[] grown = Arrays.copyOf(entry, entry.length + 1);
                    grown[entry.length] = txq;
                    entries[j] = grown;
                }
            }
            else if (pos >= 0)
            {
                entries[j] = removeAt(entry, pos);
            }
        }
        return flatten(entries);
    }

    // kernel-semantics §2.7 (netif_reset_xps_queues_gt): queues removed one at a time in ascending order.
    private static Flat removeQueuesFrom(final int[][] entries, final int from, final int oldRealNumTx)
    {
        for (int j = 0; j < entries.length; j++)
        {
            for (int q = from; q < oldRealNumTx && entries[j].length > 0; q++)
            {
                final int pos = indexOf(entries[j], q);
                if (pos >= 0)
                {
                    entries[j] = removeAt(entries[j], pos);
                }
            }
        }
        return flatten(entries);
    }

    private static int[] removeAt(final int[] entry, final int pos)
    {
        final int[] shrunk = Arrays.copyOf(entry, entry.length - 1);
        if (pos < shrunk.length)
        {
            shrunk[pos] = entry[entry.length - 1];
        }
        return shrunk;
    }

    private static int indexOf(final int[] entry, final int queue)
    {
        for (int i = 0; i < entry.length; i++)
        {
            if (entry[i] == queue)
            {
                return i;
            }
        }
        return -1;
    }

    private static int[][] expand(final int[] start, final int[] queues)
    {
        final int[][] entries = new int[start.length - 1][];
        for (int j = 0; j < entries.length; j++)
        {
            entries[j] = Arrays.copyOfRange(queues, start[j], start[j + 1]);
        }
        return entries;
    }

    private static Flat flatten(final int[][] entries)
    {
        final int[] start = new int[entries.length + 1];
        for (int j = 0; j < entries.length; j++)
        {
            start[j + 1] = start[j] + entries[j].length;
        }
        final int total = start[entries.length];
        final int[] queues = total == 0 ? NO_QUEUES : new int[total];
        for (int j = 0; j < entries.length; j++)
        {
            System.arraycopy(entries[j], 0, queues, start[j], entries[j].length);
        }
        return new Flat(start, queues);
    }

    private static XpsMask readBack(final int[] start, final int[] queues, final int nrIds, final int txq)
    {
        int count = 0;
        final int[] ids = new int[nrIds];
        for (int j = 0; j < nrIds; j++)
        {
            for (int i = start[j]; i < start[j + 1]; i++)
            {
                if (queues[i] == txq)
                {
                    ids[count++] = j;
                    break;
                }
            }
        }
        return XpsMask.of(nrIds, Arrays.copyOf(ids, count));
    }

    // kernel-semantics §2.5: xps_cpus (not xps_rxqs) is ENOENT on a device that allocated a single TX queue
    // (!netif_is_multiqueue: num_tx_queues, not the real count).
    private void checkMultiqueue(final int txq)
    {
        if (numTxQueues == 1)
        {
            throw new IllegalArgumentException(
                "xps_cpus for tx-" + txq + ": the device has a single TX queue, which XPS does not apply to");
        }
    }

    // kernel-semantics §2.5: queues/tx-<n> exists only for real queues.
    private void checkXpsTarget(final String attribute, final int txq)
    {
        if (txq < 0 || txq >= realNumTx)
        {
            throw new IllegalArgumentException(
                attribute + " for tx-" + txq + ": no such TX queue; queues are tx-0..tx-" + (realNumTx - 1));
        }
    }

    private static void checkMaskSize(
        final String attribute, final int txq, final XpsMask mask, final int nbits, final String unit)
    {
        if (mask.nbits() != nbits)
        {
            throw new IllegalArgumentException(attribute + " mask '" + mask + "' for tx-" + txq + ": it covers " +
                mask.nbits() + " bits; this device has " + nbits + " " + unit);
        }
    }

    private static void checkRange(final String name, final int value, final int max)
    {
        if (value < 1 || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is outside 1.." + max);
        }
    }

    // An entry holds each real queue at most once (§2.6 appends a queue only if absent; §2.7 removes those not real).
    private static void checkEntries(final String name, final int[][] entries, final int count, final int realNumTx)
    {
        if (null == entries || entries.length != count)
        {
            throw new IllegalArgumentException("expected one " + name + " entry for each of " + count + " " + name +
                "s, got " + (null == entries ? "none" : entries.length));
        }
        for (int j = 0; j < count; j++)
        {
            for (int i = 0; i < entries[j].length; i++)
            {
                final int queue = entries[j][i];
                if (queue < 0 || queue >= realNumTx || indexOf(entries[j], queue) != i)
                {
                    throw new IllegalArgumentException(name + " " + j + "'s entry " + Arrays.toString(entries[j]) +
                        (queue < 0 || queue >= realNumTx ? " names tx-" + queue + "; queues are tx-0..tx-" +
                        (realNumTx - 1) : " names tx-" + queue + " twice"));
                }
            }
        }
    }

    private static void checkId(final String name, final int id, final int count)
    {
        if (id < 0 || id >= count)
        {
            throw new IllegalArgumentException(name + " " + id + " is outside 0.." + (count - 1));
        }
    }
}
