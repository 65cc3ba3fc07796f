package io.xmit.transport.nic;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.flow.Toeplitz;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The afpacket backend on a veth pair with 4 TX and 4 RX queues whose two ends live in two network namespaces
 * of the test's own (the host's interfaces are never touched): xmit drives one end, the kernel's UDP sockets
 * the other. The xmit end has no address, so its kernel answers nothing; the peer reaches it through a static
 * neighbour entry, since xmit has no ARP yet. Needs root to create namespaces; skips, saying why, otherwise.
 */
class AfPacketDeviceTest
{
    private static final String XMIT_IF = "xmit0";
    private static final String PEER_IF = "peer0";
    private static final int XMIT_IP = 0x0A4D_0001;  // 10.77.0.1, on no interface: xmit answers for it
    private static final int PEER_IP = 0x0A4D_0002;  // 10.77.0.2, the peer kernel's
    private static final int PEER_PORT = 7777;
    private static final int XMIT_PORT = 9999;
    private static final int QUEUES = 4;
    private static final long DEADLINE_NANOS = 10_000_000_000L;
    private static final Pattern ETHER = Pattern.compile("link/ether ([0-9a-f:]{17})");

    private static String xmitNs;
    private static String peerNs;
    private static String unavailable;
    private static long peerMac;

    @BeforeAll
    static void createNamespaces()
    {
        final String id = Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0x7FFF_FFFF);
        xmitNs = "xmit-t-" + id + "-x";
        peerNs = "xmit-t-" + id + "-p";
        unavailable = NetNamespaces.createVethPair(xmitNs, peerNs, XMIT_IF, PEER_IF);
        if (null != unavailable)
        {
            return;
        }
        try
        {
            NetNamespaces.run("ip", "-n", xmitNs, "link", "set", XMIT_IF, "up");
            NetNamespaces.run("ip", "-n", peerNs, "addr", "add", "10.77.0.2/24", "dev", PEER_IF);
            NetNamespaces.run("ip", "-n", peerNs, "link", "set", PEER_IF, "up");
            peerMac = macOf(peerNs, PEER_IF);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("setting up the veth pair failed", ex);
        }
    }

    @AfterAll
    static void removeNamespaces()
    {
        // Removing a namespace removes the veth end in it, and with it the other end.
        NetNamespaces.runQuietly("ip", "netns", "del", xmitNs);
        NetNamespaces.runQuietly("ip", "netns", "del", peerNs);
    }

    @Test
    void missingInterfaceIsNamedWithHowToListTheInterfaces() throws Exception
    {
        final NicException refused = assertThrows(NicException.class,
            () -> NicDevice.open("afpacket:if=xmit-none0,queues=4"));
        assertEquals(Errno.ENODEV, refused.errno());
        assertTrue(refused.getMessage().contains(
            "afpacket: no interface 'xmit-none0' in this network namespace (ip link show lists them)"),
            refused.getMessage());
        // Measured around a second attempt: the first may load classes and the shim, which open files.
        final long before = NetNamespaces.openDescriptors();
        assertThrows(NicException.class, () -> NicDevice.open("afpacket:if=xmit-none0,queues=4"));
        assertEquals(before, NetNamespaces.openDescriptors());
    }

    @Test
    void withoutCapNetRawTheOpenSaysWhatItNeedsAndLeavesNothingBehind() throws Exception
    {
        assumeNamespaces();
        final String spec = "afpacket:if=" + XMIT_IF + ",queues=4";
        final NicException refused = NetNamespaces.inNamespaceWithoutNetRaw(xmitNs,
            () -> assertThrows(NicException.class, () -> NicDevice.open(spec)));
        assertEquals(Errno.EPERM, refused.errno());
        assertTrue(refused.getMessage().contains("afpacket: opening a packet socket needs CAP_NET_RAW: run as " +
            "root, or grant it with `setcap cap_net_raw+ep` on the java binary"), refused.getMessage());
        // Measured around a second attempt: the first may load classes and the shim, which open files.
        final long[] descriptors = NetNamespaces.inNamespaceWithoutNetRaw(xmitNs, () ->
        {
            final long before = NetNamespaces.openDescriptors();
            assertThrows(NicException.class, () -> NicDevice.open(spec));
            return new long[] {before, NetNamespaces.openDescriptors()};
        });
        assertEquals(descriptors[0], descriptors[1], "descriptors before and after a refused open");
        openDevice().close();
    }

    @Test
    void linkReportsTheInterfaceMacAndMtu() throws Exception
    {
        assumeNamespaces();
        try (NicDevice device = openDevice())
        {
            final NicDriver port = device.port(0);
            assertEquals(new NicLink(macOf(xmitNs, XMIT_IF), 1500), port.link().orElseThrow());
            assertEquals(QUEUES, port.txQueueCount());
            assertEquals(QUEUES, port.rxQueueCount());
        }
        try (NicDevice loop = NicDevice.open("loop"))
        {
            assertTrue(loop.port(0).link().isEmpty());
        }
    }

    /** afpacket's bursts are system calls: bound so that a safepoint need not wait for them; loop's and null's not. */
    @Test
    void onlyAfPacketBurstsAreCalledAsSystemCalls() throws Exception
    {
        assumeNamespaces();
        try (NicDevice device = openDevice())
        {
            assertTrue(((NicPort)device.port(0)).burstsAreSyscalls());
        }
        for (final String spec : List.of("loop", "null"))
        {
            try (NicDevice device = NicDevice.open(spec))
            {
                assertFalse(((NicPort)device.port(0)).burstsAreSyscalls(), spec);
            }
        }
    }

    @Test
    void framesSentByTxBurstArriveAtAKernelUdpSocketInThePeerNamespace() throws Exception
    {
        assumeNamespaces();
        final int frames = 256;
        final int burst = 32;
        try (NicDevice device = openDevice();
            DatagramChannel receiver = NetNamespaces.inNamespace(peerNs, () -> udpSocket(PEER_IP, PEER_PORT)))
        {
            final NicDriver port = device.port(0);
            final long xmitMac = port.link().orElseThrow().mac();
            final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(frames * 128, 64));
            final DescriptorBatch batch = new DescriptorBatch(burst);
            final UdpFrameWriter writer = new UdpFrameWriter();
            final int[] lengths = new int[frames];
            long bytes = 0;
            for (int i = 0; i < frames; i++)
            {
                final FlowKey flow = new FlowKey().setIpv4(FlowKey.PROTO_UDP, XMIT_IP, PEER_IP, 5000 + i % 16,
                    PEER_PORT);
                buffer.putInt(i * 128 + writer.headerLength(FlowKey.FAMILY_IPV4), i, ByteOrder.BIG_ENDIAN);
                lengths[i] = writer.write(buffer, i * 128, peerMac, xmitMac, flow, 64);
                bytes += lengths[i];
            }
            final boolean[] seen = new boolean[frames];
            final ByteBuffer datagram = ByteBuffer.allocate(2048);
            int received = 0;
            for (int from = 0; from < frames; from += burst)
            {
                batch.clear();
                for (int i = from; i < from + burst; i++)
                {
                    batch.addExternal(buffer.addressOffset() + i * 128L, lengths[i], 0);
                }
                assertEquals(burst, port.txBurst((from / burst) % QUEUES, batch));
                // Each burst is read before the next leaves, so the peer's socket buffer never overflows.
                final long deadline = System.nanoTime() + DEADLINE_NANOS;
                while (received < from + burst && System.nanoTime() < deadline)
                {
                    datagram.clear();
                    if (receiver.receive(datagram) == null)
                    {
                        Thread.onSpinWait();
                        continue;
                    }
                    assertEquals(64, datagram.position());
                    final int seq = datagram.getInt(0);
                    assertFalse(seen[seq], "datagram " + seq + " twice");
                    seen[seq] = true;
                    received++;
                }
                assertEquals(from + burst, received, "datagrams after the burst from " + from);
            }
            long completedPackets = 0;
            long completedBytes = 0;
            final TxCompletion completion = new TxCompletion();
            long sentPackets = 0;
            long sentBytes = 0;
            for (int q = 0; q < QUEUES; q++)
            {
                assertEquals(0, port.txReclaim(q, completion));
                completedPackets += completion.packets();
                completedBytes += completion.bytes();
                final QueueStats stats = port.stats(q);
                assertEquals(frames / QUEUES, stats.txPackets(), "queue " + q);
                assertEquals(0, stats.txErrors());
                sentPackets += stats.txPackets();
                sentBytes += stats.txBytes();
            }
            assertEquals(frames, completedPackets);
            assertEquals(bytes, completedBytes);
            assertEquals(frames, sentPackets);
            assertEquals(bytes, sentBytes);
        }
    }

    @Test
    void kernelDatagramsArriveThroughRxBurstSpreadOverTheRxQueuesFlowByFlow() throws Exception
    {
        assumeNamespaces();
        final int flows = 64;
        final int perFlow = 2;
        try (NicDevice device = openDevice())
        {
            final NicDriver port = device.port(0);
            neighbour(port.link().orElseThrow());
            final List<DatagramChannel> senders = NetNamespaces.inNamespace(peerNs, () ->
            {
                final List<DatagramChannel> channels = new ArrayList<>();
                for (int f = 0; f < flows; f++)
                {
                    channels.add(udpSocket(PEER_IP, 30000 + f));
                }
                return channels;
            });
            try
            {
                final InetSocketAddress xmit = new InetSocketAddress("10.77.0.1", XMIT_PORT);
                for (int k = 0; k < perFlow; k++)
                {
                    for (int f = 0; f < flows; f++)
                    {
                        senders.get(f).send(ByteBuffer.allocate(16).putInt(0, f).putInt(4, k), xmit);
                    }
                }
            }
            finally
            {
                for (final DatagramChannel sender : senders)
                {
                    sender.close();
                }
            }
            final int[] queueOfFlow = new int[flows];
            Arrays.fill(queueOfFlow, -1);
            final int[] arrivals = new int[flows];
            final Set<Integer> queuesUsed = new HashSet<>();
            final Toeplitz toeplitz = Toeplitz.withDefaultKey();
            final RxBurst rx = new RxBurst(64);
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            long handedOut = 0;
            long handedOutBytes = 0;
            int ours = 0;
            final long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (ours < flows * perFlow && System.nanoTime() < deadline)
            {
                for (int q = 0; q < QUEUES; q++)
                {
                    final int n = port.rxBurst(q, rx);
                    assertTrue(n >= 0, "rx_burst " + n);
                    for (int i = 0; i < n; i++)
                    {
                        rx.wrapFrame(i, view);
                        handedOut++;
                        handedOutBytes += view.capacity();
                        final int flow = ourFlow(view);
                        if (flow < 0)
                        {
                            continue;  // the peer kernel's own chatter (IPv6 neighbour discovery and the like)
                        }
                        ours++;
                        arrivals[flow]++;
                        assertTrue(queueOfFlow[flow] == -1 || queueOfFlow[flow] == q, "flow " + flow + " moved");
                        queueOfFlow[flow] = q;
                        queuesUsed.add(q);
                        final FlowKey key = new FlowKey().setIpv4(FlowKey.PROTO_UDP, PEER_IP, XMIT_IP, 30000 + flow,
                            XMIT_PORT);
                        assertEquals(toeplitz.hash(key, true), rx.rssHash(i), "RSS hash of flow " + flow);
                    }
                    assertEquals(0, port.rxRelease(q, n));
                }
            }
            assertEquals(flows * perFlow, ours);
            for (int f = 0; f < flows; f++)
            {
                assertEquals(perFlow, arrivals[f], "flow " + f);
            }
            assertTrue(queuesUsed.size() > 1, "fanout spread " + flows + " flows over " + queuesUsed);
            long rxPackets = 0;
            long rxBytes = 0;
            for (int q = 0; q < QUEUES; q++)
            {
                final QueueStats stats = port.stats(q);
                rxPackets += stats.rxPackets();
                rxBytes += stats.rxBytes();
                assertEquals(0, stats.rxMissed(), "queue " + q);
            }
            assertEquals(handedOut, rxPackets);
            assertEquals(handedOutBytes, rxBytes);
        }
    }

    @Test
    void anArmedQueueSignalsTheInterruptThreadWhenADatagramArrives() throws Exception
    {
        assumeNamespaces();
        try (NicDevice device = openDevice();
            DatagramChannel sender = NetNamespaces.inNamespace(peerNs, () -> udpSocket(PEER_IP, 31000)))
        {
            final NicDriver port = device.port(0);
            neighbour(port.link().orElseThrow());
            final AtomicIntegerArray signals = new AtomicIntegerArray(QUEUES);
            device.startInterrupts((p, q) -> signals.incrementAndGet(q));
            for (int q = 0; q < QUEUES; q++)
            {
                assertEquals(0, port.armRx(q, true));
            }
            sender.send(ByteBuffer.allocate(16).putInt(0, 0), new InetSocketAddress("10.77.0.1", XMIT_PORT));
            final RxBurst rx = new RxBurst(64);
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            boolean found = false;
            final long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (!found && System.nanoTime() < deadline)
            {
                for (int q = 0; q < QUEUES && !found; q++)
                {
                    // Only a signalled queue is polled: the datagram must have raised its queue's interrupt.
                    if (signals.get(q) == 0)
                    {
                        continue;
                    }
                    final int n = port.rxBurst(q, rx);
                    for (int i = 0; i < n; i++)
                    {
                        rx.wrapFrame(i, view);
                        found |= ourFlow(view) == 1000;
                    }
                    assertEquals(0, port.rxRelease(q, n));
                }
                Thread.onSpinWait();
            }
            assertTrue(found, "the datagram on a signalled queue; signals " + signals);
            for (int q = 0; q < QUEUES; q++)
            {
                assertTrue(signals.get(q) <= 1, "one signal per arming on queue " + q + ": " + signals);
            }
        }
    }

    private static void assumeNamespaces()
    {
        NetNamespaces.assumeAvailable(unavailable);
    }

    private static NicDevice openDevice() throws Exception
    {
        return NetNamespaces.inNamespace(xmitNs,
            () -> NicDevice.open("afpacket:if=" + XMIT_IF + ",queues=" + QUEUES + ",ring=256"));
    }

    private static void neighbour(final NicLink xmit) throws Exception
    {
        NetNamespaces.run("ip", "-n", peerNs, "neigh", "replace", "10.77.0.1", "lladdr", xmit.macText(), "dev",
            PEER_IF, "nud", "permanent");
    }

    private static DatagramChannel udpSocket(final int address, final int port) throws Exception
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
        channel.bind(new InetSocketAddress(String.format("%d.%d.%d.%d", address >>> 24, (address >>> 16) & 0xFF,
            (address >>> 8) & 0xFF, address & 0xFF), port));
        channel.configureBlocking(false);
        return channel;
    }

    /**
     * The flow a frame belongs to: a UDP datagram from the peer to xmit's port carries its flow (30000 + f from
     * the source port, 1000 for the interrupt test's 31000); -1 for anything else.
     */
    private static int ourFlow(final UnsafeBuffer frame)
    {
        if (frame.capacity() < 42 || (frame.getShort(12, ByteOrder.BIG_ENDIAN) & 0xFFFF) != 0x0800 ||
            frame.getByte(23) != FlowKey.PROTO_UDP || frame.getInt(30, ByteOrder.BIG_ENDIAN) != XMIT_IP)
        {
            return -1;
        }
        final int header = (frame.getByte(14) & 0xF) * 4;
        final int source = frame.getShort(14 + header, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        final int destination = frame.getShort(16 + header, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        return destination == XMIT_PORT && source >= 30000 ? source - 30000 : -1;
    }

    private static long macOf(final String namespace, final String device) throws Exception
    {
        final Matcher matcher = ETHER.matcher(NetNamespaces.run("ip", "-n", namespace, "-o", "link", "show", device));
        if (!matcher.find())
        {
            throw new IllegalStateException("no MAC address for " + device + " in " + namespace);
        }
        return Long.parseLong(matcher.group(1).replace(":", ""), 16);
    }
}
