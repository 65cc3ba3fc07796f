package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.pipeline.AllocationMeter;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every packet traced, and still nothing allocated on the data path: not by the sender, not on the pipeline's CPU
 * threads, whether the trace ring takes the events or is full and drops them (the writer thread may allocate).
 */
@Timeout(120)
class TraceAllocationTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int PAYLOAD = CpuThreadLoad.PAYLOAD;
    private static final int WINDOW = 200_000;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    private static PipelineConfig config(final String name)
    {
        return PipelineConfig.builder().name(name).cpus(2).qdiscRingTerm(1 << 20).socketRingTerm(1 << 20)
            .trace(TraceConfig.OFF.withSelector(TraceSelector.parse("sample=1"))).build();
    }

    @Test
    void tracedSendsAllocateNothingOnTheCallersThread()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-alloc-send")))
        {
            pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).handler((socket, datagram) -> { }));
            final UdpSocket sender = pipeline.openUdp(SocketOptions.udp4(7000).connect(Endpoint.of("10.0.0.2", 9000)));
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD));
            final AllocationMeter.Measurement send = AllocationMeter.measure(operations ->
            {
                long sent = 0;
                for (int i = 0; i < operations; i++)
                {
                    payload.putLong(0, i);
                    while (sender.send(payload, 0, PAYLOAD) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    sent++;
                }
                return sent;
            }, WINDOW, WINDOW);
            assertEquals(WINDOW, send.result());
            assertEquals(0, send.allocatedBytes(), "traced send: " + send);
            assertTrue(pipeline.tracer().events() + pipeline.tracer().dropped() > WINDOW, "the sends were traced");
        }
    }

    @Test
    void cpuThreadsAllocateNothingPerTracedPacket() throws Exception
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("trace-alloc-cpus")))
        {
            final UdpSocket[] senders = CpuThreadLoad.openSenders(pipeline);
            final long[] cpuThreads = CpuThreadLoad.cpuThreadIds(2);
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD));
            // A million packets to warm up, as in PipelineAllocationTest: the JIT's one-time work is done by then.
            long sent = CpuThreadLoad.send(pipeline, senders, payload, 1_000_000, 0);
            // Not one byte per packet: the smallest object is 8 bytes (16 without compact headers), so a window of
            // 400,000 traced packets of which even one in 800 allocated would reach 1 byte per 100 packets. What lands
            // in a window besides the packets is not per packet (the dispatchers' idle/wake-up work, which tracing,
            // with its writer thread on the same two cores, makes more frequent; 1-3.5 KiB a window measured here,
            // more when another build takes a core), so the least of up to ten windows (it stops at the first under
            // the bound) is what is checked. The events themselves go into the ring or are dropped without
            // allocating (the send path's exact 0 above).
            final long bound = 2L * WINDOW / 100;
            long least = Long.MAX_VALUE;
            final StringBuilder windows = new StringBuilder();
            for (int window = 0; window < 10 && least >= bound; window++)
            {
                final long[] before = CpuThreadLoad.allocated(cpuThreads);
                sent = CpuThreadLoad.send(pipeline, senders, payload, 2 * WINDOW, sent);
                final long bytes = CpuThreadLoad.sum(before, CpuThreadLoad.allocated(cpuThreads));
                windows.append(' ').append(bytes);
                least = Math.min(least, bytes);
            }
            assertTrue(pipeline.tracer().events() + pipeline.tracer().dropped() > 4L * WINDOW,
                "the packets were traced (into the ring, or dropped with it full)");
            assertTrue(least < bound, "bytes allocated on the CPU threads per window of " + 2 * WINDOW +
                " traced packets:" + windows + " (trace events " + pipeline.tracer().events() + ", dropped " +
                pipeline.tracer().dropped() + ")");
        }
    }
}
