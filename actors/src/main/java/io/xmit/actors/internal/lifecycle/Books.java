package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.Accounting;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.ReceiveBooks;
import io.xmit.actors.StopReport;
import io.xmit.actors.internal.host.HostEngine;
import io.xmit.actors.internal.qdisc.QdiscActor;
import io.xmit.actors.internal.rxq.DeviceRxCounters;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.transport.nic.NicSpec;

import org.agrona.concurrent.status.AtomicCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline's books ({@link Accounting}): each TX queue's part, read on its qdisc's own thread (or read directly
 * once the actors stand still), what the sockets and hosts accepted, read after them, and then each port's receive
 * books ({@link ReceiveBooks}), read from its counters and its device, each count after the ones it is compared with.
 */
public final class Books
{
    /** The shortest ask (Akka refuses a zero timeout): what a stop past its deadline gives an actor to answer. */
    private static final long MIN_ASK_NANOS = 1_000_000;

    private final PipelineParts parts;
    private final OpenState open;

    public Books(final PipelineParts parts, final OpenState open)
    {
        this.parts = parts;
        this.open = open;
    }

    /** See {@code Pipeline.accounting}. */
    public Accounting accounting()
    {
        ControlCalls.checkControlThread("accounting");
        synchronized (open)
        {
            if (open.isClosed())
            {
                final StopReport report = open.reportNow();
                if (null == report)
                {
                    throw new IllegalStateException("pipeline '" + parts.config().name() + "' is closed");
                }
                return report.books();
            }
        }
        if (parts.terminated().isDone())
        {
            // A failure stopped the actors: their engines stand still, and are read directly.
            final List<QueueBooks> books = readDirectly();
            final long accepted = accepted();
            return new Accounting(accepted, books, received());
        }
        // The books first, what the sockets accepted after them (Accounting's contract).
        final List<QueueBooks> books = ask(System.nanoTime() + ControlCalls.TIMEOUT.toNanos());
        final long accepted = accepted();
        return new Accounting(accepted, books, received());
    }

    /** The books, if they balance; else an {@link IllegalStateException} naming what does not. */
    public Accounting verify()
    {
        final Accounting books = accounting();
        if (!books.balances())
        {
            throw new IllegalStateException("xmit: pipeline '" + parts.config().name() + "' books do not balance: " +
                books.line());
        }
        return books;
    }

    /** Each TX queue's books, read on its qdisc's thread; all of them by {@code deadlineNanos} or an exception. */
    List<QueueBooks> ask(final long deadlineNanos)
    {
        final List<QueueBooks> books = new ArrayList<>();
        for (final ActorRef<QdiscActor.Command>[] port : parts.qdiscs())
        {
            for (final ActorRef<QdiscActor.Command> qdisc : port)
            {
                final Duration left = Duration.ofNanos(Math.max(MIN_ASK_NANOS, deadlineNanos - System.nanoTime()));
                books.add(ControlCalls.await(AskPattern.ask(qdisc, QdiscActor.GetBooks::new, left,
                    parts.system().scheduler()), "reading the books of " + qdisc.path().name()));
            }
        }
        return books;
    }

    /** Each TX queue's books read on this thread: only once the actors that own the engines have stopped. */
    List<QueueBooks> readDirectly()
    {
        final StageEngines engines = parts.engines();
        final List<QueueBooks> books = new ArrayList<>();
        for (int p = 0; p < engines.qdiscs().length; p++)
        {
            for (int q = 0; q < engines.qdiscs()[p].length; q++)
            {
                books.add(engines.qdiscs()[p][q].books(engines.txqs()[p][q]));
            }
        }
        return books;
    }

    /** Every port's receive books, read now. */
    List<ReceiveBooks> received()
    {
        final List<ReceiveBooks> received = new ArrayList<>();
        for (int p = 0; p < parts.ports().length; p++)
        {
            received.add(received(p));
        }
        return received;
    }

    /**
     * One port's receive books. Read downstream first: what the sockets and the host did, then what the RX queues
     * handed them, then what the RX queues took, then the device (and before all, on a loop device, what the other
     * port's device sent), so that each "in flight" between two counts is never negative.
     */
    private ReceiveBooks received(final int port)
    {
        final CountersFile counters = parts.counters();
        final boolean loop = NicSpec.Backend.LOOP == parts.device().spec().backend();
        final long wireSent = loop ? parts.deviceRx()[1 - port].transmitted() : ReceiveBooks.NO_WIRE;
        final long socketDelivered;
        final long socketDropClosed;
        synchronized (open)
        {
            socketDelivered = counters.total(CounterType.SOCKET_DELIVERED, port) +
                parts.retiredDelivered()[port].get();
            socketDropClosed = parts.closedDrops()[port].get();
        }
        final long hostIgnored = counters.total(CounterType.HOST_IGNORED, port);
        final long hostFailed = counters.total(CounterType.HOST_DROP_FAILED, port);
        final long hostTaken = counters.total(CounterType.HOST_RX_FRAMES, port);
        final long toSockets = counters.total(CounterType.RX_DELIVERED, port);
        final long toHost = counters.total(CounterType.HOST_RX_QUEUED, port);
        final long dropMalformed = counters.total(CounterType.RX_DROP_MALFORMED, port);
        final long dropUnsupported = counters.total(CounterType.RX_DROP_UNSUPPORTED, port);
        final long dropNoSocket = counters.total(CounterType.RX_DROP_NO_SOCKET, port);
        final long dropRingFull = counters.total(CounterType.RX_DROP_SOCKET_RING_FULL, port);
        final long dropNodeDown = counters.total(CounterType.RX_DROP_NODE_DOWN, port);
        final long dropFailed = counters.total(CounterType.RX_DROP_FAILED, port);
        final long dropShutdown = counters.total(CounterType.RX_DROP_SHUTDOWN, port);
        final long dropHostRingFull = counters.total(CounterType.HOST_DROP_RING_FULL, port);
        final long taken = counters.total(CounterType.RX_PACKETS, port);
        final DeviceRxCounters.Totals device = parts.deviceRx()[port].refresh();
        return new ReceiveBooks(port, wireSent, device.placed(), device.missed(), device.dropped(), taken, toSockets,
            toHost, dropMalformed, dropUnsupported, dropNoSocket, dropRingFull, dropFailed, dropShutdown,
            dropHostRingFull, socketDelivered, socketDropClosed, hostTaken, hostIgnored, hostFailed, dropNodeDown);
    }

    /** What every socket, open or closed, and every host has sent; under the lock that moves a closing socket's. */
    long accepted()
    {
        synchronized (open)
        {
            long accepted = 0;
            for (final AtomicCounter retired : parts.retiredSent())
            {
                accepted += retired.get();
            }
            for (final UdpSocketImpl socket : parts.sockets().sockets())
            {
                accepted += socket.sentCount();
            }
            for (final HostEngine host : parts.engines().hosts())
            {
                accepted += null == host ? 0 : host.sent();
            }
            return accepted;
        }
    }
}
