package io.xmit.tests.bench;

import java.util.concurrent.TimeUnit;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.RxBurst;
import io.xmit.transport.nic.TxCompletion;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What draining in bulk buys at the driver: 64 frames of 64 bytes handed to the shim in bursts of 1, 8, 32 or 64
 * {@code tx_burst} calls, on the {@code null} and {@code loop} backends. The score is per packet.
 * <p>
 * One invocation is 64/burst {@code tx_burst} calls, then one {@code tx_reclaim} and, on {@code loop}, one
 * {@code rx_burst} + {@code rx_release} of the 64 frames on the receiving port (so they keep landing in a ring with
 * room and are copied as in real traffic). That second part is the same for every burst size: the differences
 * between burst sizes are the per-call costs that bulk draining saves.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NicBenchmark
{
    private static final int PACKETS = 64;
    private static final int FRAME_PAYLOAD = 64 - 42;

    @Param({"null", "loop"})
    public String backend;

    @Param({"1", "8", "32", "64"})
    public int burst;

    private NicDevice device;
    private NicDriver tx;
    private NicDriver rx;
    private final DescriptorBatch[] batches = new DescriptorBatch[PACKETS];
    private final TxCompletion completion = new TxCompletion();
    private final RxBurst received = new RxBurst(PACKETS);

    @Setup(Level.Trial)
    public void open()
    {
        device = NicDevice.open(backend + ":tx=1,rx=1,ring=1024");
        tx = device.port(0);
        rx = device.portCount() > 1 ? device.port(1) : null;
        final UnsafeBuffer frames = new UnsafeBuffer(BufferUtil.allocateDirectAligned(PACKETS * 128, 64));
        final UdpFrameWriter writer = new UdpFrameWriter();
        for (int i = 0; i < PACKETS; i++)
        {
            final FlowKey flow = new FlowKey().setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002, 1024 + i, 11211);
            writer.write(frames, i * 128, 2L, 1L, flow, FRAME_PAYLOAD);
        }
        for (int call = 0; call < PACKETS / burst; call++)
        {
            batches[call] = new DescriptorBatch(burst);
            for (int i = 0; i < burst; i++)
            {
                batches[call].addExternal(frames.addressOffset() + (long)(call * burst + i) * 128, 64, 0);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close()
    {
        device.close();
    }

    @Benchmark
    @OperationsPerInvocation(PACKETS)
    public long txBurst()
    {
        long accepted = 0;
        for (int call = 0; call < PACKETS / burst; call++)
        {
            accepted += tx.txBurst(0, batches[call]);
        }
        tx.txReclaim(0, completion);
        if (rx != null)
        {
            rx.rxRelease(0, rx.rxBurst(0, received));
        }
        return accepted + completion.packets();
    }
}
