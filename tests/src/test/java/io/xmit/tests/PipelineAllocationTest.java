package io.xmit.tests;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.internal.socket.ReceivedFrame;
import io.xmit.actors.stats.CounterType;
import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.flow.FlowKey;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steady-state allocation: the send path on the caller's thread, and the pipeline's CPU threads (qdisc, TX queue,
 * RX queue and socket actors, and the dispatcher under them) per packet, over the loop device.
 */
@Timeout(120)
class PipelineAllocationTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final int PAYLOAD = CpuThreadLoad.PAYLOAD;

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    private static PipelineConfig config(final String name)
    {
        return PipelineConfig.builder().name(name).cpus(2).qdiscRingTerm(1 << 20).socketRingTerm(1 << 20).build();
    }

    @Test
    void sendSendToAndReplyAllocateNothingOnTheCallersThread()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("alloc-send")))
        {
            pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).handler((socket, datagram) -> {}));
            final Endpoint peer = Endpoint.of("10.0.0.2", 9000);
            final UdpSocket connected = pipeline.openUdp(SocketOptions.udp4(7000).connect(peer));
            final UdpSocket unconnected = pipeline.openUdp(SocketOptions.udp4(7001));
            final UdpSocket server = pipeline.openUdp(SocketOptions.udp4(7002));
            final ReceivedFrame request = new ReceivedFrame();
            request.flow().setIpv4(FlowKey.PROTO_UDP, 0x0A00_0002, 0x0A00_0001, 9000, 7002);
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD));

            final AllocationMeter.Measurement send = AllocationMeter.measure(operations ->
            {
                long sent = 0;
                for (int i = 0; i < operations; i++)
                {
                    payload.putLong(0, i);
                    while (connected.send(payload, 0, PAYLOAD) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    sent++;
                }
                return sent;
            }, 200_000, 200_000);
            final AllocationMeter.Measurement sendTo = AllocationMeter.measure(operations ->
            {
                long sent = 0;
                for (int i = 0; i < operations; i++)
                {
                    payload.putLong(0, i);
                    while (unconnected.sendTo(peer, payload, 0, PAYLOAD) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    sent++;
                }
                return sent;
            }, 200_000, 200_000);
            final AllocationMeter.Measurement reply = AllocationMeter.measure(operations ->
            {
                long sent = 0;
                for (int i = 0; i < operations; i++)
                {
                    payload.putLong(0, i);
                    while (server.reply(request, payload, 0, PAYLOAD) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    sent++;
                }
                return sent;
            }, 200_000, 200_000);
            System.out.println("send path allocation: send " + send + ", sendTo " + sendTo + ", reply " + reply);
            assertEquals(200_000, send.result());
            assertEquals(0, send.allocatedBytes(), "send");
            assertEquals(0, sendTo.allocatedBytes(), "sendTo");
            assertEquals(0, reply.allocatedBytes(), "reply");
        }
    }

    /**
     * The direct path (kernel-semantics §4.4a, {@code qdisc.sender-bypass = on}) on the caller's thread: runs of
     * {@code sendMore} staged and sent in one {@code tx_burst} each by the run's last {@code send}.
     */
    @Test
    void directPathSendsAllocateNothingOnTheCallersThread()
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(),
            config("alloc-direct").toBuilder().qdiscSenderBypass(true).build()))
        {
            pipeline.openUdp(SocketOptions.udp4(9000).onPort(1).handler((socket, datagram) -> {}));
            final UdpSocket connected = pipeline.openUdp(SocketOptions.udp4(7000)
                .connect(Endpoint.of("10.0.0.2", 9000)));
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD));
            final int run = 16;
            final long directBefore = pipeline.total(CounterType.QDISC_DIRECT, 0);
            final AllocationMeter.Measurement runs = AllocationMeter.measure(operations ->
            {
                long sent = 0;
                for (int i = 0; i < operations; i++)
                {
                    payload.putLong(0, i);
                    final boolean more = i % run != run - 1;
                    while ((more ? connected.sendMore(payload, 0, PAYLOAD) : connected.send(payload, 0, PAYLOAD)) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    sent++;
                }
                return sent;
            }, 200_000, 200_000);
            final long direct = pipeline.total(CounterType.QDISC_DIRECT, 0) - directBefore;
            System.out.println("direct path allocation: " + runs + ", " + direct + " packets directly");
            assertEquals(200_000, runs.result());
            assertTrue(direct > 0, "the direct path was taken");
            assertEquals(0, runs.allocatedBytes(), "sendMore and send on the direct path");
        }
    }

    @Test
    void pipelineCpuThreadsAllocateNothingPerPacket() throws Exception
    {
        try (Pipeline pipeline = Pipeline.start(KIT.system(), config("alloc-cpus")))
        {
            final UdpSocket[] senders = CpuThreadLoad.openSenders(pipeline);
            final long[] cpuThreads = CpuThreadLoad.cpuThreadIds(2);
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD));
            long sent = CpuThreadLoad.send(pipeline, senders, payload, 1_000_000, 0);
            // Windows of a million packets after a million to warm up. What lands in a window besides the packets
            // is not per packet: the JIT's last one-time work (method handle customisation, a class loaded on a rare
            // path), the dispatchers' idle and wake-up work when another build on the machine takes a core. So the
            // steady state is the least of up to ten windows (it stops at the first quiet one), and that must be
            // exactly 0: anything the data path allocated per packet would be in every window, a million times over.
            long least = Long.MAX_VALUE;
            final StringBuilder windows = new StringBuilder();
            for (int window = 0; window < 10 && least > 0; window++)
            {
                final long[] before = CpuThreadLoad.allocated(cpuThreads);
                final long packetsBefore = pipeline.total(CounterType.QDISC_PACKETS, 0);
                sent = CpuThreadLoad.send(pipeline, senders, payload, 1_000_000, sent);
                final long bytes = CpuThreadLoad.sum(before, CpuThreadLoad.allocated(cpuThreads));
                assertEquals(1_000_000, pipeline.total(CounterType.QDISC_PACKETS, 0) - packetsBefore);
                windows.append(' ').append(bytes);
                least = Math.min(least, bytes);
            }
            System.out.println("pipeline CPU threads, bytes allocated per window of 1,000,000 packets:" + windows);
            assertEquals(0, least, "bytes allocated on the CPU threads in the quietest window:" + windows);
        }
    }
}
