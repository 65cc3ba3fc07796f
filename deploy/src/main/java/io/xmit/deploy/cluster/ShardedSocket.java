package io.xmit.deploy.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.sharding.typed.ShardedDaemonProcessSettings;
import akka.cluster.sharding.typed.javadsl.ShardedDaemonProcess;
import io.xmit.actors.DatagramHandler;
import io.xmit.deploy.cluster.data.AppDataPlane;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * One socket of a {@code sharded N} service, as an instance of Akka's {@code ShardedDaemonProcess}: instance i opens
 * socket index i of the service through its node's {@link AppDataPlane}, and when sharding stops it (a rebalance, or
 * its node leaving) closes that socket gracefully ({@link AppDataPlane.Close}) before it stops. Sharding keeps all N
 * instances running among the nodes of the service's role, and starts those of a lost node on another.
 */
final class ShardedSocket
{
    sealed interface Command permits Stop, WasOpened, WasClosed
    {
    }

    /** Sharding's stop message (hand-off): close the socket, then stop. */
    enum Stop implements Command
    {
        INSTANCE
    }

    record WasOpened(AppDataPlane.Opened opened) implements Command
    {
    }

    record WasClosed(AppDataPlane.Closed closed) implements Command
    {
    }

    private ShardedSocket()
    {
    }

    /** The daemon process's name: one per service. */
    static String processName(final Service service)
    {
        return "xmit-sockets-" + service.name();
    }

    /**
     * Runs {@code service}'s instances on this node as sharding places them; every node of the service's role calls
     * it, no other node does.
     */
    static void init(final ActorSystem<?> system, final ActorRef<AppDataPlane.Command> app, final Service service,
        final Supplier<? extends DatagramHandler> handlers)
    {
        ShardedDaemonProcess.get(system).init(Command.class, processName(service), service.placement().sockets(),
            index -> create(app, service.name(), index, handlers),
            ShardedDaemonProcessSettings.create(system).withRole(service.role().label()), Optional.of(Stop.INSTANCE));
    }

    static Behavior<Command> create(final ActorRef<AppDataPlane.Command> app, final String service, final int index,
        final Supplier<? extends DatagramHandler> handlers)
    {
        return Behaviors.setup(context ->
        {
            app.tell(new AppDataPlane.Open(service, index, handlers.get(),
                context.messageAdapter(AppDataPlane.Opened.class, WasOpened::new)));
            return Behaviors.receive(Command.class)
                .onMessage(WasOpened.class, opened ->
                {
                    // A refused socket stays closed while this instance lives here: the refusal names why.
                    if (null != opened.opened().refusal())
                    {
                        context.getLog().warn("socket {} of service {} was refused: {}", index, service,
                            opened.opened().refusal());
                    }
                    return Behaviors.same();
                })
                .onMessageEquals(Stop.INSTANCE, () ->
                {
                    app.tell(new AppDataPlane.Close(service, index,
                        context.messageAdapter(AppDataPlane.Closed.class, WasClosed::new)));
                    return Behaviors.receive(Command.class)
                        .onMessage(WasClosed.class, closed -> Behaviors.stopped())
                        .build();
                })
                .build();
        });
    }
}
