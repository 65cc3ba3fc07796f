package io.xmit.deploy;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterType;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code xmit run}: the built-in scenario on the {@code loop} device. Port A (10.0.0.1) runs a UDP
 * request/response service on port 11211 with one connected socket per client flow (like a server's per-connection
 * sockets), replying from the handler on the socket's CPU; port B (10.0.0.2) runs the clients, one connected socket
 * per flow, offering a steady load from one generator thread. With XPS by RX queue (the default), a reply leaves on
 * the TX queue matching the RX queue its request arrived on. A live line per second, a summary at the end.
 */
final class RunCommand
{
    static final int SERVICE_PORT = 11211;
    static final int FIRST_CLIENT_PORT = 40000;

    private static final long SPIN_NS = 20_000;

    private static final List<CounterType> DROP_REASONS = List.of(CounterType.RX_DROP_NO_SOCKET,
        CounterType.RX_DROP_MALFORMED, CounterType.RX_DROP_SOCKET_RING_FULL, CounterType.RX_DROP_UNSUPPORTED,
        CounterType.QDISC_DROP_OVERFLOW, CounterType.QDISC_DROP_OVERSIZE);

    private static final String HELP = """
        usage: xmit run [options]
          --duration S     seconds to run (default 10)
          --rate N         requests per second offered (default 50000)
          --flows N        client flows, each a connected socket pair (default 256)
          --cpus N         xmit CPUs (default 2)
          --xps MODE       none | cpus | rxqs (default rxqs)
          --spin N         empty polls a queue actor spins before it sleeps (default 256)""";

    private RunCommand()
    {
    }

    static int run(final String[] args, final PrintStream out)
    {
        int seconds = 10;
        int rate = 50_000;
        int flows = 256;
        int cpus = 2;
        XpsPreset xps = XpsPreset.RXQS;
        int spin = PipelineConfig.DEFAULT_SPIN_POLLS;
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            switch (arg)
            {
                case "--help", "-h" ->
                {
                    out.println(HELP);
                    return Main.EXIT_OK;
                }
                case "--duration" -> seconds = Args.intArg(arg, Args.value(args, ++i, arg), 1, 3600);
                case "--rate" -> rate = Args.intArg(arg, Args.value(args, ++i, arg), 1, 100_000_000);
                case "--flows" -> flows = Args.intArg(arg, Args.value(args, ++i, arg), 1, 4096);
                case "--cpus" -> cpus = Args.intArg(arg, Args.value(args, ++i, arg), 1, 256);
                case "--spin" -> spin = Args.intArg(arg, Args.value(args, ++i, arg), 0, 1 << 20);
                case "--xps" ->
                {
                    final String mode = Args.value(args, ++i, arg);
                    try
                    {
                        xps = XpsPreset.of("--xps", mode);
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new UsageException(ex.getMessage());
                    }
                }
                default -> throw new UsageException("unknown option '" + arg + "' (see xmit run --help)");
            }
        }
        return new Scenario(seconds, rate, flows, cpus, xps, spin, out).run();
    }

    private static final class Scenario
    {
        private final int seconds;
        private final int rate;
        private final int flows;
        private final int cpus;
        private final XpsPreset xps;
        private final int spin;
        private final PrintStream out;
        private final Recorder rtt = new Recorder(3);
        private final Histogram total = new Histogram(3);
        private final AtomicLong replies = new AtomicLong();
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong backPressured = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);

        Scenario(final int seconds, final int rate, final int flows, final int cpus, final XpsPreset xps,
            final int spin, final PrintStream out)
        {
            this.spin = spin;
            this.seconds = seconds;
            this.rate = rate;
            this.flows = flows;
            this.cpus = cpus;
            this.xps = xps;
            this.out = out;
        }

        int run()
        {
            final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "xmit",
                ConfigFactory.parseString("akka.loglevel = WARNING, akka.log-dead-letters = off")
                    .withFallback(ConfigFactory.load()));
            final PipelineConfig config = PipelineConfig.defaults().withName("run").withCpus(cpus)
                .withXps(xps, List.of()).withRingTerms(8 << 20, 1 << 16).withSpinPolls(spin);
            try (Pipeline pipeline = Pipeline.start(system, config))
            {
                final List<UdpSocket> clients = openSockets(pipeline);
                out.printf(Locale.ROOT, "xmit run: %s, %d CPUs, XPS %s, %d flows, %,d requests/s offered, %d s%n",
                    config.device(), cpus, xps.label(), flows, rate, seconds);
                final Thread generator = Thread.ofPlatform().name("xmit-run-load").start(() -> offer(clients));
                final long[] previous = new long[pipeline.driver(0).txQueueCount()];
                long lastReplies = 0;
                for (int second = 1; second <= seconds; second++)
                {
                    sleepSecond();
                    final Histogram interval = rtt.getIntervalHistogram();
                    total.add(interval);
                    final long nowReplies = replies.get();
                    out.println(liveLine(pipeline, second, nowReplies - lastReplies, interval, previous));
                    lastReplies = nowReplies;
                }
                running.set(false);
                generator.join(TimeUnit.SECONDS.toMillis(5));
                summary(pipeline);
                return Main.EXIT_OK;
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return Main.EXIT_FAILED;
            }
            finally
            {
                running.set(false);
                system.terminate();
            }
        }

        private List<UdpSocket> openSockets(final Pipeline pipeline)
        {
            final UnsafeBuffer[] replyBuffers = new UnsafeBuffer[cpus];
            for (int c = 0; c < cpus; c++)
            {
                replyBuffers[c] = new UnsafeBuffer(new byte[2048]);
            }
            final List<UdpSocket> clients = new ArrayList<>();
            for (int f = 0; f < flows; f++)
            {
                final Endpoint client = Endpoint.of("10.0.0.2", FIRST_CLIENT_PORT + f);
                final int cpu = f % cpus;
                final UnsafeBuffer buffer = replyBuffers[cpu];
                pipeline.openUdp(SocketOptions.udp4(SERVICE_PORT).connect(client).onCpu(cpu)
                    .handler((socket, request) ->
                    {
                        buffer.putBytes(0, request.buffer(), request.payloadOffset(), request.payloadLength());
                        socket.reply(request, buffer, 0, request.payloadLength());
                    }));
                clients.add(pipeline.openUdp(SocketOptions.udp4(FIRST_CLIENT_PORT + f).onPort(1)
                    .connect(Endpoint.of("10.0.0.1", SERVICE_PORT)).onCpu(cpu)
                    .handler((socket, response) ->
                    {
                        final long sentAt = response.buffer().getLong(response.payloadOffset());
                        rtt.recordValue(Math.max(0, System.nanoTime() - sentAt));
                        replies.incrementAndGet();
                    })));
            }
            return clients;
        }

        /** One thread paces requests at the offered rate over all client sockets, round-robin. */
        private void offer(final List<UdpSocket> clients)
        {
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
            final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            long next = System.nanoTime();
            int flow = 0;
            while (running.get())
            {
                final long now = System.nanoTime();
                if (now < next)
                {
                    // Sleep through long gaps: a spinning generator would take a whole core from the pipeline's CPUs.
                    if (next - now > SPIN_NS)
                    {
                        LockSupport.parkNanos(next - now - SPIN_NS);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                payload.putLong(0, now);
                final long result = clients.get(flow).send(payload, 0, payload.capacity());
                if (result > 0)
                {
                    requests.incrementAndGet();
                    next += interval;
                    flow = flow + 1 == clients.size() ? 0 : flow + 1;
                }
                else if (SendResult.BACK_PRESSURED == result)
                {
                    backPressured.incrementAndGet();
                }
                else
                {
                    return;
                }
            }
        }

        private String liveLine(final Pipeline pipeline, final int second, final long repliesPerSecond,
            final Histogram interval, final long[] previous)
        {
            final StringBuilder queues = new StringBuilder();
            for (int q = 0; q < previous.length; q++)
            {
                final long packets = pipeline.counter(CounterType.QDISC_PACKETS, "port=0 txq=" + q);
                queues.append(String.format(Locale.ROOT, " %6.1fk", (packets - previous[q]) / 1000.0));
                previous[q] = packets;
            }
            final int width = 20;
            final int filled = second * width / seconds;
            return String.format(Locale.ROOT, "[%s%s] %3ds  %,9d req/s  RTT p50 %6.1f p99 %7.1f p99.9 %7.1f µs" +
                "  txq/s%s  bypass %3.0f%%  bulk %4.1f  drops %d",
                "#".repeat(filled), ".".repeat(width - filled), second, repliesPerSecond,
                interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0,
                interval.getValueAtPercentile(99.9) / 1000.0, queues, 100.0 * bypassShare(pipeline),
                meanBulk(pipeline), drops(pipeline));
        }

        private void summary(final Pipeline pipeline)
        {
            out.println();
            out.printf(Locale.ROOT, "%-34s %,d%n", "requests sent", requests.get());
            out.printf(Locale.ROOT, "%-34s %,d%n", "replies received", replies.get());
            out.printf(Locale.ROOT, "%-34s %,d%n", "sends back-pressured (retried)", backPressured.get());
            out.printf(Locale.ROOT, "%-34s %.1f / %.1f / %.1f / %.1f µs%n", "RTT p50 / p99 / p99.9 / max",
                total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(99) / 1000.0,
                total.getValueAtPercentile(99.9) / 1000.0, total.getMaxValue() / 1000.0);
            for (int q = 0; q < pipeline.driver(0).txQueueCount(); q++)
            {
                out.printf(Locale.ROOT, "%-34s %,d packets (rx queue %d delivered %,d)%n", "port A tx queue " + q,
                    pipeline.counter(CounterType.QDISC_PACKETS, "port=0 txq=" + q), q,
                    pipeline.counter(CounterType.RX_DELIVERED, "port=0 rxq=" + q));
            }
            out.printf(Locale.ROOT, "%-34s %.1f%%%n", "bypass share", 100.0 * bypassShare(pipeline));
            out.printf(Locale.ROOT, "%-34s %.1f packets%n", "mean bulk (tx_burst)", meanBulk(pipeline));
            out.printf(Locale.ROOT, "%-34s %d%n", "drops (all reasons)", drops(pipeline));
            for (int p = 0; p < pipeline.portCount(); p++)
            {
                for (final CounterType type : DROP_REASONS)
                {
                    final long count = pipeline.total(type, p);
                    if (count > 0)
                    {
                        out.printf(Locale.ROOT, "%-34s %,d%n", "  port " + (char)('A' + p) + " " + type.label(), count);
                    }
                }
            }
        }

        private static double bypassShare(final Pipeline pipeline)
        {
            final long packets = sum(pipeline, List.of(CounterType.QDISC_PACKETS));
            return 0 == packets ? 0 : (double)sum(pipeline, List.of(CounterType.QDISC_BYPASSED)) / packets;
        }

        private static double meanBulk(final Pipeline pipeline)
        {
            final long bulks = sum(pipeline, List.of(CounterType.QDISC_BULKS));
            return 0 == bulks ? 0 : (double)sum(pipeline, List.of(CounterType.QDISC_PACKETS)) / bulks;
        }

        private static long drops(final Pipeline pipeline)
        {
            return sum(pipeline, DROP_REASONS);
        }

        /** The counters of {@code types}, over every queue of every port. */
        private static long sum(final Pipeline pipeline, final List<CounterType> types)
        {
            long sum = 0;
            for (int p = 0; p < pipeline.portCount(); p++)
            {
                for (final CounterType type : types)
                {
                    sum += pipeline.total(type, p);
                }
            }
            return sum;
        }

        private static void sleepSecond() throws InterruptedException
        {
            Thread.sleep(1000);
        }
    }
}
