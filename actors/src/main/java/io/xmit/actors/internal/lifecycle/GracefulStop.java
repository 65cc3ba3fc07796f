package io.xmit.actors.internal.lifecycle;

import akka.Done;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import io.xmit.actors.Accounting;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.StopReport;
import io.xmit.actors.internal.host.HostEngine;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.stage.StageEngine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;

/**
 * A pipeline's graceful stop (see {@code Pipeline.stop}): close the send gate, drain until at rest or the deadline,
 * stop the actors, take over their engines to recover and count what is left, release the device, rings, tracer
 * and counters, report. Also registered with Akka's CoordinatedShutdown, so Ctrl-C drains the pipeline too.
 */
public final class GracefulStop
{
    private static final Logger LOG = LoggerFactory.getLogger(GracefulStop.class);
    private static final long DRAIN_POLL_NANOS = 1_000_000;

    private final PipelineParts parts;
    private final OpenState open;
    private final Books books;
    private final SocketLifecycle sockets;
    private volatile Cancellable shutdownTask;

    public GracefulStop(final PipelineParts parts, final OpenState open, final Books books,
        final SocketLifecycle sockets)
    {
        this.parts = parts;
        this.open = open;
        this.books = books;
        this.sockets = sockets;
    }

    /** Ctrl-C, or the application's own shutdown: from now on the pipeline drains before the actor system goes. */
    public void registerOnShutdown()
    {
        shutdownTask = CoordinatedShutdown.get(parts.system()).addCancellableTask(
            CoordinatedShutdown.PhaseServiceStop(), "xmit-stop-" + parts.config().name(), this::stopOnShutdown);
    }

    /** See {@code Pipeline.stop}. */
    public StopReport stop(final Duration deadline)
    {
        ControlCalls.checkControlThread("stop");
        if (!open.close())
        {
            // Another stop runs or ran: its report, once it is done (a stop on shutdown must not end early).
            return open.awaitReport();
        }
        try
        {
            final StopReport report = stopOnce(deadline);
            open.stopped(report);
            return report;
        }
        catch (final RuntimeException ex)
        {
            open.stopFailed(ex);
            throw ex;
        }
    }

    private StopReport stopOnce(final Duration deadline)
    {
        final long start = System.nanoTime();
        final List<SendGate.Sender> senders = new ArrayList<>();
        for (final UdpSocketImpl socket : parts.sockets().sockets())
        {
            senders.add(socket.sender());
        }
        parts.gate().closeAndWait(senders);
        final boolean drained = !parts.terminated().isDone() && awaitDrained(start + deadline.toNanos());

        try
        {
            ControlCalls.stopGuardian(parts.guardian(), parts.terminated());
        }
        catch (final RuntimeException ex)
        {
            // Some actor did not stop: it may still be in a ring or a burst, so nothing is taken over or released
            // under it (the device, rings and counters stay mapped: a leak, not a crash).
            LOG.error("xmit: pipeline '{}' stopped without releasing its device and rings: {}", parts.config().name(),
                ex.getMessage());
            throw ex;
        }
        RuntimeException failure = null;
        long droppedQueued = 0;
        long droppedInDriver = 0;
        long droppedAwaitingArp = 0;
        List<QueueBooks> finalQueues = List.of();
        try
        {
            // The actors have stopped: their engines are this thread's now. A stage stopped in the middle of a step
            // (a failure past its restart limit, or in back-off when the stop came) finishes it first.
            for (final StageEngine engine : parts.engines().outbound())
            {
                engine.recover();
            }
            for (final StageEngine receiver : sockets.receivers())
            {
                receiver.recover();
            }
            final StageEngines engines = parts.engines();
            for (final RxQueueEngine[] port : engines.rxqs())
            {
                for (final RxQueueEngine rxq : port)
                {
                    rxq.recover();
                    rxq.dropLeftovers();
                }
            }
            sockets.dropLeftovers();
            for (int p = 0; p < engines.qdiscs().length; p++)
            {
                for (int q = 0; q < engines.qdiscs()[p].length; q++)
                {
                    droppedQueued += engines.qdiscs()[p][q].dropLeftovers();
                    droppedInDriver += engines.txqs()[p][q].dropLeftovers();
                }
                if (null != engines.hosts()[p])
                {
                    droppedAwaitingArp += engines.hosts()[p].dropLeftovers();
                }
            }
            finalQueues = books.readDirectly();
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
        }
        final Accounting finalBooks = finalBooks(finalQueues);
        if (null != shutdownTask)
        {
            shutdownTask.cancel();
        }
        failure = release(failure);
        final StopReport report = new StopReport(drained, Duration.ofNanos(System.nanoTime() - start), droppedQueued,
            droppedInDriver, droppedAwaitingArp, finalBooks);
        if (null != failure)
        {
            throw failure;
        }
        if (!drained || !finalBooks.balances())
        {
            LOG.warn("xmit: pipeline '{}' stopped: {}", parts.config().name(), report.line());
        }
        return report;
    }

    /** The books once the engines are this thread's; without the receive side if the device cannot be read. */
    private Accounting finalBooks(final List<QueueBooks> queues)
    {
        final long accepted = books.accepted();
        try
        {
            return new Accounting(accepted, queues, books.received());
        }
        catch (final RuntimeException ex)
        {
            LOG.error("xmit: pipeline '{}': the receive books could not be read at stop: {}", parts.config().name(),
                ex.toString());
            return new Accounting(accepted, queues, List.of());
        }
    }

    /** Closes the device, rings, tracer and counters, each even if another failed; returns the first failure. */
    private RuntimeException release(final RuntimeException earlier)
    {
        RuntimeException failure = earlier;
        for (final AutoCloseable resource : parts.resources())
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                if (null == failure)
                {
                    failure = new IllegalStateException("xmit: closing " + resource + " failed: " + ex, ex);
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        return failure;
    }

    /**
     * Waits until nothing is still on its way, in either direction: every TX queue's books show its ring, backlog and
     * driver empty, every port's receive books its device rings, RX bursts, socket rings and host ring, and every
     * host has read what senders handed it to hold.
     */
    private boolean awaitDrained(final long deadlineNanos)
    {
        while (true)
        {
            try
            {
                if (drained(deadlineNanos))
                {
                    return true;
                }
            }
            catch (final IllegalStateException ex)
            {
                // An actor that does not answer (failed past its limit, say): nothing more will drain.
                return false;
            }
            if (System.nanoTime() - deadlineNanos >= 0)
            {
                return false;
            }
            LockSupport.parkNanos(DRAIN_POLL_NANOS);
        }
    }

    private boolean drained(final long deadlineNanos)
    {
        final List<QueueBooks> queues = books.ask(deadlineNanos);
        final long accepted = books.accepted();
        if (!new Accounting(accepted, queues, books.received()).atRest())
        {
            return false;
        }
        // The datagrams senders handed to a host to hold are outside the books until sent: their ring is read too.
        for (int p = 0; p < parts.ports().length; p++)
        {
            final HostEngine host = parts.engines().hosts()[p];
            if (null != host && parts.ports()[p].host().ringPosition() != host.ringPosition())
            {
                return false;
            }
        }
        return true;
    }

    /** CoordinatedShutdown's task: the stop runs on a thread of its own (it blocks, and must not run on a CPU). */
    private CompletionStage<Done> stopOnShutdown()
    {
        final CompletableFuture<Done> done = new CompletableFuture<>();
        final Thread stopper = new Thread(() ->
        {
            try
            {
                stop(parts.config().stopDeadline());
                done.complete(Done.getInstance());
            }
            catch (final RuntimeException ex)
            {
                done.completeExceptionally(ex);
            }
        }, "xmit-stop-" + parts.config().name());
        stopper.start();
        return done;
    }
}
