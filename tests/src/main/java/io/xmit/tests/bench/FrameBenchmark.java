package io.xmit.tests.bench;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.UdpFrameWriter;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/** The frame codec per packet: parse a 64-byte IPv4 UDP frame, and write one with both checksums. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameBenchmark
{
    private static final long DST_MAC = 0x02_00_00_00_00_02L;
    private static final long SRC_MAC = 0x02_00_00_00_00_01L;

    private final FlowKey flow = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");
    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[128]);
    private int frameLength;

    @Setup
    public void setUp()
    {
        // 14 + 20 + 8 + 22 = 64 bytes, the minimum Ethernet frame without its FCS.
        frameLength = writer.write(frame, 0, DST_MAC, SRC_MAC, flow, 22);
        if (parser.parse(frame, 0, frameLength, parsed) != ParseStatus.OK)
        {
            throw new IllegalStateException("the benchmark frame does not parse");
        }
    }

    @Benchmark
    public ParseStatus parseUdpIpv4()
    {
        return parser.parse(frame, 0, frameLength, parsed);
    }

    @Benchmark
    public int writeUdpIpv4()
    {
        return writer.write(scratch, 0, DST_MAC, SRC_MAC, flow, frame, 42, 22);
    }
}
