package io.xmit.deploy.cluster.failure;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.deploy.cluster.Deployment;
import io.xmit.deploy.cluster.Node;
import io.xmit.deploy.cluster.Service;
import io.xmit.deploy.cluster.data.AppDataPlane;
import io.xmit.transport.ring.NetworkRings;

import org.agrona.concurrent.UnsafeBuffer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * An app node of a failure test: the file's first service's sockets ({@code per-node N}), each an echo that writes
 * this node's number (its index in the file) into the reply at {@link #NODE_BYTE}. Its handlers count what they sent
 * themselves, so that a node whose system is gone (downed) can still say what it sent. {@code books} prints the data
 * plane's books; SIGTERM runs {@link AppDataPlane.Leave} and prints its books; then the node leaves the cluster.
 */
final class AppRole implements FailureNode.NodeRole
{
    static final int NODE_BYTE = 12;
    private static final int PAYLOAD = 32;
    private static final Duration RECEIPTS = Duration.ofMillis(100);
    private static final Duration ASK = Duration.ofSeconds(10);
    /** A socket opens once the edge is in the receptionist's listing: the cluster may still be forming. */
    private static final Duration OPEN = Duration.ofSeconds(120);

    private final ActorSystem<?> system;
    private final Deployment deployment;
    private final byte number;
    private final ActorRef<AppDataPlane.Command> app;
    private final AtomicLong sent = new AtomicLong();

    AppRole(final ActorSystem<?> system, final Deployment deployment, final Node node, final NetworkRings rings)
    {
        this.system = system;
        this.deployment = deployment;
        this.number = (byte)deployment.nodes().indexOf(node);
        app = system.systemActorOf(AppDataPlane.create(rings, node.host() + ":" + node.dataPort(), 0, RECEIPTS),
            "app-data", Props.empty());
        final Service echo = deployment.services().getFirst();
        for (int index = 0; index < echo.placement().sockets(); index++)
        {
            final UnsafeBuffer reply = new UnsafeBuffer(new byte[PAYLOAD]);
            final int socketIndex = index;
            final AppDataPlane.Opened opened = ask(app, replyTo -> new AppDataPlane.Open(echo.name(), socketIndex,
                (socket, request) -> echo(socket, request, reply), replyTo), OPEN);
            if (null != opened.refusal())
            {
                throw new IllegalStateException("the edge refused socket " + index + ": " + opened.refusal());
            }
            FailureNode.say("socket index=" + index + " id=" + opened.socket().id());
        }
    }

    @Override
    public void command(final String line)
    {
        if ("books".equals(line))
        {
            FailureNode.say(line("appbooks", ask(app, AppDataPlane.GetBooks::new, ASK)));
        }
        else
        {
            FailureNode.say("error unknown command " + line);
        }
    }

    @Override
    public int leave() throws InterruptedException
    {
        final AppDataPlane.Left left = AskPattern.<AppDataPlane.Command, AppDataPlane.Left>ask(app,
            AppDataPlane.Leave::new, deployment.failure().drainDeadline(), system.scheduler()).toCompletableFuture()
            .join();
        FailureNode.say(line("left relayed=" + left.relayed(), left.books()));
        return 0;
    }

    /** What the handlers sent, also after the system is gone. */
    @Override
    public String lastWords()
    {
        return "handlers sent=" + sent.get();
    }

    private void echo(final UdpSocket socket, final ReceivedDatagram request, final UnsafeBuffer reply)
    {
        reply.putBytes(0, request.buffer(), request.payloadOffset(), Math.min(PAYLOAD, request.payloadLength()));
        reply.putByte(NODE_BYTE, number);
        long result;
        int tries = 0;
        while ((result = socket.reply(request, reply, 0, PAYLOAD)) == SendResult.BACK_PRESSURED && ++tries < 100_000)
        {
            Thread.onSpinWait();
        }
        if (result > 0)
        {
            sent.incrementAndGet();
        }
    }

    private static String line(final String head, final AppDataPlane.AppBooks books)
    {
        return head + " sockets=" + books.sockets() + " received=" + books.received() + " sent=" + books.sent() +
            " backPressured=" + books.backPressured() + " refused=" + books.refused() + " malformed=" +
            books.malformed() + " handlerFailed=" + books.handlerFailed();
    }

    private <T> T ask(final ActorRef<AppDataPlane.Command> actor,
        final Function<ActorRef<T>, AppDataPlane.Command> message, final Duration timeout)
    {
        return AskPattern.<AppDataPlane.Command, T>ask(actor, message::apply, timeout, system.scheduler())
            .toCompletableFuture().join();
    }
}
