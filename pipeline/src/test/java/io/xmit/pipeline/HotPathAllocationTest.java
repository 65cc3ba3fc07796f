package io.xmit.pipeline;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.frame.UdpFrameWriter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.NanoClock;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.pipeline.xps.XpsMask;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One packet's whole trip through the pipeline core, as the actors will drive it: pick the TX queue, write the
 * ring frame (xmit header + Ethernet/IPv4/UDP), parse it back, enqueue it into its queue's pfifo_fast, and every
 * 64 packets bulk-dequeue under BQL, "transmit", complete BQL. A million packets allocate nothing.
 */
class HotPathAllocationTest
{
    private static final int PACKETS = 1_000_000;
    private static final int TX_QUEUES = 4;
    private static final int BULK = 64;

    private final FlowHasher hasher = new FlowHasher(1, 2);
    private final FlowKey[] flows = new FlowKey[16];
    private final SocketQueueState[] sockets = new SocketQueueState[16];
    private final QueueMap map = QueueMap.create(TX_QUEUES, 2, TX_QUEUES)
        .withXpsCpus(0, XpsMask.parseCpus("1", 2, 0))
        .withXpsRxqs(2, XpsMask.parseRxqs("4", TX_QUEUES, 2));
    private final UdpFrameWriter writer = new UdpFrameWriter();
    private final RingFrameHeader header = new RingFrameHeader();
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final UnsafeBuffer ring = new UnsafeBuffer(new byte[256]);
    private final PfifoFast[] qdiscs = new PfifoFast[TX_QUEUES];
    private final ByteQueueLimits[] bql = new ByteQueueLimits[TX_QUEUES];
    private final DescriptorBatch batch = new DescriptorBatch(BULK);

    HotPathAllocationTest()
    {
        for (int i = 0; i < flows.length; i++)
        {
            flows[i] = new FlowKey().setIpv4(FlowKey.PROTO_UDP, 0x0A000001, 0x0A000002 + i, 5000 + i, 11211);
            sockets[i] = new SocketQueueState();
            if ((i & 1) == 0)
            {
                sockets[i].connect();
                sockets[i].recordRxQueue(i & 3);
            }
        }
        for (int q = 0; q < TX_QUEUES; q++)
        {
            qdiscs[q] = new PfifoFast();
            bql[q] = new ByteQueueLimits(new TxQueueState(NanoClock.SYSTEM));
        }
    }

    @Test
    void aMillionPacketsThroughSelectWriteParseEnqueueBulkDequeueAndBqlAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(this::run, PACKETS / 2, PACKETS);

        assertEquals(0, m.allocatedBytes(), "bytes allocated over " + PACKETS + " packets");
        assertEquals(PACKETS, m.result());
    }

    private long run(final int packets)
    {
        long transmitted = 0;
        for (int i = 0; i < packets; i++)
        {
            final int f = i & (flows.length - 1);
            final SocketQueueState socket = sockets[f];
            final int hash = hasher.hash(flows[f]);
            final int txq = TxQueueSelector.queue(TxQueueSelector.pickTx(map, socket, i & 1, hash));
            socket.packetSent();

            header.wrap(ring, 0).flowHash(hash).socketId(f).priority(i & 15).rxQueue(socket.rxQueue());
            final int frameLength = writer.write(ring, RingFrameHeader.HEADER_LENGTH, 2L, 1L, flows[f], 22);
            if (parser.parse(ring, RingFrameHeader.HEADER_LENGTH, frameLength, parsed) != ParseStatus.OK)
            {
                throw new AssertionError("frame " + i + " did not parse");
            }
            qdiscs[txq].enqueue(ring, RingFrameHeader.HEADER_LENGTH, frameLength, header.priority());

            if ((i & (BULK - 1)) == BULK - 1)
            {
                transmitted += drainAll();
                for (final SocketQueueState s : sockets)
                {
                    while (s.inFlight() > 0)
                    {
                        s.packetCompleted();
                    }
                }
            }
        }
        return transmitted + drainAll();
    }

    private long drainAll()
    {
        long transmitted = 0;
        for (int q = 0; q < TX_QUEUES; q++)
        {
            while (!qdiscs[q].isEmpty())
            {
                final int n = qdiscs[q].dequeueBulk(batch, BULK, Math.max(bql[q].avail(), 0));
                final int bytes = (int)batch.bytes();
                qdiscs[q].complete(batch, n);
                bql[q].sent(bytes);
                bql[q].completed(n, bytes);
                transmitted += n;
            }
        }
        return transmitted;
    }
}
