package io.xmit.tests.bench;

import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.qdisc.PfifoFast;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * pfifo_fast: enqueue 64 frames, then bulk-dequeue them in one batch and complete it (the driver accepted
 * all). The score is per packet: one enqueue plus its share of the bulk dequeue and completion.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PfifoFastBenchmark
{
    private static final int BULK = 64;

    @Param({"64", "1500"})
    public int frameLength;

    private final PfifoFast qdisc = new PfifoFast();
    private final DescriptorBatch batch = new DescriptorBatch(BULK);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[1514]);

    @Setup
    public void setUp()
    {
        for (int i = 0; i < frame.capacity(); i++)
        {
            frame.putByte(i, (byte)i);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BULK)
    public int enqueueThenBulkDequeue64()
    {
        for (int i = 0; i < BULK; i++)
        {
            qdisc.enqueue(frame, 0, frameLength, i & 15);
        }
        final int n = qdisc.dequeueBulk(batch, BULK, Integer.MAX_VALUE);
        qdisc.complete(batch, n);
        return n;
    }
}
