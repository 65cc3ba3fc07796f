package io.xmit.tests;

import io.xmit.actors.Accounting;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One-way traffic that proves "nothing lost, nothing twice, nothing out of order": client sockets on port 1, each
 * connected to one of the receiver sockets on port 0, send datagrams numbered per flow; the receivers' handler checks each
 * flow's numbers arrive as 0, 1, 2, … and counts duplicates and gaps. A flow rides one TX queue (cached), one wire
 * queue and one RX queue (RSS), so its order must survive every fault and restart.
 */
final class SequencedTraffic
{
    static final int RECEIVER_PORT = 9000;
    private static final int PAYLOAD = 16;
    /** How long one send may stay back-pressured (the pipeline making no room at all) before the send fails. */
    static final long BACK_PRESSURE_LIMIT_SECONDS = 30;

    private final Pipeline pipeline;
    private static final int RECEIVE_RING = 4 << 20;

    private final List<UdpSocket> receiverSockets = new ArrayList<>();
    private final List<UdpSocket> clients = new ArrayList<>();
    private final long[] sent;
    private final long[] expected;
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[PAYLOAD]);
    private final long[] received;
    private final AtomicLongArray counts;
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong gaps = new AtomicLong();

    SequencedTraffic(final Pipeline pipeline, final int flows)
    {
        this(pipeline, flows, 1);
    }

    /**
     * {@code receivers} sockets on port 0 (UDP ports 9000, 9001, …, spread over the CPUs, 4 MiB receive rings), flow
     * f sending to receiver f mod receivers.
     */
    SequencedTraffic(final Pipeline pipeline, final int flows, final int receivers)
    {
        this.pipeline = pipeline;
        this.sent = new long[flows];
        this.expected = new long[flows];
        this.received = new long[receivers];
        this.counts = new AtomicLongArray(receivers);
        for (int r = 0; r < receivers; r++)
        {
            final int index = r;
            receiverSockets.add(pipeline.openUdp(SocketOptions.udp4(RECEIVER_PORT + r).onPort(0)
                .receiveBuffer(RECEIVE_RING).handler((socket, datagram) -> onDatagram(index, datagram))));
        }
        for (int f = 0; f < flows; f++)
        {
            clients.add(pipeline.openUdp(SocketOptions.udp4(20_000 + f).onPort(1)
                .connect(Endpoint.of("10.0.0.1", RECEIVER_PORT + f % receivers))));
        }
    }

    /** On the receiving socket's CPU; each flow has one receiver, so each flow's state one writer. */
    private void onDatagram(final int receiver, final ReceivedDatagram datagram)
    {
        final int flow = datagram.buffer().getInt(datagram.payloadOffset());
        final long seq = datagram.buffer().getLong(datagram.payloadOffset() + 8);
        if (seq == expected[flow])
        {
            expected[flow]++;
        }
        else if (seq < expected[flow])
        {
            duplicates.incrementAndGet();
        }
        else
        {
            gaps.incrementAndGet();
            expected[flow] = seq + 1;
        }
        received[receiver]++;
        counts.lazySet(receiver, received[receiver]);
    }

    UdpSocket receiver()
    {
        return receiverSockets.get(0);
    }

    int receiverCount()
    {
        return receiverSockets.size();
    }

    /** The socket id of receiver {@code index}. */
    int receiverId(final int index)
    {
        return receiverSockets.get(index).id();
    }

    /** Datagrams that came with a number already seen on their flow: duplicated, or overtaken (reordered). */
    long duplicates()
    {
        return duplicates.get();
    }

    /** Datagrams received so far, over all receivers. */
    long receivedTotal()
    {
        long total = 0;
        for (int r = 0; r < counts.length(); r++)
        {
            total += counts.get(r);
        }
        return total;
    }

    /**
     * Sends {@code packets} datagrams round-robin over the flows, riding out back-pressure, calling {@code every} with
     * the count sent so far after each {@code step} packets. There is no bound on the whole send (a loaded machine
     * only makes it slower), but each back-pressure episode is bounded: a send that stays refused for
     * {@link #BACK_PRESSURE_LIMIT_SECONDS} without one datagram getting through fails, with the books.
     */
    void send(final long packets, final long step, final LongConsumer every)
    {
        for (long i = 0; i < packets; i++)
        {
            final int flow = (int)(i % sent.length);
            payload.putInt(0, flow);
            payload.putLong(8, sent[flow]);
            long result;
            long episodeStart = 0;
            while ((result = clients.get(flow).send(payload, 0, PAYLOAD)) < 0)
            {
                if (SendResult.BACK_PRESSURED != result)
                {
                    fail("send " + i + " refused: " + SendResult.name(result));
                }
                final long now = System.nanoTime();
                if (0 == episodeStart)
                {
                    episodeStart = now;
                }
                else if (now - episodeStart > TimeUnit.SECONDS.toNanos(BACK_PRESSURE_LIMIT_SECONDS))
                {
                    fail("no progress: packet " + i + " of " + packets + " (flow " + flow + ") back-pressured for " +
                        BACK_PRESSURE_LIMIT_SECONDS + " s without being accepted; books: " +
                        pipeline.accounting().line());
                }
                Thread.onSpinWait();
            }
            sent[flow]++;
            if ((i + 1) % step == 0)
            {
                every.accept(i + 1);
            }
        }
    }

    long sentTotal()
    {
        long total = 0;
        for (final long s : sent)
        {
            total += s;
        }
        return total;
    }

    /**
     * Waits (bounded) until everything sent has arrived, then asserts: every flow's numbers arrived once each and in
     * order, the books balance at rest with nothing dropped, and no RX queue dropped anything.
     */
    void assertAllArrivedOnceInOrder()
    {
        final long total = sentTotal();
        EndToEndSupport.await("all " + total + " datagrams to arrive", () -> receivedTotal() >= total,
            () -> "received " + receivedTotal() + "; books " + pipeline.accounting().line() + "; rx drops " +
                rxDrops() + " " + rxDropsByReason());
        // The handlers' fields are read after their last writes were published through the ordered counts.
        assertEquals(total, receivedTotal(), "datagrams received");
        assertEquals(0, duplicates.get(), "duplicates");
        assertEquals(0, gaps.get(), "gaps (lost or reordered)");
        for (int f = 0; f < sent.length; f++)
        {
            assertEquals(sent[f], expected[f], "flow " + f + ": next number expected");
        }
        final Accounting books = pipeline.verify();
        assertEquals(total, books.accepted(), books.line());
        assertEquals(total, books.transmitted(), books.line());
        assertEquals(0, books.dropped(), books.line());
        assertEquals(0, books.inFlight(), books.line());
        assertEquals(0, rxDrops(), "RX drops");
    }

    String rxDropsByReason()
    {
        final StringBuilder text = new StringBuilder();
        for (final var entry : pipeline.counters().entrySet())
        {
            if (entry.getValue() > 0 && entry.getKey().startsWith("rx_drop"))
            {
                text.append(entry.getKey()).append('=').append(entry.getValue()).append(' ');
            }
        }
        for (int q = 0; q < pipeline.driver(0).rxQueueCount(); q++)
        {
            text.append("nic rxq ").append(q).append(": missed=").append(pipeline.driver(0).stats(q).rxMissed())
                .append(" dropped=").append(pipeline.driver(0).stats(q).rxDropped()).append(' ');
        }
        return text.toString();
    }

    long rxDrops()
    {
        return EndToEndSupport.rxDrops(pipeline, 0);
    }
}
