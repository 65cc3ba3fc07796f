package io.xmit.pipeline.xps;

import io.xmit.pipeline.flow.Hashing;

/**
 * Picks a packet's TX queue: {@code netdev_core_pick_tx} with {@code netdev_pick_tx} as the only selector
 * (kernel-semantics §1.1–§1.6, §2, §3.1/§3.3), as Linux 6.19 does it. Stateless; allocation-free.
 * <p>
 * The result is packed into an int: bits 0–15 the queue, bits 16+ the {@link SelectionRule} ordinal; unpack it
 * with {@link #queue(int)} and {@link #rule(int)}.
 * <p>
 * Not modelled: a driver {@code ndo_select_queue} (§1.1(c)), so every queue chosen here is already below
 * {@code realNumTx} and the §1.1(d) cap never fires; traffic classes (§3.1 with {@code numTc == 0}: the
 * whole range {@code [0, realNumTx)}); forwarded packets (§3.2).
 */
public final class TxQueueSelector
{
    private static final int QUEUE_MASK = 0xFFFF;
    private static final int RULE_SHIFT = 16;
    private static final SelectionRule[] RULES = SelectionRule.values();

    private TxQueueSelector()
    {
    }

    /**
     * Picks the TX queue for one packet.
     *
     * @param map       the current queue map snapshot.
     * @param sk        the sending socket's state, or null for a packet without a socket (no cache, no RX
     *                  queue).
     * @param senderCpu the 0-based xmit CPU sending, or -1 off the pipeline CPUs.
     * @param flowHash  the packet's flow hash.
     * @return the queue and the rule that chose it, packed.
     */
    public static int pickTx(final QueueMap map, final SocketQueueState sk, final int senderCpu, final int flowHash)
    {
        final int realNumTx = map.realNumTx();
        if (realNumTx == 1)
        {
            // §1.1(b): no hook, hash or cache, and the cache is left as it is.
            return pack(0, SelectionRule.SINGLE);
        }

        // §1.2: a cached queue stands unless the packet may go out of order or the queue no longer exists;
        // §1.6: sk_tx_queue_get answers nothing once the mapping is older than the reselection period.
        if (sk != null)
        {
            final int cached = sk.txQueueGet();
            if (cached >= 0 && cached < realNumTx && !sk.oooOkay())
            {
                return pack(cached, SelectionRule.CACHED);
            }
        }

        // §2: rx-queue map, then CPU map; §3.3: otherwise the hash over all real queues.
        int picked = map.xpsQueue(senderCpu, sk == null ? SocketQueueState.NONE : sk.rxQueue(), flowHash);
        if (picked == QueueMap.NO_QUEUE)
        {
            picked = pack(Hashing.reciprocalScale(flowHash, realNumTx), SelectionRule.HASH);
        }

        // §1.2, §1.4: only a socket with a dst (connected) caches; 6.19 stores even an unchanged queue, which
        // refreshes its time (§1.6).
        if (sk != null && sk.connected())
        {
            sk.setTxQueue(queue(picked));
        }
        return picked;
    }

    /**
     * @return the queue of a {@link #pickTx} result.
     */
    public static int queue(final int picked)
    {
        return picked & QUEUE_MASK;
    }

    /**
     * @return the rule of a {@link #pickTx} result.
     */
    public static SelectionRule rule(final int picked)
    {
        return RULES[picked >>> RULE_SHIFT];
    }

    static int pack(final int queue, final SelectionRule rule)
    {
        return (rule.ordinal() << RULE_SHIFT) | queue;
    }
}
