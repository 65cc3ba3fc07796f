package io.xmit.actors.internal.lifecycle;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.ChildFailed;
import akka.actor.typed.PostStop;
import akka.actor.typed.Props;
import akka.actor.typed.Terminated;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;

import java.util.concurrent.CompletableFuture;

/**
 * The parent of every actor of one pipeline: spawns them where they belong (each on its CPU's dispatcher), watches
 * them, and stops them together. A child that fails past its own restart limit stops the whole pipeline with the
 * error logged, rather than leave it half running. When the guardian has stopped (its children first),
 * {@code terminated} completes, and only then does the pipeline release native memory and rings.
 */
public final class PipelineGuardian
{
    public sealed interface Command permits Spawn, StopChild, Stop, ChildStopped
    {
    }

    /** A child to start: its name, behavior and dispatcher. */
    public record Spawn(String name, Behavior<?> behavior, Props props, ActorRef<ActorRef<?>> replyTo) implements Command
    {
    }

    /** Stops a child; the reply comes once it has stopped. */
    public record StopChild(ActorRef<?> child, ActorRef<Boolean> replyTo) implements Command
    {
    }

    /** Stops the pipeline's actors. */
    public record Stop() implements Command
    {
    }

    record ChildStopped(ActorRef<Boolean> replyTo) implements Command
    {
    }

    private PipelineGuardian()
    {
    }

    public static Behavior<Command> create(final CompletableFuture<Throwable> terminated)
    {
        return Behaviors.setup(context -> running(context, terminated));
    }

    @SuppressWarnings("unchecked")
    private static ActorRef<?> spawn(final ActorContext<Command> context, final Spawn spawn)
    {
        return context.spawn((Behavior<Object>)spawn.behavior(), spawn.name(), spawn.props());
    }

    private static Behavior<Command> running(
        final ActorContext<Command> context, final CompletableFuture<Throwable> terminated)
    {
        final Throwable[] failure = new Throwable[1];
        return Behaviors.receive(Command.class)
            .onMessage(Spawn.class, spawn ->
            {
                final ActorRef<?> child = spawn(context, spawn);
                context.watch(child);
                spawn.replyTo().tell(child);
                return Behaviors.same();
            })
            .onMessage(StopChild.class, stop ->
            {
                context.unwatch(stop.child());
                context.watchWith(stop.child(), new ChildStopped(stop.replyTo()));
                context.stop(stop.child());
                return Behaviors.same();
            })
            .onMessage(ChildStopped.class, stopped ->
            {
                stopped.replyTo().tell(Boolean.TRUE);
                return Behaviors.same();
            })
            .onMessage(Stop.class, stop -> Behaviors.stopped())
            .onSignal(ChildFailed.class, failed ->
            {
                context.getLog().error("xmit: actor {} failed past its restart limit; stopping the pipeline",
                    failed.getRef().path().name(), failed.getCause());
                failure[0] = failed.getCause();
                return Behaviors.stopped();
            })
            .onSignal(Terminated.class, gone -> Behaviors.same())
            .onSignal(PostStop.class, signal ->
            {
                // Only now have all the children stopped: whoever waits on this may take their engines over.
                terminated.complete(failure[0]);
                return Behaviors.same();
            })
            .build();
    }
}
