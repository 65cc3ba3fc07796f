package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One round of one {@code rr} variant: a pipeline of its own on the {@code loop} device (4 TX and 4 RX queues per
 * port, 2 CPUs) with the variant's XPS preset, and request/response traffic at a fixed offered load. Port B runs
 * one connected client socket per flow; port A answers each flow on a connected socket of its own (as a server has
 * one per connection), flow f's on CPU f mod 2, so the CPU a request's RX queue runs on and the CPU of the socket
 * that answers are independent, as they are for a server thread that picks up any connection. A generator thread
 * paces the requests over the flows, round-robin; each carries its send time, and the client socket's handler
 * records the RTT when the reply comes back.
 * <p>
 * <b>Cross-CPU replies.</b> The answering handler knows the RX queue the request arrived on
 * ({@link io.xmit.actors.ReceivedDatagram#rxQueue()}) and, after its send, the TX queue the reply was put on (a
 * connected socket caches its pick, §1.2: {@code queueState().txQueue()}). RX queue r and TX queue t run on CPUs
 * r mod 2 and t mod 2; a reply counts as cross-CPU when they differ: its TX completion is then handled on another
 * CPU than the request's receive, the cache traffic XPS by RX queue exists to avoid.
 */
final class RrRound
{
    static final String DEVICE = "loop:tx=4,rx=4,ring=1024";
    static final int CPUS = 2;

    private static final int SERVICE_PORT_BASE = 20000;
    private static final int CLIENT_PORT_BASE = 40000;
    private static final int PAYLOAD_LENGTH = 32;
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long STOP_TIMEOUT_SECONDS = 10;
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    /**
     * What one round's window saw.
     *
     * @param rtt       RTT in ns of the replies received in the window.
     * @param replies   replies the server sent in the window.
     * @param crossCpu  of those, replies whose TX queue runs on another CPU than the request's RX queue.
     * @param backPressured the load's sends refused as back-pressured (and retried) in the window.
     * @param nanos     the window's length.
     */
    record Result(Histogram rtt, long replies, long crossCpu, long backPressured, long nanos)
    {
        double crossCpuShare()
        {
            return replies > 0 ? (double)crossCpu / replies : 0.0;
        }
    }

    private final String name;
    private final XpsPreset preset;
    private final int rate;
    private final int flows;
    private final Recorder rtt = new Recorder(3);
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong crossCpu = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicLong replies = new AtomicLong();
    private volatile boolean running = true;

    RrRound(final String name, final XpsPreset preset, final int rate, final int flows)
    {
        this.name = name;
        this.preset = preset;
        this.rate = rate;
        this.flows = flows;
    }

    /** Starts everything, offers the load for {@code warmNanos + windowNanos}, measures the window, stops. */
    Result run(final long warmNanos, final long windowNanos)
    {
        final String systemName = "bench-rr-" + name + "-" + INSTANCES.incrementAndGet();
        final ActorSystem<Void> system =
            ActorSystem.create(Behaviors.empty(), systemName, BenchSystems.quietConfig());
        Thread generator = null;
        try
        {
            final Pipeline pipeline = Pipeline.start(system, PipelineConfig.builder()
                .name(systemName)
                .device(DEVICE)
                .cpus(CPUS)
                .qdiscRingTerm(1 << 22)
                .socketRingTerm(1 << 16)
                .xpsPreset(preset)
                .build());
            try
            {
                final List<UdpSocket> clients = openSockets(pipeline);
                generator = Thread.ofPlatform().name(systemName + "-load").start(() -> offer(clients));
                sleep(warmNanos);
                rtt.reset();
                final long servedBefore = served.get();
                final long crossBefore = crossCpu.get();
                final long backPressuredBefore = backPressured.get();
                final long start = System.nanoTime();
                sleep(windowNanos);
                final Histogram window = rtt.getIntervalHistogram();
                final long nanos = System.nanoTime() - start;
                final Result result = new Result(window, served.get() - servedBefore, crossCpu.get() - crossBefore,
                    backPressured.get() - backPressuredBefore, nanos);
                return result;
            }
            finally
            {
                stopLoad(generator);
                pipeline.close();
            }
        }
        finally
        {
            BenchSystems.terminate(system);
        }
    }

    private List<UdpSocket> openSockets(final Pipeline pipeline)
    {
        final List<UdpSocket> clients = new ArrayList<>();
        for (int f = 0; f < flows; f++)
        {
            final UnsafeBuffer reply = new UnsafeBuffer(new byte[PAYLOAD_LENGTH]);
            pipeline.openUdp(SocketOptions.udp4(SERVICE_PORT_BASE + f).onCpu(f % CPUS)
                .connect(Endpoint.of("10.0.0.2", CLIENT_PORT_BASE + f))
                .handler((socket, request) ->
                {
                    final int length = Math.min(PAYLOAD_LENGTH, request.payloadLength());
                    reply.putBytes(0, request.buffer(), request.payloadOffset(), length);
                    if (socket.send(reply, 0, length) > 0)
                    {
                        served.incrementAndGet();
                        if (request.rxQueue() % CPUS != socket.queueState().txQueue() % CPUS)
                        {
                            crossCpu.incrementAndGet();
                        }
                    }
                }));
            clients.add(pipeline.openUdp(SocketOptions.udp4(CLIENT_PORT_BASE + f).onPort(1).onCpu(f % CPUS)
                .connect(Endpoint.of("10.0.0.1", SERVICE_PORT_BASE + f))
                .handler((socket, response) ->
                {
                    rtt.recordValue(Math.max(0, System.nanoTime() - response.buffer().getLong(
                        response.payloadOffset())));
                    replies.incrementAndGet();
                })));
        }
        return clients;
    }

    /** Paces requests at the offered rate over the client sockets, round-robin, until stopped. */
    private void offer(final List<UdpSocket> clients)
    {
        RequestPacer.offer(clients, PAYLOAD_LENGTH, rate, () -> running, requests, backPressured);
    }

    /** Stops the generator, then waits a bounded time for the replies still in flight. */
    private void stopLoad(final Thread generator)
    {
        running = false;
        if (null == generator)
        {
            return;
        }
        try
        {
            generator.join(TimeUnit.SECONDS.toMillis(STOP_TIMEOUT_SECONDS));
            final long deadline = System.nanoTime() + DRAIN_NANOS;
            while (replies.get() < requests.get() && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while stopping the load", ex);
        }
    }

    private static void sleep(final long nanos)
    {
        try
        {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the load ran", ex);
        }
    }
}
