package io.xmit.deploy.cluster.failure;

import akka.actor.typed.ActorSystem;
import io.xmit.actors.ReceivedDatagram;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.deploy.cluster.ClusterNode;
import io.xmit.deploy.cluster.Deployment;
import io.xmit.deploy.cluster.Node;
import io.xmit.deploy.cluster.Service;
import io.xmit.deploy.cluster.ServiceHandlers;
import io.xmit.deploy.cluster.data.AppDataPlane;

import org.agrona.concurrent.UnsafeBuffer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An app node of a failure test, started by {@link ClusterNode#start} with the file's first service's handler
 * registered in code: an echo that writes this node's number (its index in the file) into the reply at
 * {@link #NODE_BYTE}. Its handlers count what they sent themselves, so that a node whose system is gone (downed) can
 * still say what it sent. {@code books} prints the node's books; SIGTERM runs {@link ClusterNode#leave} (the drain,
 * then the cluster leave) and prints the books taken at the end of the drain.
 */
final class AppRole implements FailureNode.NodeRole
{
    static final int NODE_BYTE = 12;
    private static final int PAYLOAD = 32;
    /** The sockets bind once the edge is in the receptionist's listing: the cluster may still be forming. */
    private static final Duration OPEN = Duration.ofSeconds(120);

    private final byte number;
    private final ClusterNode node;
    private final AtomicLong sent = new AtomicLong();

    AppRole(final ActorSystem<?> system, final Deployment deployment, final Node node)
    {
        this.number = (byte)deployment.nodes().indexOf(node);
        final Service echo = deployment.services().getFirst();
        this.node = ClusterNode.start(system, deployment, node.name(), new ServiceHandlers().register(echo.name(),
            () ->
            {
                final UnsafeBuffer reply = new UnsafeBuffer(new byte[PAYLOAD]);
                return (socket, request) -> echo(socket, request, reply);
            }));
        final List<String> bound = this.node.ready().toCompletableFuture().orTimeout(OPEN.toMillis(),
            TimeUnit.MILLISECONDS).join();
        FailureNode.say("sockets bound=" + bound.size());
    }

    @Override
    public void command(final String line)
    {
        if ("books".equals(line))
        {
            FailureNode.say(line("appbooks", node.books().toCompletableFuture().join().app().orElseThrow()));
        }
        else
        {
            FailureNode.say("error unknown command " + line);
        }
    }

    @Override
    public int leave()
    {
        node.leave().toCompletableFuture().join();
        node.drainFailure().ifPresent(failure -> FailureNode.say("error drain " + failure));
        FailureNode.say(line("left", node.finalBooks().orElseThrow().app().orElseThrow()));
        return node.drainFailure().isPresent() ? FailureNode.EXIT_FAILED : 0;
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
}
