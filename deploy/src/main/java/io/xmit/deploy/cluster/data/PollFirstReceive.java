package io.xmit.deploy.cluster.data;

import akka.actor.typed.Behavior;
import akka.actor.typed.Signal;
import akka.actor.typed.javadsl.Receive;

import java.util.function.Supplier;

/**
 * The receive of a data-plane actor that is told a {@code Poll} per turn of its ring: the Poll goes straight to its
 * handler, every other message (control, a few per socket's life) through the receive built for them. Akka 2.6's
 * built receive matches each message against its cases through a tuple per case, so it allocates per message: at a
 * Poll per datagram or two, that was bytes per packet on the cluster's hop.
 *
 * @param <C> the actor's command type.
 */
final class PollFirstReceive<C> extends Receive<C>
{
    private final C poll;
    private final Supplier<Behavior<C>> onPoll;
    private final Receive<C> rest;

    /**
     * @param poll   the Poll message, compared by identity (an enum constant).
     * @param onPoll what a Poll does.
     * @param rest   the receive of every other message and of signals.
     */
    PollFirstReceive(final C poll, final Supplier<Behavior<C>> onPoll, final Receive<C> rest)
    {
        this.poll = poll;
        this.onPoll = onPoll;
        this.rest = rest;
    }

    @Override
    public Behavior<C> receiveMessage(final C message) throws Exception
    {
        return poll == message ? onPoll.get() : rest.receiveMessage(message);
    }

    @Override
    public Behavior<C> receiveSignal(final Signal signal) throws Exception
    {
        return rest.receiveSignal(signal);
    }
}
