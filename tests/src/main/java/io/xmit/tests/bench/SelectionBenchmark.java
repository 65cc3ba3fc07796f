package io.xmit.tests.bench;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.pipeline.xps.XpsMask;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * TX queue selection, one packet per operation, for each rule of kernel-semantics §1–3 on an 8-queue device.
 * The hash path pays for the flow hash it needs (as the kernel's skb_tx_hash pays for skb_get_hash); the other
 * paths need no hash. {@code hashPrecomputed} shows the selector alone with the hash already in the frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SelectionBenchmark
{
    private static final int TX_QUEUES = 8;
    private static final int CPU = 1;
    private static final int RX_QUEUE = 3;

    private final FlowHasher hasher = new FlowHasher(0x0706050403020100L, 0x0F0E0D0C0B0A0908L);
    private final FlowKey flow = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
    private final SocketQueueState cachedSocket = new SocketQueueState();
    private final SocketQueueState rxSocket = new SocketQueueState();
    private final SocketQueueState unconnected = new SocketQueueState();
    private QueueMap single;
    private QueueMap plain;
    private QueueMap cpusOnly;
    private QueueMap rxqsAndCpus;
    private int precomputedHash;

    @Setup
    public void setUp()
    {
        single = QueueMap.create(1, 2, 1);
        plain = QueueMap.create(TX_QUEUES, 2, TX_QUEUES);
        cpusOnly = plain
            .withXpsCpus(0, XpsMask.parseCpus("1", 2, 0))
            .withXpsCpus(1, XpsMask.parseCpus("2", 2, 1));
        rxqsAndCpus = cpusOnly.withXpsRxqs(RX_QUEUE, XpsMask.parseRxqs("08", TX_QUEUES, RX_QUEUE));

        cachedSocket.connect();
        cachedSocket.setTxQueue(5);
        cachedSocket.packetSent();

        // Connected, nothing in flight: ooo_okay, so every packet is selected afresh from the recorded RX queue.
        rxSocket.connect();
        rxSocket.recordRxQueue(RX_QUEUE);

        precomputedHash = hasher.hash(flow);
    }

    @Benchmark
    public int cachedHit()
    {
        return TxQueueSelector.pickTx(rxqsAndCpus, cachedSocket, CPU, 0);
    }

    @Benchmark
    public int xpsRxqs()
    {
        return TxQueueSelector.pickTx(rxqsAndCpus, rxSocket, CPU, 0);
    }

    @Benchmark
    public int xpsCpus()
    {
        return TxQueueSelector.pickTx(cpusOnly, unconnected, CPU, 0);
    }

    @Benchmark
    public int hash()
    {
        return TxQueueSelector.pickTx(plain, unconnected, CPU, hasher.hash(flow));
    }

    @Benchmark
    public int hashPrecomputed()
    {
        return TxQueueSelector.pickTx(plain, unconnected, CPU, precomputedHash);
    }

    @Benchmark
    public int singleQueue()
    {
        return TxQueueSelector.pickTx(single, cachedSocket, CPU, 0);
    }
}
