package io.xmit.deploy.cluster;

import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterType;
import io.xmit.deploy.bench.RequestPacer;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load for trying a cluster, {@code xmit cluster run --load RATE} on an edge whose service is on a {@code loop}
 * device: client sockets on the device's other port, connected to the service's address, send requests at
 * {@code RATE} per second ({@link RequestPacer}, each request carrying its send time); the replies come back through
 * the app nodes. Once a second a line: replies/s and the RTT percentiles of that second; at the end the client's
 * books: every request sent is answered, dropped on the edge under a reason, or still unanswered.
 */
final class ClusterLoad
{
    private static final int PAYLOAD = 16;
    private static final int FIRST_CLIENT_PORT = 30_000;
    /** How long the end waits for the replies still in flight. */
    private static final Duration ANSWERS_WAIT = Duration.ofSeconds(5);

    private final Pipeline pipeline;
    private final Service service;
    private final int clientPort;
    private final PrintStream out;
    private final Recorder rtt = new Recorder(3);
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean reported;
    private Thread pacer;
    private Thread ticker;

    private ClusterLoad(final Pipeline pipeline, final Service service, final int clientPort, final PrintStream out)
    {
        this.pipeline = pipeline;
        this.service = service;
        this.clientPort = clientPort;
        this.out = out;
    }

    /**
     * Starts {@code rate} requests/s over {@code flows} client sockets to the first service of this edge, for
     * {@code duration} (zero: until {@link #stop}).
     *
     * @throws IllegalArgumentException naming the option: no service on this node's devices, a device that is not a
     *                                  two-port loop device.
     */
    static ClusterLoad start(final ClusterNode node, final Deployment deployment, final int rate, final int flows,
        final Duration duration, final PrintStream out)
    {
        final Service service = deployment.services().stream()
            .filter(each -> node.pipelines().containsKey(each.device())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("--load: node " + node.node().name() + " is the edge " +
                "of no service; load is offered on an edge, to its service"));
        final Pipeline pipeline = node.pipelines().get(service.device());
        if (!pipeline.config().device().startsWith("loop") || pipeline.portCount() < 2)
        {
            throw new IllegalArgumentException("--load: device " + service.device() + " is " +
                pipeline.config().device() + "; load needs a loop device, whose other port the clients use");
        }
        final ClusterLoad load = new ClusterLoad(pipeline, service, 0 == service.port() ? 1 : 0, out);
        final Endpoint address = Endpoint.ipv4(pipeline.config().ports().get(service.port()).ipv4(), service.udp());
        final List<UdpSocket> clients = new ArrayList<>();
        for (int f = 0; f < flows; f++)
        {
            clients.add(pipeline.openUdp(SocketOptions.udp4(FIRST_CLIENT_PORT + f).onPort(load.clientPort)
                .connect(address).handler((socket, reply) ->
                    load.replied(reply.buffer().getLong(reply.payloadOffset())))));
        }
        out.printf(Locale.ROOT, "load: %,d requests/s to %s (service %s) from %d flows on port %d of %s%s%n", rate,
            address, service.name(), flows, load.clientPort, service.device(),
            duration.isZero() ? "" : ", for " + duration.toSeconds() + " s");
        load.pacer = Thread.ofPlatform().name("xmit-cluster-load").start(() ->
            RequestPacer.offer(clients, PAYLOAD, rate, load.running::get, load.requests, load.backPressured));
        load.ticker = Thread.ofPlatform().daemon().name("xmit-cluster-load-view").start(() -> load.tick(duration));
        return load;
    }

    private void replied(final long sentAt)
    {
        rtt.recordValue(Math.max(0, System.nanoTime() - sentAt));
        replies.incrementAndGet();
    }

    /** A line a second until the duration is over or the load stopped; then the books. */
    private void tick(final Duration duration)
    {
        final long end = duration.isZero() ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        long last = 0;
        try
        {
            while (!stopped.await(1, TimeUnit.SECONDS))
            {
                final long now = replies.get();
                final Histogram second = rtt.getIntervalHistogram();
                out.printf(Locale.ROOT, "load: %,d replies/s, RTT p50 %d us, p99 %d us, max %d us%n", now - last,
                    second.getValueAtPercentile(50) / 1_000, second.getValueAtPercentile(99) / 1_000,
                    second.getMaxValue() / 1_000);
                last = now;
                if (System.nanoTime() >= end)
                {
                    finish();
                    return;
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops offering, waits a little for the replies in flight, prints the client's books (once). */
    void stop()
    {
        stopped.countDown();
        finish();
    }

    private synchronized void finish()
    {
        if (reported)
        {
            return;
        }
        reported = true;
        running.set(false);
        try
        {
            pacer.join();
            final long deadline = System.nanoTime() + ANSWERS_WAIT.toNanos();
            while (replies.get() + dropped() < requests.get() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final long sent = requests.get();
        final long answered = replies.get();
        final long requestDrops = drops(service.port());
        final long replyDrops = drops(clientPort);
        out.printf(Locale.ROOT, "load books: sent %d = answered %d + requests dropped on port %d %d + replies " +
            "dropped on port %d %d + unanswered %d; sends back-pressured and retried %d%n", sent, answered,
            service.port(), requestDrops, clientPort, replyDrops, sent - answered - requestDrops - replyDrops,
            backPressured.get());
    }

    private long dropped()
    {
        return drops(service.port()) + drops(clientPort);
    }

    /** What the port dropped on receive, under every reason ({@link ClusterNode.ServiceBooks#DROPS}). */
    private long drops(final int port)
    {
        long drops = 0;
        for (final CounterType type : ClusterNode.ServiceBooks.DROPS)
        {
            drops += pipeline.total(type, port);
        }
        return drops;
    }
}
