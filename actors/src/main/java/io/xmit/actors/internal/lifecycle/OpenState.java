package io.xmit.actors.internal.lifecycle;

import io.xmit.actors.StopReport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Whether a pipeline is still open, and the stop's report once there is one. Its monitor is the pipeline's lock: it
 * orders opening and closing sockets, the books' reading of what the sockets sent, and the start of a stop.
 */
public final class OpenState
{
    private final String name;
    private final CompletableFuture<StopReport> stopped = new CompletableFuture<>();
    private volatile boolean closed;

    public OpenState(final String name)
    {
        this.name = name;
    }

    /** Closes the pipeline to control calls; true for the first caller only, the one that runs the stop. */
    synchronized boolean close()
    {
        final boolean first = !closed;
        closed = true;
        return first;
    }

    synchronized boolean isClosed()
    {
        return closed;
    }

    /** Throws unless the pipeline is open; call with this object's lock held where what follows needs it open. */
    public void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("pipeline '" + name + "' is closed");
        }
    }

    void stopped(final StopReport report)
    {
        stopped.complete(report);
    }

    void stopFailed(final Throwable failure)
    {
        stopped.completeExceptionally(failure);
    }

    /** The stop's report if it has finished, else null; an {@link IllegalStateException} if the stop failed. */
    StopReport reportNow()
    {
        if (stopped.isCompletedExceptionally())
        {
            return awaitReport();
        }
        return stopped.getNow(null);
    }

    /** Waits for the stop's report (outside this object's lock, which the running stop needs). */
    StopReport awaitReport()
    {
        try
        {
            return stopped.get();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("xmit: interrupted while waiting for the pipeline to stop", ex);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("xmit: the pipeline's stop failed: " + ex.getCause(), ex.getCause());
        }
    }
}
