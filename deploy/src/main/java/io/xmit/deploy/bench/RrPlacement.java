package io.xmit.deploy.bench;

import java.util.List;
import java.util.Set;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.flow.Hashing;
import io.xmit.pipeline.flow.Toeplitz;

/**
 * Where an {@code rr} flow's queues sit against its sockets' CPU, chosen rather than left to chance. Two things place a
 * flow's traffic: the {@code loop} device's RSS (the Toeplitz hash under its default key, through the indirection table
 * {@code i mod rxQueues}) picks the RX queue each direction arrives on, and the pipeline's flow hash (SipHash under a
 * key drawn at random per pipeline, §3.4) picks {@code hash}'s TX queue, the same for both directions. Queue q's
 * actors run on CPU q mod cpus. A {@link Placement}, a placement class, says for both whether it is the sockets' CPU
 * ({@code near}) or the other ({@code far}); {@link #clientPort} picks a client port that lands the flow in the class,
 * given the pipeline's flow-hash key. The sockets' CPU stays f mod cpus, so over the classes the sockets are placed
 * independently of their queues, as threads that are not pinned are; but each class is measured as often as the
 * others in every run.
 */
final class RrPlacement
{
    /** The {@code loop} device's RSS indirection table's size; entry i is RX queue i mod the RX queues. */
    static final int RETA_SIZE = 128;
    /** Client ports are looked for from here up: the first that lands its flow in its class is taken. */
    static final int CLIENT_PORT_BASE = 40000;
    private static final int CLIENT_PORT_LIMIT = 65536;

    /**
     * A placement class.
     *
     * @param label   {@code rx-near+hash-far} and so on, as figures and ratios are suffixed with.
     * @param rxNear  both directions arrive on an RX queue of the sockets' CPU; otherwise both on the other CPU's.
     * @param hashNear under {@code hash}, both directions leave on a TX queue of the sockets' CPU; otherwise the
     *                 other's.
     */
    record Placement(String label, boolean rxNear, boolean hashNear)
    {
    }

    /**
     * The classes in the order a flow goes through them, round after round: the RX side alternates every time, the
     * hash's side every other time, so that any two consecutive runs differ and four runs hold each once.
     */
    static final List<Placement> CLASSES = List.of(
        new Placement("rx-near+hash-near", true, true),
        new Placement("rx-far+hash-far", false, false),
        new Placement("rx-near+hash-far", true, false),
        new Placement("rx-far+hash-near", false, true));

    private final Toeplitz rss = Toeplitz.withDefaultKey();
    private final FlowHasher hasher;
    private final int cpus;
    private final int rxQueues;
    private final int txQueues;

    /**
     * @param hasher   the pipeline's flow hash, with its key ({@code XpsMapsFile.read(...).hasher()}).
     * @param cpus     the pipeline's CPUs.
     * @param rxQueues RX queues per port.
     * @param txQueues real TX queues per port.
     */
    RrPlacement(final FlowHasher hasher, final int cpus, final int rxQueues, final int txQueues)
    {
        this.hasher = hasher;
        this.cpus = cpus;
        this.rxQueues = rxQueues;
        this.txQueues = txQueues;
    }

    /** The class flow {@code flow} is in when the flows' classes are shifted by {@code shift}. */
    static Placement classOf(final int flow, final int shift)
    {
        return CLASSES.get((flow + shift) % CLASSES.size());
    }

    /**
     * The shift of the flows' classes in sub-round {@code subRound} of round {@code round} (from 0): each sub-round
     * shifts them by the number of flows, so that the round's sub-rounds give every class as many flow-runs; with one
     * sub-round per round (a multiple of 4 flows), each round shifts them by one, so that each flow's class alternates
     * from round to round as a single flow's does from sub-round to sub-round.
     */
    static int shift(final int flows, final int round, final int subRound)
    {
        return 1 == subRounds(flows) ? round : subRound * flows;
    }

    /**
     * How many sub-rounds a round needs for each class to be measured equally with {@code flows} flows: 4 with one
     * flow, 2 with two, 1 with a multiple of 4.
     */
    static int subRounds(final int flows)
    {
        int common = CLASSES.size();
        int other = flows;
        while (other != 0)
        {
            final int rest = common % other;
            common = other;
            other = rest;
        }
        return CLASSES.size() / common;
    }

    /**
     * The lowest client port from {@link #CLIENT_PORT_BASE} not in {@code taken} whose flow with {@code serverPort},
     * its sockets on {@code cpu}, is in class {@code wanted}.
     *
     * @throws IllegalStateException if no port up to 65535 is (the hash would have to be broken).
     */
    int clientPort(final String client, final String server, final int serverPort, final int cpu,
        final Placement wanted, final Set<Integer> taken)
    {
        for (int port = CLIENT_PORT_BASE; port < CLIENT_PORT_LIMIT; port++)
        {
            if (!taken.contains(port) && wanted.equals(classOf(client, port, server, serverPort, cpu)))
            {
                return port;
            }
        }
        throw new IllegalStateException("rr: no client port for " + server + ":" + serverPort + " on CPU " + cpu +
            " lands in class " + wanted.label());
    }

    /**
     * The class the flow {@code client:clientPort} to {@code server:serverPort}, sockets on {@code cpu}, is in; null if
     * its request and its reply arrive on different CPUs' RX queues, which no class is.
     */
    Placement classOf(final String client, final int clientPort, final String server, final int serverPort,
        final int cpu)
    {
        final boolean requestNear = cpuOf(rxQueue(client, clientPort, server, serverPort)) == cpu;
        final boolean replyNear = cpuOf(rxQueue(server, serverPort, client, clientPort)) == cpu;
        if (requestNear != replyNear)
        {
            return null;
        }
        final boolean hashNear = cpuOf(hashTxQueue(client, clientPort, server, serverPort)) == cpu;
        return CLASSES.stream().filter(c -> c.rxNear() == requestNear && c.hashNear() == hashNear).findFirst()
            .orElseThrow();
    }

    /** The RX queue the device's RSS puts a datagram from {@code src:srcPort} to {@code dst:dstPort} on. */
    int rxQueue(final String src, final int srcPort, final String dst, final int dstPort)
    {
        final int hash = rss.hash(flow(src, srcPort, dst, dstPort), true);
        return Integer.remainderUnsigned(hash, RETA_SIZE) % rxQueues;
    }

    /** The TX queue the flow hash picks for the flow, either direction (§3.3, §3.4). */
    int hashTxQueue(final String src, final int srcPort, final String dst, final int dstPort)
    {
        return Hashing.reciprocalScale(hasher.hash(flow(src, srcPort, dst, dstPort)), txQueues);
    }

    /** The CPU queue {@code q}'s actors run on. */
    int cpuOf(final int q)
    {
        return q % cpus;
    }

    private FlowKey flow(final String src, final int srcPort, final String dst, final int dstPort)
    {
        return FlowKey.parse("udp:" + src + ":" + srcPort + "-" + dst + ":" + dstPort);
    }
}
