package io.xmit.deploy;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.ConfigFactory;
import io.aeron.exceptions.AeronException;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.deploy.bench.RequestPacer;
import io.xmit.transport.nic.NicException;
import io.xmit.actors.trace.TraceConfig;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The built-in scenario of {@code xmit run}. Port A (10.0.0.1) runs a UDP request/response service on port 11211
 * with one SO_REUSEPORT socket per CPU, like a memcached server's worker threads: the RX path hands each request to
 * the socket on the CPU its RX queue runs on, whose handler replies in place. Port B (10.0.0.2) runs the clients,
 * one connected socket per flow, offering a steady load from one generator thread. A live line per second; at the
 * end (the duration, or Ctrl-C) the load stops, the replies still in flight are waited for, and a summary is
 * printed. On {@code afpacket}, one port on a kernel interface, there is no port B: the service answers the hosts on
 * the link (and the port's host actor their ARP and ping), and the summary counts what it sent and delivered.
 */
final class RunScenario
{
    static final int SERVICE_PORT = 11211;
    static final int FIRST_CLIENT_PORT = 40000;
    /**
     * SO_RCVBUF of each service socket, as a UDP server sets a large one: it takes a whole CPU's share of requests
     * (a second of them at the default rate), where each client socket takes one flow's.
     */
    static final int SERVICE_RECEIVE_BUFFER = 4 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(RunScenario.class);
    /** A request: its send time, then padding to a small datagram's length. */
    private static final int PAYLOAD = 32;
    private static final long DRAIN_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long HOOK_WAIT_S = 30;
    /** The progress bar's width: with the replies/s and the RTT, a live line of about 70 columns. */
    private static final int BAR_WIDTH = 10;

    private final Settings settings;
    private final boolean verbose;
    private final Path jsonFile;
    private final PrintStream out;
    private final LiveOutput live;
    private final PrintStream err;
    private final Load load;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);

    RunScenario(final Settings settings, final boolean verbose, final Path jsonFile, final PrintStream out,
        final Terminal terminal, final PrintStream err)
    {
        this.settings = settings;
        this.verbose = verbose;
        this.jsonFile = jsonFile;
        this.out = out;
        this.live = new LiveOutput(out, terminal);
        this.err = err;
        this.load = new Load(settings.rate(), settings.flows());
    }

    int run()
    {
        // Ctrl-C: the hook asks the run to stop and holds the JVM until the drain and the summary are done; Akka's
        // own hook is off, or it would stop the pipeline's actors under the drain.
        final Thread hook = new Thread(this::stopFromSignal, "xmit-run-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "xmit", ConfigFactory.parseString(
            "akka.loglevel = " + (verbose ? "DEBUG" : "WARNING") + "\n" +
            "akka.loggers = [\"akka.event.slf4j.Slf4jLogger\"]\n" +
            "akka.logging-filter = \"akka.event.slf4j.Slf4jLoggingFilter\"\n" +
            "akka.log-dead-letters = off\n" +
            "akka.jvm-shutdown-hooks = off\n" +
            "akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off")
            .withFallback(settings.config()));
        try
        {
            final Pipeline pipeline;
            try
            {
                pipeline = Pipeline.start(system, settings.pipeline());
            }
            catch (final IllegalStateException | IllegalArgumentException | UncheckedIOException | NicException |
                AeronException ex)
            {
                // What only starting can find: a counters directory that is not there, a trace file that cannot be
                // written, a device that cannot be opened, a /dev/shm too small for the rings.
                err.println("xmit run: cannot start the pipeline: " + ex.getMessage());
                return Main.EXIT_FAILED;
            }
            return run(pipeline);
        }
        finally
        {
            load.running.set(false);
            system.terminate();
            finished.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // The JVM is already stopping: the hook is running, and returns now that the run has finished.
            }
        }
    }

    private int run(final Pipeline pipeline)
    {
        LOG.debug("starting {}", settings.pipeline());
        String stoppedBy = "duration";
        try
        {
            final List<UdpSocket> clients = openSockets(pipeline);
            // The duration is the load's: opening a few hundred sockets is not part of it.
            final long started = System.nanoTime();
            if (clients.isEmpty())
            {
                out.printf(Locale.ROOT, "xmit run: %s, %d CPUs, XPS %s, serving UDP %s to the link's hosts, %d s; " +
                    "counters %s%n", pipeline.config().device(), pipeline.config().cpus(),
                    pipeline.config().xpsPreset().label(),
                    Endpoint.ipv4(pipeline.config().ports().get(0).ipv4(), SERVICE_PORT),
                    settings.duration().toSeconds(), pipeline.countersPath());
            }
            else
            {
                out.printf(Locale.ROOT, "xmit run: %s, %d CPUs, XPS %s, %d flows, %,d requests/s offered, %d s; " +
                    "counters %s%n", pipeline.config().device(), pipeline.config().cpus(),
                    pipeline.config().xpsPreset().label(), settings.flows(), settings.rate(),
                    settings.duration().toSeconds(), pipeline.countersPath());
            }
            final TraceConfig trace = pipeline.config().trace();
            if (trace.selector().active() || !trace.file().isEmpty())
            {
                out.printf(Locale.ROOT, "xmit run: tracing %s, %s%n", trace.selector(), trace.file().isEmpty() ?
                    "events on the xmit.trace log (INFO)" : "packets into " + trace.file());
            }
            final Thread generator = Thread.ofPlatform().name("xmit-run-load").start(() ->
            {
                if (!clients.isEmpty())
                {
                    load.offer(clients);
                }
            });
            final long end = started + settings.duration().toNanos();
            final LiveView view = new LiveView(pipeline);
            final long warmupSeconds = RunSummary.warmupSeconds(settings.duration());
            // Live intervals are whole seconds: interval k covers second k - 1 to k of the load.
            long intervals = 0;
            long nextTick = started + TimeUnit.SECONDS.toNanos(1);
            while (true)
            {
                final long wait = Math.min(nextTick, end) - System.nanoTime();
                if (wait > 0 && stopRequested.await(wait, TimeUnit.NANOSECONDS))
                {
                    stoppedBy = "signal";
                    break;
                }
                if (pipeline.whenTerminated().toCompletableFuture().isDone())
                {
                    live.finish();
                    err.println("xmit run: the pipeline stopped: " +
                        pipeline.whenTerminated().toCompletableFuture().join());
                    return Main.EXIT_FAILED;
                }
                live.status(view.line(System.nanoTime() - started, settings.duration().toNanos(),
                    afterWarmup(intervals, warmupSeconds)));
                intervals++;
                if (System.nanoTime() >= end)
                {
                    break;
                }
                nextTick += TimeUnit.SECONDS.toNanos(1);
            }
            live.finish();
            load.running.set(false);
            generator.join(TimeUnit.SECONDS.toMillis(5));
            awaitReplies();
            // The replies since the last live line, the drain's among them, belong to the interval they end.
            load.interval(afterWarmup(intervals, warmupSeconds));
            final RunSummary summary = RunSummary.of(pipeline, load, (System.nanoTime() - started) / 1e9, stoppedBy,
                warmupSeconds);
            final long traceEvents = pipeline.tracer().events();
            final long traceDropped = pipeline.tracer().dropped();
            final StopReport report = stopPipeline(pipeline);
            summary.print(out);
            out.println("stop: " + report.line());
            if (traceEvents > 0 || !pipeline.config().trace().file().isEmpty())
            {
                out.printf(Locale.ROOT, "trace: %,d events, %,d dropped (trace ring full)%s%n", traceEvents,
                    traceDropped, pipeline.config().trace().file().isEmpty() ? "" : "; read it with xmit trace show " +
                    pipeline.config().trace().file());
            }
            if (null != jsonFile)
            {
                Files.writeString(jsonFile, summary.json() + "\n", StandardCharsets.UTF_8);
            }
            return Main.EXIT_OK;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Main.EXIT_FAILED;
        }
        catch (final IOException ex)
        {
            err.println("xmit run: cannot write --json " + jsonFile + ": " + ex.getMessage());
            return Main.EXIT_FAILED;
        }
        finally
        {
            stopPipeline(pipeline);
        }
    }

    /** Whether the live interval after {@code intervals} whole seconds is the steady state's. */
    private static boolean afterWarmup(final long intervals, final long warmupSeconds)
    {
        return warmupSeconds > 0 && intervals >= warmupSeconds;
    }

    /**
     * Where the pipeline stops, after the load has stopped and its replies have come back: gracefully, within the
     * configured {@code stop.deadline} (anything left is dropped, counted and reported). Idempotent.
     */
    private static StopReport stopPipeline(final Pipeline pipeline)
    {
        return pipeline.stop(pipeline.config().stopDeadline());
    }

    /** The load has stopped: requests still in rings and queues are answered within a bounded wait. */
    private void awaitReplies() throws InterruptedException
    {
        final long deadline = System.nanoTime() + DRAIN_NS;
        while (load.replies() < load.requests() && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
    }

    private void stopFromSignal()
    {
        stopRequested.countDown();
        try
        {
            finished.await(HOOK_WAIT_S, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private List<UdpSocket> openSockets(final Pipeline pipeline)
    {
        final int cpus = pipeline.config().cpus();
        for (int cpu = 0; cpu < cpus; cpu++)
        {
            // One reply buffer per socket: its handler runs on its CPU only.
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
            pipeline.openUdp(SocketOptions.udp4(SERVICE_PORT).bindTo("*").reusePort(true).onCpu(cpu)
                .receiveBuffer(SERVICE_RECEIVE_BUFFER)
                .handler((socket, request) ->
                {
                    buffer.putBytes(0, request.buffer(), request.payloadOffset(), request.payloadLength());
                    socket.reply(request, buffer, 0, request.payloadLength());
                }));
        }
        final List<UdpSocket> clients = new ArrayList<>();
        for (int f = 0; f < settings.flows() && pipeline.portCount() == Settings.RUN_PORTS; f++)
        {
            clients.add(pipeline.openUdp(SocketOptions.udp4(FIRST_CLIENT_PORT + f).onPort(1)
                .connect(Endpoint.of("10.0.0.1", SERVICE_PORT)).onCpu(f % cpus)
                .handler((socket, response) -> load.replied(response.buffer().getLong(response.payloadOffset())))));
        }
        return clients;
    }

    /**
     * The offered load and what came back: sent, answered, back-pressured, and the RTT of each reply, over the whole
     * run and over its steady state (the intervals after the warm-up).
     */
    static final class Load
    {
        private final int rate;
        private final int flows;
        private final Recorder rtt = new Recorder(3);
        private final Histogram total = new Histogram(3);
        private final Histogram steady = new Histogram(3);
        private final AtomicLong replies = new AtomicLong();
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong backPressured = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);

        Load(final int rate, final int flows)
        {
            this.rate = rate;
            this.flows = flows;
        }

        int rate()
        {
            return rate;
        }

        int flows()
        {
            return flows;
        }

        long requests()
        {
            return requests.get();
        }

        long replies()
        {
            return replies.get();
        }

        long backPressured()
        {
            return backPressured.get();
        }

        /** The whole run's RTTs, as of the last interval taken. */
        synchronized Histogram total()
        {
            return total.copy();
        }

        /** The steady state's RTTs: the intervals taken after the warm-up. */
        synchronized Histogram steady()
        {
            return steady.copy();
        }

        /** The RTTs since the last call; added to the whole run's and, {@code afterWarmup}, to the steady state's. */
        synchronized Histogram interval(final boolean afterWarmup)
        {
            final Histogram interval = rtt.getIntervalHistogram();
            total.add(interval);
            if (afterWarmup)
            {
                steady.add(interval);
            }
            return interval;
        }

        void replied(final long sentAt)
        {
            rtt.recordValue(Math.max(0, System.nanoTime() - sentAt));
            replies.incrementAndGet();
        }

        /** One thread paces requests at the offered rate over all client sockets, round-robin. */
        void offer(final List<UdpSocket> clients)
        {
            RequestPacer.offer(clients, PAYLOAD, rate, running::get, requests, backPressured);
        }
    }

    /**
     * The live line, once a second: progress to the end, replies/s, the interval's RTT percentiles, the drops by
     * reason, with busy polling the share of the interval's received frames the sockets took by busy polling, the
     * bypass share, the mean bulk and packets/s per TX queue of each port, in the order a narrow terminal gives them
     * up from the end.
     */
    private final class LiveView
    {
        private final Pipeline pipeline;
        private final long[][] previous;
        private final boolean busyPolling;
        private long lastRxPackets;
        private long lastBusyPolled;
        /** Replies (on loop) or datagrams delivered (serving a link) at the last line. */
        private long lastCount;
        private long lastNanos;

        LiveView(final Pipeline pipeline)
        {
            this.pipeline = pipeline;
            busyPolling = pipeline.config().busyPoll().enabled();
            previous = new long[pipeline.portCount()][];
            for (int p = 0; p < previous.length; p++)
            {
                previous[p] = new long[pipeline.driver(p).txQueueCount()];
            }
        }

        List<String> line(final long elapsed, final long duration, final boolean afterWarmup)
        {
            final double seconds = Math.max(1e-3, (elapsed - lastNanos) / 1e9);
            lastNanos = elapsed;
            final Histogram interval = load.interval(afterWarmup);
            final int filled = (int)Math.min(BAR_WIDTH, elapsed * BAR_WIDTH / duration);
            final String bar = "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled);
            final List<String> segments = new ArrayList<>();
            if (pipeline.portCount() < Settings.RUN_PORTS)
            {
                // Serving the link's hosts: their requests are the datagrams delivered; their RTT is theirs to see.
                final long delivered = RunSummary.sum(pipeline, CounterType.RX_DELIVERED);
                segments.add(String.format(Locale.ROOT, "[%s] %3ds %,9.0f datagrams/s served (%,d in all)", bar,
                    Math.round(elapsed / 1e9), (delivered - lastCount) / seconds, delivered));
                lastCount = delivered;
            }
            else
            {
                final long replies = load.replies();
                segments.add(String.format(Locale.ROOT, "[%s] %3ds %,8.0f req/s  RTT p50 %s p99 %s p99.9 %s", bar,
                    Math.round(elapsed / 1e9), (replies - lastCount) / seconds,
                    Units.nanos(interval.getValueAtPercentile(50)), Units.nanos(interval.getValueAtPercentile(99)),
                    Units.nanos(interval.getValueAtPercentile(99.9))));
                lastCount = replies;
            }
            segments.add("drops " + drops());
            if (busyPolling)
            {
                segments.add(busyPollShare());
            }
            segments.add(String.format(Locale.ROOT, "bypass %3.0f%%", 100.0 * RunSummary.bypassShare(pipeline)));
            segments.add(String.format(Locale.ROOT, "bulk %4.1f", RunSummary.meanBulk(pipeline)));
            for (int p = 0; p < previous.length; p++)
            {
                final StringBuilder queues = new StringBuilder(RunSummary.portName(p)).append(" txq/s");
                for (int q = 0; q < previous[p].length; q++)
                {
                    final long packets = pipeline.counter(CounterType.QDISC_PACKETS, CounterScope.txq(p, q));
                    queues.append(String.format(Locale.ROOT, " %5.1fk", (packets - previous[p][q]) / seconds / 1000));
                    previous[p][q] = packets;
                }
                segments.add(queues.toString());
            }
            return segments;
        }

        /** {@code busy-poll 63% of rx}: the frames received since the last line that busy-polling sockets took. */
        private String busyPollShare()
        {
            final long rxPackets = RunSummary.sum(pipeline, CounterType.RX_PACKETS);
            final long busyPolled = RunSummary.sum(pipeline, CounterType.BUSY_POLL_PACKETS);
            final long received = rxPackets - lastRxPackets;
            final double share = received > 0 ? 100.0 * (busyPolled - lastBusyPolled) / received : 0;
            lastRxPackets = rxPackets;
            lastBusyPolled = busyPolled;
            return String.format(Locale.ROOT, "busy-poll %3.0f%% of rx", Math.min(100, share));
        }

        /** {@code 0}, or each reason that counted, e.g. {@code rx_drop_socket_ring_full=12}. */
        private String drops()
        {
            final StringBuilder drops = new StringBuilder();
            RunSummary.dropsByReason(pipeline).forEach((reason, count) ->
            {
                if (count > 0)
                {
                    drops.append(drops.isEmpty() ? "" : " ").append(reason).append('=').append(count);
                }
            });
            return drops.isEmpty() ? "0" : drops.toString();
        }
    }
}
