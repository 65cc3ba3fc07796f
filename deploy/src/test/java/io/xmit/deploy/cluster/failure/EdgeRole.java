package io.xmit.deploy.cluster.failure;

import akka.actor.AddressFromURIString;
import akka.actor.typed.ActorSystem;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PortAddress;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterType;
import io.xmit.deploy.cluster.ClusterNode;
import io.xmit.deploy.cluster.Deployment;
import io.xmit.deploy.cluster.Device;
import io.xmit.deploy.cluster.Node;
import io.xmit.deploy.cluster.Service;
import io.xmit.deploy.cluster.ServiceHandlers;
import io.xmit.deploy.cluster.data.EdgeDataPlane;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The edge of a failure test: the node as {@link ClusterNode} starts it (the device's pipeline, the data plane with
 * the file's service as a reuseport group), and, the test's own, {@link #FLOWS} client sockets on the device's other
 * port that send requests to the service at a fixed rate ({@code load MICROS}: one request every MICROS µs, the flows in turn; {@code quiet} stops it). A
 * request carries its flow; the app node writes its own number into the reply ({@link AppRole#NODE_BYTE}), so the
 * edge knows which node answered each flow and when a flow first moved off a node. {@code books} prints the clients'
 * books, the drops on both ports, the pipeline's verification and each app node's books on the edge.
 */
final class EdgeRole implements FailureNode.NodeRole
{
    static final int FLOWS = 48;
    private static final int CLIENT_PORT = 20_000;

    private final Deployment deployment;
    private final ClusterNode node;
    private final Pipeline pipeline;
    private final Endpoint service;
    private final UdpSocket[] clients = new UdpSocket[FLOWS];
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong notSent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    /** The node (its index in the file) that answered each flow last; 0 before any answer. */
    private final AtomicLongArray servedBy = new AtomicLongArray(FLOWS);
    /** By node index: when a flow it had answered was first answered by another node (ms since the epoch). */
    private final AtomicLongArray firstMovedOff;
    private volatile Thread load;

    EdgeRole(final ActorSystem<?> system, final Deployment deployment, final Node node)
    {
        this.deployment = deployment;
        this.node = ClusterNode.start(system, deployment, node.name(), new ServiceHandlers());
        final Device device = node.devices().getFirst();
        final Service echo = deployment.services().getFirst();
        pipeline = this.node.pipelines().get(device.name());
        final PortAddress address = PortAddress.defaultsFor(device.pipeline().deviceSpec()).get(echo.port());
        service = Endpoint.ipv4(address.ipv4(), echo.udp());
        firstMovedOff = new AtomicLongArray(deployment.nodes().size());
        for (int f = 0; f < FLOWS; f++)
        {
            final int flow = f;
            clients[f] = pipeline.openUdp(SocketOptions.udp4(CLIENT_PORT + f).onPort(1 - echo.port())
                .handler((socket, reply) -> answered(flow, reply.buffer().getByte(reply.payloadOffset() +
                    AppRole.NODE_BYTE))));
        }
    }

    @Override
    public void command(final String line)
    {
        final String[] words = line.split(" ");
        switch (words[0])
        {
            case "load" -> startLoad(Long.parseLong(words[1]));
            case "quiet" -> stopLoad();
            case "books" -> books();
            default -> FailureNode.say("error unknown command " + line);
        }
    }

    @Override
    public int leave()
    {
        stopLoad();
        node.leave();
        return 0;
    }

    @Override
    public String lastWords()
    {
        return "sent=" + sent.get() + " answered=" + answered.get();
    }

    private void answered(final int flow, final int node)
    {
        answered.incrementAndGet();
        final int before = (int)servedBy.getAndSet(flow, node);
        if (0 != before && before != node)
        {
            firstMovedOff.compareAndSet(before, 0, System.currentTimeMillis());
        }
    }

    /** A phase's load: the moves it records are its own (a node's flows may also move when another node leaves). */
    private void startLoad(final long micros)
    {
        for (int n = 0; n < firstMovedOff.length(); n++)
        {
            firstMovedOff.set(n, 0);
        }
        final Thread thread = Thread.ofPlatform().daemon().name("edge-load").unstarted(() -> sendEvery(micros));
        load = thread;
        thread.start();
        FailureNode.say("loading every=" + micros + "us");
    }

    private void stopLoad()
    {
        final Thread thread = load;
        load = null;
        if (null != thread)
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            FailureNode.say("quiet sent=" + sent.get());
        }
    }

    /** One request every {@code micros}, the flows in turn; a send the pipeline refuses is counted, not retried. */
    private void sendEvery(final long micros)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        final long period = TimeUnit.MICROSECONDS.toNanos(micros);
        long next = System.nanoTime();
        for (long n = 0; null != load; n++)
        {
            final int flow = (int)(n % FLOWS);
            payload.putInt(0, flow);
            payload.putLong(4, n);
            if (clients[flow].sendTo(service, payload, 0, payload.capacity()) > 0)
            {
                sent.incrementAndGet();
            }
            else
            {
                notSent.incrementAndGet();
            }
            next += period;
            final long wait = next - System.nanoTime();
            if (wait > 0)
            {
                LockSupport.parkNanos(wait);
            }
        }
    }

    private void books()
    {
        String verified = "ok";
        try
        {
            pipeline.verify();
        }
        catch (final RuntimeException ex)
        {
            verified = ex.getMessage().replace(' ', '_');
        }
        final Map<Integer, Integer> flows = new HashMap<>();
        for (int f = 0; f < FLOWS; f++)
        {
            flows.merge((int)servedBy.get(f), 1, Integer::sum);
        }
        final StringBuilder line = new StringBuilder("edge sent=" + sent.get() + " notSent=" + notSent.get() +
            " answered=" + answered.get() + " dropped=" + droppedOnArrival(0) + " noSocket=" +
            pipeline.total(CounterType.RX_DROP_NO_SOCKET, 0) + " replyDropped=" + droppedOnArrival(1) + " verify=" +
            verified);
        for (int n = 1; n < deployment.nodes().size(); n++)
        {
            line.append(" flows.").append(deployment.nodes().get(n).name()).append('=').append(flows.getOrDefault(n,
                0)).append(" movedOff.").append(deployment.nodes().get(n).name()).append('=')
                .append(firstMovedOff.get(n));
        }
        FailureNode.say(line.toString());
        final EdgeDataPlane.EdgeBooks books = node.books().toCompletableFuture().join().edges()
            .get(node.node().devices().getFirst().name());
        for (final EdgeDataPlane.NodeBooks app : books.nodes())
        {
            FailureNode.say("nodebooks name=" + FailureNode.nameOf(deployment, AddressFromURIString.parse(app.node())) +
                " incarnation=" + app.incarnation() + " live=" + app.live() + " sockets=" + app.sockets() +
                " steered=" + app.steered() + " published=" + app.published() + " received=" + app.received() +
                " unconfirmed=" + app.unconfirmed() + " relayed=" + app.relayed() + " rejected=" + app.rejected() +
                " refused=" + app.refused() + " txNodeDown=" + app.txNodeDown() + " rxNodeDown=" + app.rxNodeDown() +
                " txStaleIncarnation=" + app.txStaleIncarnation());
        }
        FailureNode.say("end books");
    }

    private long droppedOnArrival(final int port)
    {
        return pipeline.accounting().received().get(port).droppedOnArrival();
    }
}
