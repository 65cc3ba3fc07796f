package io.xmit.deploy;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueExplanation;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SelectionRule;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A running pipeline's XPS maps seen from outside it: {@code xmit stat --xps} and {@code xmit explain --live} read
 * the maps file its mapping actors rewrite on each change made through the public API, and agree with what the
 * pipeline itself answers; the file goes with the pipeline; a pipeline named wrongly is one line, exit 2.
 */
class LiveXpsTest
{
    private static final String FLOW = "udp:10.0.0.2:40000-10.0.0.1:7";

    @TempDir
    Path dir;

    private ActorSystem<Void> system;
    private Pipeline pipeline;

    @BeforeEach
    void start()
    {
        system = ActorSystem.create(Behaviors.empty(), "live-xps-test");
        pipeline = Pipeline.start(system, PipelineConfig.builder().name("live-xps").cpus(2).xpsPreset(XpsPreset.RXQS)
            .qdiscRingTerm(1 << 16).socketRingTerm(1 << 16).countersDir(dir).build());
    }

    @AfterEach
    void stop()
    {
        pipeline.close();
        system.terminate();
    }

    @Test
    void statXpsAndExplainLiveFollowAChangeMadeThroughTheApi()
    {
        final Path file = XpsMapsFile.beside(pipeline.countersPath());
        assertEquals(List.of("rw-------"), List.of(permissions(file)), "the file holds the flow hash key");
        assertEquals(3, explainLive("--rx-queue", "3").txq(), "the RXQS preset: rx queue 3 -> tx-3");

        // rx queue 1 moves from tx-1 to tx-3: the entry becomes [1, 3] (appended), then [3] (tx-1 removed).
        assertTrue(pipeline.setXpsRxqs(0, 3, "a").applied());
        assertTrue(pipeline.setXpsRxqs(0, 1, "0").applied());

        final XpsMapsFile.Maps maps = XpsMapsFile.read(file);
        final QueueMap live = pipeline.queueMap(0);
        for (int rxq = 0; rxq < 4; rxq++)
        {
            assertArrayEquals(live.rxqEntry(rxq), maps.port(0).rxqEntry(rxq), "rx queue " + rxq + "'s entry");
        }
        assertArrayEquals(new int[] {3}, maps.port(0).rxqEntry(1));

        final RunCommandTest.Result stat = xmit("stat", "--xps", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, stat.code(), stat.err());
        final long pid = ProcessHandle.current().pid();
        assertEquals(List.of(
            "pipeline live-xps (pid " + pid + ")  XPS maps as of " + maps.written(),
            "txq-reselection 1s (a cached TX queue is chosen again once it is that old; 0s: never)",
            "port A  4 of 4 TX queues real, 2 CPUs, 4 RX queues; rules: cached, xps-rxqs, hash",
            "  txq   xps_cpus  xps_rxqs",
            "  tx-0         0         1",
            "  tx-1         0         0",
            "  tx-2         0         4",
            "  tx-3         0         a",
            "  xps_cpus no map",
            "  xps_rxqs rxq 0 -> 0",
            "  xps_rxqs rxq 1 -> 3",
            "  xps_rxqs rxq 2 -> 2",
            "  xps_rxqs rxq 3 -> 3"), stat.out().lines().limit(13).toList(), stat.out());
        assertTrue(stat.out().contains("port B  4 of 4 TX queues real"), stat.out());

        final RunCommandTest.Result explained = xmit("explain", "--live", "--dir", dir.toString(), "--flow", FLOW,
            "--rx-queue", "1", "--cpu", "1");
        assertEquals(Main.EXIT_OK, explained.code(), explained.err());
        assertEquals("maps    live: pipeline live-xps (pid " + pid + ") port A as of " + maps.written() +
            ", txq-reselection 1s", explained.out().lines().findFirst().orElseThrow());
        assertTrue(explained.out().contains("  xps_rxqs  rx queue 1 -> [3]\ntxq     3 via xps-rxqs\n"),
            explained.out());
        assertEquals(explanation(1, 1), explainLive("--rx-queue", "1", "--cpu", "1"));

        // No RX queue: the flow hash with the pipeline's own key, as the pipeline itself answers.
        assertEquals(explanation(-1, -1), explainLive());
        assertEquals(SelectionRule.HASH.label(), explainLive().via());
    }

    @Test
    void theFileGoesWithThePipeline()
    {
        final Path file = XpsMapsFile.beside(pipeline.countersPath());
        assertTrue(Files.exists(file), file.toString());
        pipeline.close();
        assertFalse(Files.exists(file), file + " after close");
        final RunCommandTest.Result after = xmit("explain", "--live", "--dir", dir.toString(), "--flow", FLOW);
        assertEquals(Main.EXIT_FAILED, after.code());
        assertEquals("xmit explain: no xmit pipeline is running (no counters file of a live process in " + dir + ")",
            after.err().strip());
    }

    @Test
    void aPipelineNamedWronglyIsOneLineAndExitTwo()
    {
        final long pid = ProcessHandle.current().pid();
        final RunCommandTest.Result name = xmit("explain", "--live", "--dir", dir.toString(), "--name", "nope",
            "--flow", FLOW);
        assertEquals(Main.EXIT_USAGE, name.code());
        assertEquals("xmit explain: no xmit pipeline named 'nope' is running (running: live-xps (pid " + pid + "))",
            name.err().strip());
        final RunCommandTest.Result otherPid = xmit("explain", "--live", "--dir", dir.toString(), "--pid",
            "2147483647", "--flow", FLOW);
        assertEquals(Main.EXIT_USAGE, otherPid.code());
        assertEquals("xmit explain: no xmit pipeline in process 2147483647 is running (running: live-xps (pid " +
            pid + "))", otherPid.err().strip());
        final RunCommandTest.Result statName = xmit("stat", "--xps", "nope", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, statName.code());
        assertEquals(1, statName.err().lines().count(), statName.err());

        assertEquals(Main.EXIT_OK, xmit("explain", "--live", "--dir", dir.toString(), "--pid", String.valueOf(pid),
            "--name", "live-xps", "--flow", FLOW).code());
        final RunCommandTest.Result mixed = xmit("explain", "--live", "--dir", dir.toString(), "--tx-queues", "4",
            "--flow", FLOW);
        assertEquals(Main.EXIT_USAGE, mixed.code());
        assertTrue(mixed.err().startsWith("xmit explain: --live explains against the running pipeline's maps"),
            mixed.err());
        final RunCommandTest.Result noLive = xmit("explain", "--pid", String.valueOf(pid), "--tx-queues", "4",
            "--flow", FLOW);
        assertEquals(Main.EXIT_USAGE, noLive.code());
        assertEquals("xmit explain: --name, --pid, --port and --dir choose the running pipeline --live reads: add " +
            "--live", noLive.err().strip());
        final RunCommandTest.Result port = xmit("explain", "--live", "--dir", dir.toString(), "--port", "2",
            "--flow", FLOW);
        assertEquals(Main.EXIT_USAGE, port.code());
        assertEquals("xmit explain: --port 2: pipeline live-xps has ports 0..1", port.err().strip());
    }

    /** What the pipeline's mapping actor answers for {@link #FLOW} on port 0, as {@code explain --json} prints it. */
    private Answer explanation(final int cpu, final int rxQueue)
    {
        final QueueExplanation answer = pipeline.explain(0, FlowKey.parse(FLOW), cpu, rxQueue);
        return new Answer(answer.txQueue(), answer.rule().label(), Integer.toUnsignedLong(answer.flowHash()));
    }

    private Answer explainLive(final String... options)
    {
        final List<String> args = new ArrayList<>(List.of("explain", "--live", "--json", "--dir",
            dir.toString(), "--flow", FLOW));
        args.addAll(List.of(options));
        final RunCommandTest.Result result = xmit(args.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final String json = result.out().strip();
        final Matcher matcher =
            Pattern.compile("\\{\"txq\":(\\d+),\"via\":\"([a-z-]+)\",\"hash\":(\\d+)}").matcher(json);
        assertTrue(matcher.matches(), json);
        return new Answer(Integer.parseInt(matcher.group(1)), matcher.group(2), Long.parseLong(matcher.group(3)));
    }

    private record Answer(int txq, String via, long hash)
    {
    }

    private static String permissions(final Path file)
    {
        try
        {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
