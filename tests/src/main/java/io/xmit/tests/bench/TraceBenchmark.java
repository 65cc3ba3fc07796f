package io.xmit.tests.bench;

import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TracePoint;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.actors.trace.Tracer;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.qdisc.DescriptorBatch;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What tracing adds to one packet's TX path, one packet per operation: the selection at the socket, and for a traced
 * packet its send, burst and completion events into the trace ring (drained by the tracer's writer thread, no file).
 * {@code off}: nothing configured; {@code none}: a flow filter no packet matches; {@code sample1000}: one in 1,000.
 * Compare with the per-packet time of the pipeline ({@code ./bench-pipeline}) to get the overhead in per cent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TraceBenchmark
{
    @Param({"off", "none", "sample1000"})
    public String selection;

    private final FlowKey flow = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(74));
    private final DescriptorBatch batch = new DescriptorBatch(1);
    private CountersFile counters;
    private Tracer tracer;
    private TracePoint socket;
    private TracePoint qdisc;

    @Setup
    public void setUp()
    {
        final TraceSelector selector = switch (selection)
        {
            case "none" -> TraceSelector.parse("flow=udp:*:*-10.9.9.9:1");
            case "sample1000" -> TraceSelector.parse("sample=1000");
            default -> TraceSelector.OFF;
        };
        counters = CountersFile.create("trace-bench-" + selection, Path.of(System.getProperty("java.io.tmpdir")),
            CountersFile.DEFAULT_CAPACITY);
        tracer = new Tracer(TraceConfig.OFF.withSelector(selector).withRingSize(1 << 24), "trace-bench", "null",
            new int[] {1}, new int[] {2}, counters);
        socket = tracer.point(0, -1);
        qdisc = tracer.point(0, 1);
    }

    @TearDown
    public void tearDown()
    {
        tracer.close();
        counters.close();
    }

    /** An unconnected send: the selector looks at the flow of every packet. */
    @Benchmark
    public long txPacket()
    {
        return traced(socket.select(flow, 7));
    }

    /** A connected socket's send: whether the selector matches its flow is decided once per selector. */
    @Benchmark
    public long txPacketConnected()
    {
        return traced(socket.selectStable(flow, 7));
    }

    private long traced(final long traceId)
    {
        if (RingFrameHeader.NO_TRACE_ID != traceId)
        {
            socket.sent(traceId, 1, 7, false, frame, 0, 74);
            batch.addExternal(frame.addressOffset(), 74, 0, 7, traceId);
            qdisc.bursts(batch, 1);
            batch.clear();
            qdisc.completed(traceId);
        }
        return traceId;
    }
}
