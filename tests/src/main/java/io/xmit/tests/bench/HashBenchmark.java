package io.xmit.tests.bench;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.flow.Toeplitz;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/** The two flow hashes per flow: SipHash-2-4 (the software flow hash) and Toeplitz (RSS), IPv4 and IPv6. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HashBenchmark
{
    private final FlowHasher hasher = new FlowHasher(0x0706050403020100L, 0x0F0E0D0C0B0A0908L);
    private final Toeplitz toeplitz = Toeplitz.withDefaultKey();
    private final FlowKey v4 = FlowKey.parse("udp:66.9.149.187:2794-161.142.100.80:1766");
    private final FlowKey v6 = FlowKey.parse("udp:[3ffe:2501:200:1fff::7]:2794-[3ffe:2501:200:3::1]:1766");

    @Benchmark
    public int sipHashIpv4()
    {
        return hasher.hash(v4);
    }

    @Benchmark
    public int sipHashIpv6()
    {
        return hasher.hash(v6);
    }

    @Benchmark
    public int toeplitzIpv4()
    {
        return toeplitz.hash(v4, true);
    }

    @Benchmark
    public int toeplitzIpv6()
    {
        return toeplitz.hash(v6, true);
    }
}
