package io.xmit.deploy;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit stat} against a pipeline this test runs, its counters file in a folder of its own (other pipelines on
 * the machine must not be "the only one running"): snapshots whose counters move with the traffic, the live table,
 * and the one line when nothing runs.
 */
class StatCommandTest
{
    @TempDir
    static Path dir;

    private static ActorSystem<Void> system;
    private static Pipeline pipeline;
    private static UdpSocket client;
    private static final AtomicLong ECHOED = new AtomicLong();
    private static final int WINDOW = 32;

    @BeforeAll
    static void startPipeline()
    {
        system = ActorSystem.create(Behaviors.empty(), "stat-test");
        pipeline = Pipeline.start(system, PipelineConfig.builder().name("stat-test").cpus(2)
            .xpsPreset(XpsPreset.RXQS).qdiscRingTerm(1 << 20).socketRingTerm(1 << 20).countersDir(dir).build());
        final UnsafeBuffer out = new UnsafeBuffer(new byte[64]);
        pipeline.openUdp(SocketOptions.udp4(7).onCpu(0).handler((socket, request) ->
        {
            out.putBytes(0, request.buffer(), request.payloadOffset(), request.payloadLength());
            socket.reply(request, out, 0, request.payloadLength());
        }));
        client = pipeline.openUdp(SocketOptions.udp4(40000).onPort(1).connect(Endpoint.of("10.0.0.1", 7)).onCpu(1)
            .handler((socket, reply) -> ECHOED.incrementAndGet()));
    }

    @AfterAll
    static void stopPipeline()
    {
        pipeline.close();
        system.terminate();
    }

    private static void echo(final int requests) throws InterruptedException
    {
        final long target = ECHOED.get() + requests;
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[32]);
        final long deadline = System.nanoTime() + 5_000_000_000L;
        for (int i = 0; i < requests; i++)
        {
            // At most a window in flight, so no burst outruns the server socket's ring.
            while (target - requests + i - ECHOED.get() >= WINDOW && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            send(payload, deadline);
        }
        Await.exactly("every request echoed", target, ECHOED::get, remaining(deadline));
        assertEquals(target, ECHOED.get(), "every request echoed");
        // A qdisc counts a burst just after tx_burst, and the loop wire may carry its frames to an echo first; the
        // TX queues count completions as they reclaim them: both settle on every packet once the echoes are in.
        for (int port = 0; port < 2; port++)
        {
            final int p = port;
            Await.until("port " + port + " to count every request sent and done",
                () -> pipeline.total(CounterType.QDISC_PACKETS, p) == target &&
                    pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, p) == target,
                () -> "sent " + pipeline.total(CounterType.QDISC_PACKETS, p) + ", done " +
                    pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, p) + " of " + target, remaining(deadline));
            assertEquals(target, pipeline.total(CounterType.QDISC_PACKETS, port), "port " + port + " sent");
            assertEquals(target, pipeline.total(CounterType.TXQ_COMPLETED_PACKETS, port), "port " + port + " done");
        }
    }

    /** What is left of the one deadline {@link #echo} shares between its sends and its waits. */
    private static Duration remaining(final long deadline)
    {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Sends {@code payload}, retrying only while back-pressured and only until {@code deadline}. */
    private static void send(final UnsafeBuffer payload, final long deadline)
    {
        long result;
        while ((result = client.send(payload, 0, payload.capacity())) < 0)
        {
            assertEquals(SendResult.BACK_PRESSURED, result, "send refused");
            assertTrue(System.nanoTime() - deadline < 0, "send back-pressured until the deadline");
            Thread.onSpinWait();
        }
    }

    /** The sum over the TX queues of port {@code port} of {@code key}, from {@code xmit stat --once --json}. */
    private static long txTotal(final String json, final int port, final String key)
    {
        final int start = json.indexOf("{\"port\":" + port + ",");
        final int end = json.indexOf("\"rxq\"", start);
        final Matcher matcher = Pattern.compile("\"" + key + "\":(\\d+)").matcher(json.substring(start, end));
        long sum = 0;
        while (matcher.find())
        {
            sum += Long.parseLong(matcher.group(1));
        }
        return sum;
    }

    @Test
    void onceJsonShowsCountersThatMove() throws InterruptedException
    {
        echo(100);
        final Instant asked = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        final RunCommandTest.Result first = xmit("stat", "stat-test", "--once", "--json", "--dir", dir.toString());
        final Instant answered = Instant.now();
        assertEquals(Main.EXIT_OK, first.code(), first.err());
        echo(250);
        final RunCommandTest.Result second = xmit("stat", "--once", "--json", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, second.code(), second.err());

        final String before = first.out().strip();
        final String after = second.out().strip();
        // Each line carries the time it was read, ISO-8601 in UTC to the millisecond.
        final Matcher time = Pattern.compile("\\{\"time\":\"(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z)\",")
            .matcher(before);
        assertTrue(time.lookingAt(), before);
        final Instant read = Instant.parse(time.group(1));
        assertFalse(read.isBefore(asked) || read.isAfter(answered), read + " not in " + asked + ".." + answered);
        assertTrue(before.startsWith("\"pipeline\":\"stat-test\",\"pid\":" + ProcessHandle.current().pid() +
            ",\"per_second\":false,\"ports\":[{\"port\":0,\"name\":\"A\",\"txq\":[{\"queue\":0,\"packets\":",
            time.end()), before);
        // Port A sent the replies, port B the requests: each moved by exactly the 250 echoed in between.
        assertEquals(250, txTotal(after, 0, "packets") - txTotal(before, 0, "packets"), after);
        assertEquals(250, txTotal(after, 1, "packets") - txTotal(before, 1, "packets"), after);
        assertEquals(250, txTotal(after, 1, "completed") - txTotal(before, 1, "completed"), after);
        assertTrue(after.contains("\"rxq\":[{\"queue\":0,\"packets\":"), after);
        assertTrue(after.contains("\"drop_no_socket\":0"), after);
        // The books, both directions: the receive identity of each port, from its counters.
        assertTrue(after.contains("\"books\":\"tx: accepted "), after);
        assertTrue(after.contains("; rx port A: arrived ") && after.contains("; rx port B: arrived "), after);
    }

    @Test
    void theLiveTableShowsRatesPerQueueUntilItsCount() throws Exception
    {
        // The load runs beside the command; its assertions fail this test through get(), not just its own thread.
        final FutureTask<Void> load = new FutureTask<>(() ->
        {
            echo(500);
            return null;
        });
        Thread.ofPlatform().start(load);
        final RunCommandTest.Result result = xmit("stat", "stat-test", "--count", "2", "--interval", "0.2", "--dir",
            dir.toString());
        try
        {
            load.get(30, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof Error error)
            {
                throw error;
            }
            throw ex;
        }
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        assertEquals(2, result.out().lines().filter(line -> line.startsWith("pipeline stat-test")).count(),
            result.out());
        assertTrue(result.out().contains("per second"), result.out());
        final List<String> lines = result.out().lines().toList();
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).startsWith("pipeline stat-test"))
            {
                assertTrue(i > 0 && lines.get(i - 1).matches("at 20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z, every 0\\.2 s"),
                    "each table under the time it was read: " + result.out());
            }
        }
        assertEquals(2 * 2, result.out().lines().filter(line -> line.matches("port [AB] {2}txq .*")).count(),
            result.out());
        assertEquals(2 * 2, result.out().lines().filter(line -> line.matches("port [AB] {2}rxq .*")).count(),
            result.out());
        final RunCommandTest.Result once = xmit("stat", "--once", "--dir", dir.toString());
        assertTrue(once.out().contains("totals since start"), once.out());
        final String books = once.out().lines().filter(line -> line.startsWith("books: ")).findFirst().orElseThrow();
        assertTrue(books.startsWith("books: tx: accepted ") && books.contains("; rx port A: arrived ") &&
            books.contains("; rx port B: arrived "), books);
        assertEquals(2 * 4, once.out().lines().filter(line -> line.matches(" {8}[0-3] +[0-9,]+ .*")).count() / 2,
            once.out());
    }

    @Test
    void onATerminalEachIntervalsTablesReplaceTheLastWithinItsWidth()
    {
        final RunCommandTest.Result result = xmit(new Terminal(true, 80), "stat", "stat-test", "--count", "2",
            "--interval", "0.2", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final String[] blocks = result.out().split("\r\033\\[", -1);
        assertEquals(2, blocks.length, "one redraw: " + result.out());
        final long firstLines = blocks[0].lines().count();
        assertTrue(blocks[1].startsWith(firstLines + "A\033[Jat "), "up over the first block, erased: " + result.out());
        final List<String> second = blocks[1].substring((firstLines + "A\033[J").length()).lines().toList();
        assertEquals(firstLines, second.size(), result.out());
        assertTrue(blocks[0].lines().allMatch(line -> line.length() <= 80) &&
            second.stream().allMatch(line -> line.length() <= 80), result.out());
        assertTrue(second.getFirst().matches("at 20.*Z, every 0\\.2 s"), second.getFirst());
        assertTrue(second.stream().noneMatch(line -> line.endsWith("…")), "nothing cut: " + result.out());
        assertEquals(List.of("port A  txq  packets  bytes  bypass  bulk  requeues  overflow  oversize  drv_err",
            "port A  txq  stops  wakes  wd_reset  backlog"),
            second.stream().filter(line -> line.startsWith("port A  txq")).toList(), "reflowed: " + result.out());
    }

    /**
     * {@code xmit stat} in a JVM of its own, its output through {@code script}'s pseudo-terminal or piped, with
     * {@code COLUMNS=60}; returns what it wrote, stdout and stderr together.
     */
    private static String statProcess(final boolean pseudoTerminal) throws Exception
    {
        final List<String> java = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(arg -> arg.startsWith("--"))
            .forEach(java::add);
        java.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "stat", "stat-test",
            "--count", "2", "--interval", "0.2", "--dir", dir.toString()));
        final List<String> command = pseudoTerminal ? List.of("script", "-qfec", java.stream()
            .map(arg -> "'" + arg.replace("'", "'\\''") + "'").collect(Collectors.joining(" ")), "/dev/null") : java;
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("COLUMNS", "60");
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(Main.EXIT_OK, process.waitFor(), output);
        return output;
    }

    @Test
    void throughAPseudoTerminalTheTablesAreRedrawnInPlaceWithinColumns() throws Exception
    {
        final String output = statProcess(true);
        final List<String> stamps = output.lines().filter(line -> line.contains("Z, every 0.2 s")).toList();
        assertEquals(2, stamps.size(), output);
        assertTrue(stamps.getLast().matches("\\r?\\033\\[\\d+A\\033\\[Jat .*"), "the second over the first: " + output);
        assertTrue(output.lines().filter(line -> line.startsWith("port ")).allMatch(line -> line.length() <= 60) &&
            output.lines().noneMatch(line -> line.endsWith("…")), output);
        assertTrue(output.lines().anyMatch(line -> line.startsWith("port A  txq") && line.endsWith("backlog")) &&
            output.lines().anyMatch(line -> line.startsWith("port A  rxq") && line.endsWith("unsupported")), output);
    }

    @Test
    void pipedTheTablesFollowEachOtherWhole() throws Exception
    {
        final String output = statProcess(false);
        assertFalse(output.contains("\033["), output);
        assertEquals(2, output.lines().filter(line -> line.matches("at .*Z, every 0\\.2 s")).count(), output);
        assertTrue(output.lines().anyMatch(line -> line.startsWith("port A  txq") && line.length() > 60 &&
            line.endsWith("backlog")), output);
    }

    /**
     * On a terminal of 80 or 200 columns every line fits and every cell is there: the columns that do not fit follow
     * in blocks under the queue numbers again, the books wrap. The pipeline is quiet, so the totals do not move.
     */
    @Test
    void stationTablesReflowToTheTerminalsWidthLosingNothing() throws InterruptedException
    {
        echo(50);
        // The device's own counters reach the file on a watchdog tick: wait for the books to show every packet home.
        Await.until("the books to settle with nothing in flight",
            () -> !books(xmit("stat", "--once", "--dir", dir.toString()).out()).matches(".*in flight (-|[1-9]).*"),
            () -> books(xmit("stat", "--once", "--dir", dir.toString()).out()));
        final RunCommandTest.Result piped = xmit("stat", "--once", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, piped.code(), piped.err());
        assertTrue(piped.out().lines().anyMatch(line -> line.length() > 120), "wider than 120 when piped");
        for (final int width : new int[] {80, 200})
        {
            final RunCommandTest.Result fitted = xmit(new Terminal(true, width), "stat", "--once", "--dir",
                dir.toString());
            assertEquals(Main.EXIT_OK, fitted.code(), fitted.err());
            assertEquals(List.of(), fitted.out().lines().filter(line -> line.length() > width).toList(),
                "lines wider than " + width);
            assertEquals(cells(piped.out()), cells(fitted.out()), width + " columns:\n" + fitted.out());
            assertEquals(books(piped.out()), books(fitted.out()), width + " columns:\n" + fitted.out());
        }
    }

    /** Each table's cells as "port A txq 3 bytes = 1,234", whatever blocks they were printed in. */
    private static List<String> cells(final String out)
    {
        final List<String> cells = new ArrayList<>();
        List<String> header = List.of();
        String table = "";
        for (final String line : out.lines().toList())
        {
            final String[] words = line.strip().split(" +");
            if (line.startsWith("port "))
            {
                table = words[0] + " " + words[1] + " " + words[2];
                header = List.of(words).subList(3, words.length);
            }
            else if (line.startsWith("        "))
            {
                for (int c = 1; c < words.length; c++)
                {
                    cells.add(table + " " + words[0] + " " + header.get(c - 1) + " = " + words[c]);
                }
            }
        }
        return cells.stream().sorted().toList();
    }

    /** The books line, its wrapped lines joined again. */
    private static String books(final String out)
    {
        final List<String> lines = out.lines().toList();
        final StringBuilder books = new StringBuilder();
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).startsWith("books: ") || !books.isEmpty() && lines.get(i).startsWith("  "))
            {
                books.append(books.isEmpty() ? "" : " ").append(lines.get(i).strip());
            }
        }
        return books.toString();
    }

    /** Nothing running is a failure, exit 1; a name or pid that no running pipeline has is a bad argument, exit 2. */
    @Test
    void noPipelineRunningIsOneLineAndExitOneAndAWrongNameExitTwo(@TempDir final Path empty)
    {
        final RunCommandTest.Result none = xmit("stat", "--dir", empty.toString());
        assertEquals(Main.EXIT_FAILED, none.code());
        assertEquals("xmit stat: no xmit pipeline is running (no counters file of a live process in " + empty + ")",
            none.err().strip());
        final long pid = ProcessHandle.current().pid();
        final RunCommandTest.Result unnamed = xmit("stat", "other", "--once", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, unnamed.code());
        assertEquals("xmit stat: no xmit pipeline named 'other' is running (running: stat-test (pid " + pid + "))",
            unnamed.err().strip());
        final RunCommandTest.Result otherPid = xmit("stat", "--pid", "2147483647", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, otherPid.code());
        assertEquals("xmit stat: no xmit pipeline in process 2147483647 is running (running: stat-test (pid " + pid +
            "))", otherPid.err().strip());
        final RunCommandTest.Result nameElsewhere = xmit("stat", "other", "--dir", empty.toString());
        assertEquals(Main.EXIT_USAGE, nameElsewhere.code());
        assertEquals("xmit stat: no xmit pipeline named 'other' is running (no counters file of a live process in " +
            empty + ")", nameElsewhere.err().strip());
        assertEquals(Main.EXIT_USAGE, xmit("stat", "--count", "0").code());
    }

    /** A live process's counters file with a damaged record: one line naming the file and the damage, exit 1. */
    @Test
    void aDamagedCountersFileIsOneLineAndExitOne(@TempDir final Path other) throws Exception
    {
        try (CountersFile file = CountersFile.create("damaged", other, 4))
        {
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 0));
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.WRITE))
            {
                final ByteBuffer length = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(0, Integer.MAX_VALUE);
                channel.write(length, CountersFile.HEADER_LENGTH + CountersReader.metaDataOffset(0) +
                    CountersReader.LABEL_OFFSET);
            }
            final RunCommandTest.Result damaged = xmit("stat", "damaged", "--once", "--dir", other.toString());
            assertEquals(Main.EXIT_FAILED, damaged.code(), damaged.err());
            assertEquals("xmit stat: counters file is damaged: counter 0 has a label of 2147483647 bytes (at most " +
                CountersReader.MAX_LABEL_LENGTH + "): " + file.path(), damaged.err().strip());
        }
    }

    /** A counter whose key decodes to no scope (here an unknown attachment) is damage too, named the same way. */
    @Test
    void aCounterWithAKeyOfNoScopeIsOneLineAndExitOne(@TempDir final Path other) throws Exception
    {
        try (CountersFile file = CountersFile.create("badkey", other, 4))
        {
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 0));
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.WRITE))
            {
                final ByteBuffer attachment = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(0, 99);
                channel.write(attachment, CountersFile.HEADER_LENGTH + CountersReader.metaDataOffset(0) +
                    CountersReader.KEY_OFFSET + CounterScope.ATTACHMENT_OFFSET);
            }
            final RunCommandTest.Result damaged = xmit("stat", "badkey", "--once", "--dir", other.toString());
            assertEquals(Main.EXIT_FAILED, damaged.code(), damaged.err());
            assertEquals("xmit stat: counters file is damaged: counter 0 has a key that is no counter scope: " +
                file.path(), damaged.err().strip());
        }
    }
}
