package io.xmit.tests.bench;

import io.xmit.deploy.bench.TxVariant;
import io.xmit.deploy.bench.XmitTxVariant;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Locale;

/**
 * The afpacket benchmark, run by {@code ./bench-afpacket} inside a namespace that holds one end of a veth pair: in one
 * process and one run, 64-byte UDP frames (18 bytes of payload) sent on that interface by the whole xmit pipeline on
 * the afpacket backend (as {@code xmit bench tx} runs it: two CPUs, a connected socket each; its own address
 * 10.0.0.1, the peer resolved by ARP), by xmit's afpacket {@code tx_burst} alone (64 per call over every queue, from
 * one thread, the kernel's qdisc bypassed), and by a plain kernel UDP socket flood (one {@code send} per datagram,
 * through the kernel's stack and qdisc), each for the same time, reported in Mpps side by side. The raw and kernel
 * sides send from the interface's own address to a peer with a static neighbour entry; the peer's kernel drops what
 * it receives (no socket), which is not measured.
 * <p>
 * Arguments: interface, queues, source IPv4, destination IPv4, destination MAC (aa:bb:…), seconds per side, rounds.
 */
public final class AfPacketTxBench
{
    private static final int PAYLOAD = 18;
    private static final int BURST = 64;
    private static final int PORT = 9;
    private static final long SETTLE_MILLIS = 500;

    private AfPacketTxBench()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String ifName = args[0];
        final int queues = Integer.parseInt(args[1]);
        final String source = args[2];
        final String destination = args[3];
        final long destinationMac = Long.parseLong(args[4].replace(":", ""), 16);
        final long nanos = (long)(Double.parseDouble(args[5]) * 1e9);
        final int rounds = Integer.parseInt(args[6]);
        System.out.printf(Locale.ROOT, "afpacket tx bench on %s (%d queues), 64-byte frames, %d round(s) of %s s " +
            "per side%n", ifName, queues, rounds, args[5]);
        final String spec = "afpacket:if=" + ifName + ",queues=" + queues + ",ring=1024";
        // Round 0 warms up (the JIT; the pipeline's first ARP resolution) and is not reported.
        for (int round = 0; round <= rounds; round++)
        {
            final double raw;
            try (NicDevice device = NicDevice.open(spec))
            {
                raw = xmitTx(device.port(0), queues, ipv4(source), ipv4(destination), destinationMac, nanos);
            }
            final double pipeline = pipelineTx(spec, nanos);
            final double kernel = kernelTx(source, destination, nanos);
            if (0 == round)
            {
                continue;
            }
            System.out.printf(Locale.ROOT, "round %d: xmit pipeline %.3f Mpps | xmit afpacket tx_burst %.3f Mpps | " +
                "kernel UDP socket %.3f Mpps | pipeline/kernel %.2f%n", round, pipeline, raw, kernel,
                pipeline / kernel);
        }
    }

    /**
     * The whole pipeline on the interface, as {@code xmit bench tx} runs it on {@code null}: two CPUs, a connected
     * socket each, 64-byte datagrams to 10.0.0.2:11211 (the port's default address is 10.0.0.1/24, resolved by ARP).
     */
    private static double pipelineTx(final String spec, final long nanos) throws InterruptedException
    {
        try (TxVariant variant = XmitTxVariant.onDevice("xmit-afpacket", spec))
        {
            variant.start();
            Thread.sleep(SETTLE_MILLIS);
            final TxVariant.Result result = variant.runFor(nanos);
            return result.packets() * 1e3 / result.nanos();
        }
    }

    private static double xmitTx(final NicDriver port, final int queues, final int source, final int destination,
        final long destinationMac, final long nanos)
    {
        final long sourceMac = port.link().orElseThrow().mac();
        final int stride = 128;
        final UnsafeBuffer frames = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BURST * stride, 64));
        final UdpFrameWriter writer = new UdpFrameWriter();
        final int[] lengths = new int[BURST];
        for (int i = 0; i < BURST; i++)
        {
            final FlowKey flow = new FlowKey().setIpv4(FlowKey.PROTO_UDP, source, destination, 10000 + i, PORT);
            lengths[i] = writer.write(frames, i * stride, destinationMac, sourceMac, flow, PAYLOAD);
        }
        final DescriptorBatch batch = new DescriptorBatch(BURST);
        final TxCompletion completion = new TxCompletion();
        long sent = 0;
        int queue = 0;
        final long start = System.nanoTime();
        long now = start;
        while (now - start < nanos)
        {
            batch.clear();
            for (int i = 0; i < BURST; i++)
            {
                batch.addExternal(frames.addressOffset() + (long)i * stride, lengths[i], 0);
            }
            final int accepted = port.txBurst(queue, batch);
            if (accepted > 0)
            {
                sent += accepted;
            }
            port.txReclaim(queue, completion);
            queue = (queue + 1) % queues;
            now = System.nanoTime();
        }
        return sent * 1e3 / (now - start);
    }

    private static double kernelTx(final String source, final String destination, final long nanos) throws Exception
    {
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            channel.bind(new InetSocketAddress(source, 0));
            channel.connect(new InetSocketAddress(destination, PORT));
            final ByteBuffer payload = ByteBuffer.allocateDirect(PAYLOAD);
            long sent = 0;
            final long start = System.nanoTime();
            long now = start;
            while (now - start < nanos)
            {
                for (int i = 0; i < BURST; i++)
                {
                    payload.clear();
                    try
                    {
                        sent += channel.write(payload) > 0 ? 1 : 0;
                    }
                    catch (final java.io.IOException ex)
                    {
                        // ENOBUFS: the qdisc is full; the kernel drops, as a socket flood's sender sees it.
                    }
                }
                now = System.nanoTime();
            }
            return sent * 1e3 / (now - start);
        }
    }

    private static int ipv4(final String text)
    {
        final String[] parts = text.split("\\.");
        return Integer.parseInt(parts[0]) << 24 | Integer.parseInt(parts[1]) << 16 | Integer.parseInt(parts[2]) << 8 |
            Integer.parseInt(parts[3]);
    }
}
