package io.xmit.deploy.cluster.data;

import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.ReceiveBuilder;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A relay's or a remote socket receiver's Poll goes to its handler and nothing else; every other message reaches its
 * case in the built receive, and signals go there too. Whether it allocates is for the data path's measurement to
 * show (bench cluster's marginal bytes per packet): Akka 2.6's built receive allocates a tuple per case it tries, which
 * JFR finds in the running actors, but in a tight loop like this one the JIT removes it from the built receive as well.
 */
class PollFirstReceiveTest
{
    private interface Command
    {
    }

    private enum Poll implements Command
    {
        INSTANCE
    }

    private record Other(int value) implements Command
    {
    }

    private long polls;
    private final List<Integer> others = new ArrayList<>();

    private Behavior<Command> onPoll()
    {
        polls++;
        return Behaviors.same();
    }

    private Receive<Command> rest()
    {
        return ReceiveBuilder.<Command>create().onMessage(Other.class, other ->
        {
            others.add(other.value());
            return Behaviors.same();
        }).build();
    }

    @Test
    void aPollGoesToItsHandlerAndEveryOtherMessageToItsCase() throws Exception
    {
        final Receive<Command> receive = new PollFirstReceive<>(Poll.INSTANCE, this::onPoll, rest());
        receive.receiveMessage(Poll.INSTANCE);
        receive.receiveMessage(new Other(7));
        receive.receiveMessage(Poll.INSTANCE);
        receive.receiveMessage(new Other(8));
        assertEquals(2, polls);
        assertEquals(List.of(7, 8), others);
        assertEquals(Behaviors.unhandled(), receive.receiveSignal(PostStop.instance()),
            "a signal: the built receive's");
    }
}
