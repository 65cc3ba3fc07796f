package io.xmit.deploy.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import io.xmit.actors.Pipeline;
import io.xmit.actors.ReceiveBooks;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.deploy.cluster.data.EdgeDataPlane;

/**
 * The edge of the failover phase ({@link FailoverPhase}): the {@code cluster} variant's edge ({@link EdgeNode}), with
 * clients of its own, one per flow, whose replies name the app node that answered ({@link BenchPipeline#NODE_OFFSET})
 * into a {@link FailoverBook}; a load that stops and starts again between kills; the time its membership removed each
 * node; and the books of the whole run, checked as the failure test checks them ({@link #balance}).
 */
final class FailoverEdge implements AutoCloseable
{
    private final EdgeNode edge;
    private final int sockets;
    private final FailoverBook book;
    private final UdpSocket[] clients;
    private final Map<String, Long> removed = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile Thread load;

    /**
     * What the books of the run so far say once the load is quiet.
     *
     * @param sent         requests the clients sent.
     * @param accounted    answered + dropped on the edge + what each app node incarnation left unanswered.
     * @param notDelivered replies dropped on the clients' port and requests the pipeline refused to send.
     * @param lost         what the node at the address asked for left unanswered ({@code published - relayed}).
     * @param problems     empty if its books and the live nodes' are exact, else what is not.
     */
    record Balance(long sent, long accounted, long notDelivered, long lost, String problems)
    {
        /** Sent and not accounted for: 0 while the books balance. */
        long residual()
        {
            return sent - accounted;
        }
    }

    /**
     * @param port    the cluster port the app nodes join.
     * @param sockets the remote sockets the edge steers to when every app node is up.
     */
    FailoverEdge(final int port, final int sockets, final int flows, final DataPathThreads threads)
    {
        this.sockets = sockets;
        edge = new EdgeNode(port, sockets, threads);
        book = new FailoverBook(flows);
        edge.system().systemActorOf(removals(), "failover-removals", Props.empty());
        final Pipeline pipeline = edge.pipeline().pipeline();
        clients = new UdpSocket[flows];
        for (int f = 0; f < flows; f++)
        {
            final int flow = f;
            clients[f] = pipeline.openUdp(SocketOptions.udp4(BenchPipeline.CLIENT_PORT + f).onPort(1)
                .onCpu(f % BenchPipeline.CPUS).handler((socket, reply) ->
                {
                    book.answered(flow, reply.buffer().getInt(reply.payloadOffset() + BenchPipeline.NODE_OFFSET),
                        System.nanoTime());
                    answered.incrementAndGet();
                }));
        }
    }

    /** Records when the edge's membership removed each node: the end of a removal time. */
    private Behavior<ClusterEvent.MemberRemoved> removals()
    {
        return Behaviors.setup(context ->
        {
            Cluster.get(context.getSystem()).subscriptions().tell(Subscribe.create(context.getSelf(),
                ClusterEvent.MemberRemoved.class));
            return Behaviors.receiveMessage(event ->
            {
                removed.putIfAbsent(event.member().address().toString(), System.nanoTime());
                return Behaviors.same();
            });
        });
    }

    FailoverBook book()
    {
        return book;
    }

    /** When the membership removed the node at {@code address}, or null if it has not. */
    Long removedAt(final String address)
    {
        return removed.get(address);
    }

    /**
     * Once every app node's socket is steered to, starts offering {@code rate} requests per second over the flows in
     * turn; returns when it started ({@link System#nanoTime()}).
     */
    long startLoad(final long rate)
    {
        if (null != load)
        {
            throw new IllegalStateException("the load runs already");
        }
        BenchClusterNodes.await(sockets + " remote sockets steered to", () -> edge.books().nodes().stream()
            .mapToInt(EdgeDataPlane.NodeBooks::steered).sum() == sockets, BenchClusterNodes.FORMATION);
        final long started = System.nanoTime();
        final Thread thread = Thread.ofPlatform().daemon().name("xmit-bench-failover-load").unstarted(() ->
            offer(TimeUnit.SECONDS.toNanos(1) / rate));
        load = thread;
        thread.start();
        return started;
    }

    /** Stops the load; requests may still be in flight. */
    void quiet() throws InterruptedException
    {
        final Thread thread = load;
        load = null;
        if (null != thread)
        {
            thread.join();
        }
    }

    /** One request every {@code interval}, the flows in turn; a back-pressured send retried, a refused one counted. */
    private void offer(final long interval)
    {
        RequestPacer.pace(BenchPipeline.PAYLOAD, clients.length, () -> interval, () -> null != load,
            (flow, payload, length) ->
            {
                final long result = clients[flow].sendTo(BenchPipeline.SERVICE, payload, 0, length);
                if (SendResult.BACK_PRESSURED == result || SendResult.SEND_BUFFER_FULL == result)
                {
                    return RequestPacer.RETRY;
                }
                (result > 0 ? sent : refused).incrementAndGet();
                return RequestPacer.NEXT;
            });
    }

    /** The books of the run so far, the node at {@code lost}'s unanswered requests its loss. */
    Balance balance(final String lost)
    {
        final List<ReceiveBooks> received = edge.pipeline().pipeline().accounting().received();
        return balance(sent.get(), answered.get(), received.get(0).droppedOnArrival(),
            received.get(1).droppedOnArrival() + refused.get(), edge.books().nodes(), lost);
    }

    /**
     * The failure test's books: every request sent is answered, dropped on the edge under a reason, or left
     * unanswered by an app node ({@link Balance#residual()} 0); a live node left none, and the node at {@code lost},
     * removed without leaving, no more than its books on the edge name as possibly lost ({@code rxNodeDown ≤
     * unanswered ≤ unconfirmed + rxNodeDown + txNodeDown}), and had no frame rejected, refused or stale. The earlier
     * incarnations' were checked at their own kill.
     */
    static Balance balance(final long sent, final long answered, final long dropped, final long notDelivered,
        final List<EdgeDataPlane.NodeBooks> nodes, final String lost)
    {
        final StringBuilder problems = new StringBuilder();
        long accounted = answered + dropped;
        long lostThere = 0;
        for (final EdgeDataPlane.NodeBooks node : nodes)
        {
            final long left = node.published() - node.relayed();
            accounted += left;
            if (node.node().equals(lost))
            {
                lostThere += left;
                if (node.live() || node.published() != node.received() + node.unconfirmed() + node.rxNodeDown() ||
                    left < node.rxNodeDown() || left > node.unconfirmed() + node.rxNodeDown() + node.txNodeDown() ||
                    0 != node.rejected() + node.refused() + node.txStaleIncarnation())
                {
                    problems.append("; killed ").append(node.node()).append(" left ").append(left)
                        .append(" unanswered, live, not bounded by its books or with frames rejected, refused or " +
                            "stale: ").append(node);
                }
            }
            else if (node.live() && 0 != left)
            {
                problems.append("; live ").append(node.node()).append(" left ").append(left).append(" unanswered");
            }
        }
        return new Balance(sent, accounted, notDelivered, lostThere, problems.isEmpty() ? "" : problems.substring(2));
    }


    @Override
    public void close()
    {
        load = null;
        edge.close();
    }
}
