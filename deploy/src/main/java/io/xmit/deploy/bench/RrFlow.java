package io.xmit.deploy.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.xmit.actors.DatagramHandler;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One flow of the closed loop, netperf's {@code UDP_RR}: one transaction in flight. The client socket's handler gets
 * the reply, records its RTT and sends the next request from the same call, on the client socket's CPU; the server
 * socket's handler echoes each request. No thread of the bench's own sends: after the first request, the handlers and
 * the client's timer send, on the sockets' CPUs.
 * <p>
 * <b>Hops.</b> Each handler knows its socket's CPU, the RX queue the datagram arrived on
 * ({@link ReceivedDatagram#rxQueue()}) and, after a send, the TX queue it was put on (a connected socket caches its
 * pick, kernel-semantics §1.2: {@code queueState().txQueue()}). Queue q's actors (RX queue, qdisc, TX completion) run
 * on CPU q mod cpus, as the pipeline places them; a hop is counted where the two CPUs differ: request and reply each
 * at their send (TX) and at their delivery (RX). Every counter has one writer, the thread of the socket that counts
 * it, and is read by the round between its windows.
 * <p>
 * <b>Losses.</b> A request or reply dropped on the way (counted in the pipeline's books under its reason) would stop a
 * flow of one transaction in flight for good. As a request/response client does, the client gives each request
 * a timeout ({@link #TIMEOUT_NANOS} in the bench): a timer on the client socket's CPU ({@link #expire}) counts a transaction that old as lost and
 * sends the next request. Each request carries its send time and a sequence number (payload layout below, echoed by
 * the server); a reply whose sequence number is not the request in flight answers one already counted lost: it is
 * counted late, and its RTT is not recorded. The RTT histogram holds answered transactions only.
 * <pre>
 *   0        8        16               32
 *   | sent ns | seq   | zero padding   |
 * </pre>
 */
final class RrFlow
{
    static final int PAYLOAD_LENGTH = 32;
    /** How long the bench's clients wait for a reply before they count the transaction lost and send the next. */
    static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int SENT_OFFSET = 0;
    private static final int SEQUENCE_OFFSET = 8;

    private final int cpus;
    private final long limit;
    private final long timeoutNanos;
    private final BooleanSupplier running;
    private final Recorder rtt;
    private final UnsafeBuffer request = new UnsafeBuffer(new byte[PAYLOAD_LENGTH]);
    private final UnsafeBuffer reply = new UnsafeBuffer(new byte[PAYLOAD_LENGTH]);
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong requestTxHops = new AtomicLong();
    private final AtomicLong replyRxHops = new AtomicLong();
    private final AtomicLong clientRefused = new AtomicLong();
    private final AtomicLong requestRxHops = new AtomicLong();
    private final AtomicLong replyTxHops = new AtomicLong();
    private final AtomicLong crossCpu = new AtomicLong();
    private final AtomicLong serverRefused = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong late = new AtomicLong();
    /** The client socket; then the request in flight, if any: all read and written on the client socket's CPU only. */
    private UdpSocket clientSocket;
    private long sequence;
    private long sentAt;
    private boolean awaiting;
    /** The last refused send's result, or 0. */
    private volatile long refusal;

    /**
     * @param cpus    the pipeline's CPUs.
     * @param limit   transactions after which the flow stops; {@link Long#MAX_VALUE} to run until {@code running}
     *                says no.
     * @param running read before each request after the first: false ends the flow once its reply is in or its
     *                transaction is lost.
     * @param rtt     where each transaction's RTT goes, in ns.
     * @param timeoutNanos how long the client waits for a reply before it counts the transaction lost.
     */
    RrFlow(final int cpus, final long limit, final BooleanSupplier running, final Recorder rtt,
        final long timeoutNanos)
    {
        this.cpus = cpus;
        this.limit = limit;
        this.timeoutNanos = timeoutNanos;
        this.running = running;
        this.rtt = rtt;
    }

    /** Sends the first request; on the client socket's CPU, as every later one is sent. */
    void start(final UdpSocket client)
    {
        clientSocket = client;
        sendRequest(client);
    }

    /**
     * The client's timer, on the client socket's CPU: if the request in flight was sent the timeout or more
     * before {@code now}, counts its transaction lost and sends the next request unless the flow is done.
     */
    void expire(final long now)
    {
        if (awaiting && now - sentAt >= timeoutNanos)
        {
            awaiting = false;
            increment(lost);
            next(clientSocket);
        }
    }

    /** The client socket's handler: the reply is in; the next request goes out unless the flow is done. */
    DatagramHandler client()
    {
        return this::onReply;
    }

    /** The server socket's handler: echoes the request. */
    DatagramHandler server()
    {
        return this::onRequest;
    }

    /**
     * True once no transaction is in flight (each request answered or counted lost), or none ever will be again (the
     * client's send was refused). A refused reply is a lost transaction: the client's timeout recovers it.
     */
    boolean idle()
    {
        return requests.get() == transactions.get() + lost.get() || clientRefused.get() > 0;
    }

    /** True once the flow has {@code limit} answered transactions, or stopped at a refused request. */
    boolean finished()
    {
        return transactions.get() >= limit || clientRefused.get() > 0;
    }

    /** The last refused send's {@link SendResult#name}, or null if none was refused. */
    String refusal()
    {
        final long result = refusal;
        return 0 == result ? null : SendResult.name(result);
    }

    RrTally tally()
    {
        return new RrTally(requests.get(), transactions.get(), requestTxHops.get(), requestRxHops.get(),
            replyTxHops.get(), replyRxHops.get(), crossCpu.get(), clientRefused.get() + serverRefused.get(), lost.get(),
            late.get());
    }

    private void onReply(final UdpSocket socket, final ReceivedDatagram response)
    {
        final int offset = response.payloadOffset();
        if (!awaiting || response.payloadLength() < SEQUENCE_OFFSET + Long.BYTES ||
            response.buffer().getLong(offset + SEQUENCE_OFFSET) != sequence)
        {
            increment(late);
            return;
        }
        awaiting = false;
        rtt.recordValue(Math.max(0, System.nanoTime() - response.buffer().getLong(offset + SENT_OFFSET)));
        if (cpuOf(response.rxQueue()) != socket.cpu())
        {
            increment(replyRxHops);
        }
        increment(transactions);
        next(socket);
    }

    /** Sends the next request, unless the flow has its transactions or the round is over. */
    private void next(final UdpSocket socket)
    {
        if (transactions.get() < limit && running.getAsBoolean())
        {
            sendRequest(socket);
        }
    }

    private void sendRequest(final UdpSocket client)
    {
        sequence++;
        sentAt = System.nanoTime();
        request.putLong(SENT_OFFSET, sentAt);
        request.putLong(SEQUENCE_OFFSET, sequence);
        final long result = client.send(request, 0, PAYLOAD_LENGTH);
        if (result > 0)
        {
            awaiting = true;
            increment(requests);
            if (cpuOf(client.queueState().txQueue()) != client.cpu())
            {
                increment(requestTxHops);
            }
        }
        else
        {
            refusal = result;
            increment(clientRefused);
        }
    }

    private void onRequest(final UdpSocket socket, final ReceivedDatagram received)
    {
        final int rxCpu = cpuOf(received.rxQueue());
        if (rxCpu != socket.cpu())
        {
            increment(requestRxHops);
        }
        final int length = Math.min(PAYLOAD_LENGTH, received.payloadLength());
        reply.putBytes(0, received.buffer(), received.payloadOffset(), length);
        final long result = socket.send(reply, 0, length);
        if (result > 0)
        {
            final int txCpu = cpuOf(socket.queueState().txQueue());
            if (txCpu != socket.cpu())
            {
                increment(replyTxHops);
            }
            if (txCpu != rxCpu)
            {
                increment(crossCpu);
            }
        }
        else
        {
            refusal = result;
            increment(serverRefused);
        }
    }

    /** The CPU queue {@code q}'s actors run on. */
    private int cpuOf(final int q)
    {
        return q % cpus;
    }

    /** A counter with one writer, the calling socket's thread: no atomic read-modify-write needed. */
    private static void increment(final AtomicLong counter)
    {
        counter.lazySet(counter.get() + 1);
    }
}
