package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.cpu.CpuThread;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control plane's calls into the pipeline's actors: asks that block for at most {@link #TIMEOUT}, spawning under
 * the guardian, and the rule that such calls never run on the CPUs those actors need to answer.
 */
public final class ControlCalls
{
    /** The longest a control call (opening a socket, an XPS change, reading the books) waits for an actor. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ControlCalls()
    {
    }

    /** The stage's answer, or an {@link IllegalStateException} naming {@code what} when it fails or takes too long. */
    public static <T> T await(final CompletionStage<T> stage, final String what)
    {
        try
        {
            return stage.toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("xmit: interrupted while " + what, ex);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException("xmit: " + what + " did not complete in time: " + ex, ex);
        }
    }

    /** Spawns {@code behavior} as a child of the pipeline's guardian and waits for it to exist. */
    static ActorRef<?> spawn(final ActorSystem<?> system, final ActorRef<PipelineGuardian.Command> guardian,
        final String name, final Behavior<?> behavior, final Props props)
    {
        return await(AskPattern.ask(guardian,
            (ActorRef<ActorRef<?>> replyTo) -> new PipelineGuardian.Spawn(name, behavior, props, replyTo),
            TIMEOUT, system.scheduler()), "spawning " + name);
    }

    /** Stops the guardian, and so every actor of the pipeline, and waits until they have stopped. */
    static void stopGuardian(
        final ActorRef<PipelineGuardian.Command> guardian, final CompletableFuture<Throwable> terminated)
    {
        guardian.tell(new PipelineGuardian.Stop());
        try
        {
            terminated.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            // Not known to have stopped: whoever called must not take over or release what the actors use.
            Thread.currentThread().interrupt();
            throw new IllegalStateException("xmit: interrupted while waiting for the pipeline's actors to stop", ex);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException("xmit: the pipeline's actors did not stop within " + TIMEOUT, ex);
        }
    }

    /** Control calls block on the pipeline's actors, so they must not run on the CPUs those actors run on. */
    public static void checkControlThread(final String what)
    {
        if (CpuThread.NO_CPU != CpuThread.currentCpu())
        {
            throw new IllegalStateException("xmit: " + what + " blocks until the pipeline's actors answer, so it " +
                "cannot run on xmit CPU " + CpuThread.currentCpu() + " (call it from another thread)");
        }
    }
}
