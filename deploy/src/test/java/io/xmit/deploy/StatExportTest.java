package io.xmit.deploy;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterScope.Stage;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.testing.Await;

import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code xmit stat --prometheus} and {@code --jmx} on a counters file of known values this test writes: the exact
 * metrics a scrape over loopback returns and the exact attributes of the MBeans, both following the file's values,
 * until the file goes and the command stops by itself.
 */
class StatExportTest
{
    private static final Pattern SERVING = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/metrics for pipeline " +
        "known \\(pid \\d+\\)");

    @TempDir
    Path dir;

    /** {@code xmit stat} on its own thread (it runs until the pipeline's file goes), its output readable meanwhile. */
    private static final class Background
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicInteger code = new AtomicInteger(-1);
        final Thread thread;

        Background(final String... args)
        {
            thread = Thread.ofPlatform().name("xmit-stat").start(() -> code.set(Main.run(args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))));
        }

        String out()
        {
            return out.toString(StandardCharsets.UTF_8);
        }

        /** Waits for the command to end by itself and gives its exit code. */
        int exit()
        {
            Await.until("xmit stat to stop once the counters file is gone", () -> !thread.isAlive(),
                () -> out() + err.toString(StandardCharsets.UTF_8));
            return code.get();
        }
    }

    private static CountersFile known(final Path dir)
    {
        final CountersFile file = CountersFile.create("known", dir, 16);
        file.allocate(CounterType.QDISC_PACKETS, CounterScope.txq(0, 1)).set(1234);
        file.allocate(CounterType.TXQ_BQL_LIMIT, CounterScope.txq(0, 1)).set(3028);
        file.allocate(CounterType.RX_DROP_NO_SOCKET, CounterScope.rxq(1, 0)).set(5);
        file.allocate(CounterType.STAGE_RESTARTS, CounterScope.port(0).withStage(Stage.QDISC)).set(2);
        file.allocate(CounterType.TRACE_EVENTS, CounterScope.tracer()).set(9);
        return file;
    }

    private static String scrape(final int port) throws Exception
    {
        try (HttpClient client = HttpClient.newHttpClient())
        {
            final HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" +
                port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            return response.body();
        }
    }

    /** The samples of a scrape, without its HELP and TYPE lines, in the order served. */
    private static List<String> samples(final String body)
    {
        return body.lines().filter(line -> !line.startsWith("#")).toList();
    }

    @Test
    void prometheusServesEveryCounterOfTheFileReadAtEachScrape() throws Exception
    {
        final Background stat;
        try (CountersFile file = known(dir))
        {
            stat = new Background("stat", "known", "--prometheus", "127.0.0.1:0", "--interval", "0.1", "--dir",
                dir.toString());
            Await.until("the address it serves on", () -> SERVING.matcher(stat.out()).find(), stat::out);
            final Matcher serving = SERVING.matcher(stat.out());
            assertTrue(serving.find(), stat.out());
            final int port = Integer.parseInt(serving.group(1));

            final String body = scrape(port);
            assertEquals(List.of(
                "xmit_qdisc_packets_total{pipeline=\"known\",port=\"0\",txq=\"1\"} 1234.0",
                "xmit_rx_drop_no_socket_total{pipeline=\"known\",port=\"1\",rxq=\"0\"} 5.0",
                "xmit_stage_restarts_total{pipeline=\"known\",port=\"0\",stage=\"qdisc\"} 2.0",
                "xmit_trace_events_total{pipeline=\"known\"} 9.0",
                "xmit_txq_bql_limit{pipeline=\"known\",port=\"0\",txq=\"1\"} 3028.0"), samples(body), body);
            assertTrue(body.contains("# TYPE xmit_qdisc_packets_total counter\n"), body);
            assertTrue(body.contains("# TYPE xmit_txq_bql_limit gauge\n"), body);

            // Each scrape reads the file anew: a counter that moved, and one allocated since (a new socket).
            file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(1, 7)).set(40);
            final AtomicCounter packets = file.allocate(CounterType.QDISC_PACKETS, CounterScope.txq(0, 0));
            packets.set(77);
            final List<String> again = samples(scrape(port));
            assertTrue(again.contains("xmit_qdisc_packets_total{pipeline=\"known\",port=\"0\",txq=\"0\"} 77.0"),
                again.toString());
            assertTrue(again.contains("xmit_socket_sent_total{pipeline=\"known\",port=\"1\",socket=\"7\"} 40.0"),
                again.toString());
        }
        assertEquals(Main.EXIT_OK, stat.exit(), stat.out());
        assertTrue(stat.out().endsWith("pipeline known (pid " + ProcessHandle.current().pid() + ") has stopped\n"),
            stat.out());
    }

    @Test
    void jmxHasAnMBeanPerScopeWhoseAttributesAreItsCounters() throws Exception
    {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final ObjectName txq = new ObjectName("io.xmit:type=counters,pipeline=known,port=0,txq=1");
        final ObjectName socket = new ObjectName("io.xmit:type=counters,pipeline=known,port=1,socket=7");
        final Background stat;
        try (CountersFile file = known(dir))
        {
            stat = new Background("stat", "--jmx", "--interval", "0.1", "--dir", dir.toString());
            // Five counters in four scopes: TX queue 1 of port 0 has two. The MBeans are registered one by one, so
            // the wait is for all four (no more: a fifth would fail the next line).
            final ObjectName known = new ObjectName("io.xmit:type=counters,pipeline=known,*");
            Await.until("the MBeans registered", () -> server.queryNames(known, null).size() >= 4, stat::out);
            assertEquals(4, server.queryNames(known, null).size());
            assertEquals(1234L, server.getAttribute(txq, "qdisc_packets"));
            assertEquals(3028L, server.getAttribute(txq, "txq_bql_limit"));
            assertEquals(5L, server.getAttribute(new ObjectName("io.xmit:type=counters,pipeline=known,port=1,rxq=0"),
                "rx_drop_no_socket"));
            assertEquals(2L, server.getAttribute(
                new ObjectName("io.xmit:type=counters,pipeline=known,port=0,stage=qdisc"), "stage_restarts"));
            assertEquals(9L, server.getAttribute(new ObjectName("io.xmit:type=counters,pipeline=known,scope=trace"),
                "trace_events"));

            // An attribute reads the file when read; a scope that appears gets its MBean within an interval.
            file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(1, 7)).set(40);
            Await.until("the new socket's MBean", () -> server.isRegistered(socket), stat::out);
            assertEquals(40L, server.getAttribute(socket, "socket_sent"));
        }
        assertEquals(Main.EXIT_OK, stat.exit(), stat.out());
        assertFalse(server.isRegistered(txq), "unregistered when the pipeline stopped");
        assertFalse(server.isRegistered(socket), "unregistered when the pipeline stopped");
    }

    @Test
    void aBadListenAddressIsOneLineNamingIt()
    {
        for (final String[] c : List.of(
            new String[] {"1.2.3:9464", "--prometheus '1.2.3:9464': '1.2.3' is not an IP address"},
            new String[] {"127.0.0.1:99999", "--prometheus '127.0.0.1:99999': port 99999: must be in 0..65535"},
            new String[] {"127.0.0.1:metrics", "--prometheus '127.0.0.1:metrics': port 'metrics': not a number"},
            new String[] {"::1:9464", "--prometheus '::1:9464': '::1' is not an IP address"}))
        {
            final RunCommandTest.Result result = RunCommandTest.xmit("stat", "--prometheus", c[0], "--dir",
                dir.toString());
            assertEquals(Main.EXIT_USAGE, result.code(), result.err());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().startsWith("xmit stat: " + c[1]), result.err());
        }
        assertEquals(new RunCommandTest.Result(Main.EXIT_USAGE, "", "xmit stat: --prometheus and --jmx export the " +
            "counters, --once and --json print them: one or the other\n"), RunCommandTest.xmit("stat", "--jmx",
            "--once", "--dir", dir.toString()));
    }
}
