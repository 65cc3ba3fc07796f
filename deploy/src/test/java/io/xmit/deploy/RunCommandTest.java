package io.xmit.deploy;

import com.typesafe.config.ConfigFactory;
import io.xmit.actors.BusyPoll;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.XpsPreset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandTest
{
    @TempDir
    Path dir;

    record Result(int code, String out, String err)
    {
    }

    static Result xmit(final String... args)
    {
        return xmit(Terminal.PIPED, args);
    }

    /** The command with its output on {@code terminal}. */
    static Result xmit(final Terminal terminal, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), terminal);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static long number(final String json, final String key)
    {
        final Matcher matcher = Pattern.compile("\"" + Pattern.quote(key) + "\":([0-9]+)").matcher(json);
        assertTrue(matcher.find(), () -> "no \"" + key + "\" in " + json);
        return Long.parseLong(matcher.group(1));
    }

    @Test
    void runsTheScenarioAndWritesTheSummaryAsJson() throws IOException
    {
        final Path json = dir.resolve("out.json");
        final Result result = xmit("run", "--duration", "3s", "--rate", "2000", "--flows", "16", "--json",
            json.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        // One live line a second, piped; a loaded machine may skip one, never print more, and the last is the end's.
        final List<String> live = result.out().lines().filter(line -> line.startsWith("[")).toList();
        assertTrue(live.size() >= 1 && live.size() <= 3, result.out());
        assertTrue(live.getLast().startsWith("[##########]"), result.out());
        assertTrue(result.out().contains("A txq/s") && result.out().contains("B txq/s"), result.out());

        final String summary = Files.readString(json).strip();
        final long requests = number(summary, "requests_sent");
        final long replies = number(summary, "replies_received");
        assertTrue(requests > 0 && replies > 0, summary);
        assertEquals(requests, replies, "every request answered after the drain: " + summary);
        assertEquals(0, number(summary, "total"), "no drops: " + summary);
        assertTrue(summary.contains("\"stopped_by\":\"duration\""), summary);
        assertTrue(summary.matches("(?s)\\{.*\"ports\":\\[\\{\"port\":\"A\",\"tx_packets\":\\[\\d+,\\d+,\\d+,\\d+]," +
            "\"rx_delivered\":\\[\\d+,\\d+,\\d+,\\d+]}.*}"), summary);
        assertTrue(result.out().contains("replies received"), result.out());
        assertTrue(result.out().lines().anyMatch(line -> line.startsWith("  whole run ")), result.out());
        assertTrue(result.out().contains("  steady                         n/a: a run shorter than 5 s has no " +
            "warm-up to leave out"), result.out());
        assertTrue(summary.contains("\"warmup_seconds\":0,\"rtt_us\":{\"replies\":" + replies + ",") &&
            summary.contains("\"rtt_steady_us\":{\"replies\":0,"), summary);
        // The stop line's books, both directions: at rest every frame that arrived at each port was delivered.
        final String stop = result.out().lines().filter(line -> line.startsWith("stop: ")).findFirst().orElseThrow();
        assertTrue(stop.startsWith("stop: drained in ") && stop.endsWith(": balanced"), stop);
        for (final String port : List.of("A", "B"))
        {
            assertTrue(Pattern.compile("; rx port " + port + ": arrived (\\d+) = delivered \\1 \\(sockets \\d+, " +
                "host \\d+\\) \\+ in flight 0 \\(device rings 0, bursts 0, socket rings 0, host ring 0\\) \\+ " +
                "dropped 0 \\+ missed 0 \\(the other port transmitted \\1\\)").matcher(stop).find(), stop);
        }
    }

    @Test
    void onATerminalTheLiveLineIsRedrawnInPlaceWithinItsWidthAndTheSummarySaysWhichWarmUpItLeftOut()
    {
        final Result result = xmit(new Terminal(true, 80), "run", "--duration", "5s", "--rate", "2000", "--flows",
            "8");
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final String[] draws = result.out().split("\r\033\\[K", -1);
        final List<String> live = List.of(draws).subList(1, draws.length).stream()
            .map(draw -> draw.lines().findFirst().orElse("")).toList();
        // A line a second, fewer when the machine stalls the run; the last one at its end, the bar full.
        assertTrue(live.size() >= 1 && live.getLast().matches("\\[#{10}] +\\d+s .*"), result.out());
        assertTrue(live.stream().allMatch(line -> line.startsWith("[") && line.length() <= 80 &&
            line.contains(" req/s  RTT p50 ")), result.out());
        assertEquals(0, result.out().lines().filter(line -> line.startsWith("[")).count(),
            "no live line printed as a line of its own: " + result.out());
        assertTrue(draws[draws.length - 1].startsWith(live.getLast() + System.lineSeparator() +
            System.lineSeparator() + "xmit run "), "the last live line ends before the summary: " + result.out());
        assertTrue(result.out().lines().anyMatch(line -> line.matches("  steady \\(after 1 s\\) +[0-9.]+ [µm]?s / .*")),
            result.out());
        assertTrue(result.out().lines().anyMatch(line -> line.matches("  whole run +[0-9.]+ [µm]?s / .*")),
            result.out());
    }

    /** Each bad configuration: exit 2, one line on stderr naming the key (or option) and the value, no stack trace. */
    @Test
    void badConfigurationsStopBeforeAnythingStartsNamingTheKey() throws IOException
    {
        final Path typo = dir.resolve("typo.conf");
        Files.writeString(typo, "xmit { qdisc { bulk-limt = 16 } }\n");
        final Path broken = dir.resolve("broken.conf");
        Files.writeString(broken, "xmit { cpus = \n");
        final Path notASection = dir.resolve("scalar.conf");
        Files.writeString(notASection, "xmit = 3\n");
        final Path noSection = dir.resolve("flat.conf");
        Files.writeString(noSection, "cpus = 4\nqdisc { bulk-limit = 16 }\n");
        final Path empty = dir.resolve("empty.conf");
        Files.writeString(empty, "# nothing yet\n");
        final List<String[]> cases = List.of(
            new String[] {"xmit.qdisc.bulk-limt = 16 is not a known key", "--config", typo.toString()},
            new String[] {"xmit.cpu = 4 is not a known key", "--set", "cpu=4"},
            new String[] {"xmit.device: device spec 'loop:tx=-1'", "--set", "device=loop:tx=-1"},
            new String[] {"xmit.device: device spec 'wire:tx=2'", "--set", "xmit.device=wire:tx=2"},
            new String[] {"xmit.cpus = 257 is not in 1..256", "--set", "cpus=257"},
            new String[] {"--cpus 300: must be in 1..256", "--cpus", "300"},
            new String[] {"xmit.cpus = 0 is not in 1..256", "--set", "cpus=0"},
            new String[] {"xmit.xps.maps[0].cpus: xps_cpus mask 'zz'", "--set",
                "xps.maps=[{port=0, txq=1, cpus=zz}]"},
            new String[] {"xmit.xps.maps[0].cpus: xps_cpus mask '4' for tx-0: bit 2 is beyond 2 CPUs", "--set",
                "xps.maps=[{port=0, txq=0, cpus=\"4\"}]"},
            new String[] {"xmit.qdisc.bulk-limit = -1 is not in 1..1024", "--set", "qdisc.bulk-limit=-1"},
            new String[] {"xmit.qdisc.overflow = 'block'", "--set", "qdisc.overflow=block"},
            new String[] {"xmit.spin-time = \"soon\" is not a duration", "--set", "spin-time=soon"},
            new String[] {"xmit.run.rate = 0 is not a whole number in 1..100000000", "--set", "run.rate=0"},
            new String[] {"xmit.run.flow = 3 is not a known key; xmit.run knows duration, rate, flows", "--set",
                "run.flow=3"},
            new String[] {"xmit.run.duration = \"500ms\" is not in 1s..1d", "--duration", "500ms"},
            new String[] {"--duration 'soon': not a duration", "--duration", "soon"},
            new String[] {"--busy-poll 'soon': not a duration, e.g. 50us or plain µs", "--busy-poll", "soon"},
            new String[] {"xmit.busy-poll = 2s is not in 0s..1s", "--set", "busy-poll=2s"},
            new String[] {"xmit.busy-poll-budget = 0 is not in 1..1024", "--set", "busy-poll-budget=0"},
            new String[] {"--xps = 'sideways' is not an XPS preset", "--xps", "sideways"},
            new String[] {"--config '" + dir.resolve("none.conf") + "': no such file", "--config",
                dir.resolve("none.conf").toString()},
            new String[] {"--config: " + broken, "--config", broken.toString()},
            new String[] {"--set 'cpus': expected key=value", "--set", "cpus"},
            new String[] {"--json '/no-such-folder/out.json': folder /no-such-folder does not exist", "--json",
                "/no-such-folder/out.json"},
            new String[] {"xmit = 3 is not an object; xmit holds ", "--config", notASection.toString(), "--rate", "5"},
            new String[] {"xmit.qdisc = 5 is not an object; xmit.qdisc holds ", "--set", "qdisc=5"},
            new String[] {"xmit.device = 'null' has 1 port; the run scenario needs 2 (its service on port A, its " +
                "clients on port B): use loop, or afpacket to serve a kernel on a real link", "--set", "device=null"},
            new String[] {"xmit.run = [1] is not an object; xmit.run holds duration, rate, flows", "--set", "run=[1]"},
            new String[] {"--config '" + noSection + "': no xmit section; every key is under xmit { … } (the file " +
                "sets cpus, qdisc)", "--config", noSection.toString()},
            new String[] {"--config '" + empty + "': no xmit section; every key is under xmit { … }", "--config",
                empty.toString()},
            new String[] {"unknown option '--frobnicate'", "--frobnicate"});
        for (final String[] c : cases)
        {
            final String[] args = new String[c.length];
            args[0] = "run";
            System.arraycopy(c, 1, args, 1, c.length - 1);
            final Result result = xmit(args);
            assertEquals(Main.EXIT_USAGE, result.code(), () -> String.join(" ", args) + "\n" + result.err());
            assertEquals("", result.out(), String.join(" ", args));
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().startsWith("xmit run: ") && result.err().contains(c[0]),
                () -> "expected '" + c[0] + "' in: " + result.err());
        }
    }

    /** The most flows the scenario allows fit the pipeline's counters (7 per socket); before, one of 4,096 did not. */
    @Test
    void runsWithTheMostFlowsItAllows() throws IOException
    {
        final Path json = dir.resolve("flows.json");
        final Result result = xmit("run", "--duration", "1s", "--rate", "8192", "--flows", "4096", "--json",
            json.toString());
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final String summary = Files.readString(json).strip();
        // Every request came back, or it or its reply was lost under a counted reason (on a loaded machine the
        // receive rings can overflow: nic_rx_missed, rx_drop_socket_ring_full), nothing else.
        assertEquals(number(summary, "requests_sent"), number(summary, "replies_received") + number(summary, "total"),
            summary);
    }

    /** What only starting can find is one line and exit 1: here, a counters directory that is not there. */
    @Test
    void aPipelineThatCannotStartIsOneLine()
    {
        final Path missing = dir.resolve("no-such-directory");
        final Result result = xmit("run", "--set", "counters.directory=" + missing);
        assertEquals(Main.EXIT_FAILED, result.code(), result.err());
        assertEquals("xmit run: cannot start the pipeline: counters directory does not exist or is not a directory: " +
            missing, result.err().strip());
    }

    @Test
    void theEmbeddedConfigurationIsTheScenario() throws IOException
    {
        final Settings settings = Settings.load(null, List.of());
        final PipelineConfig expected = PipelineConfig.builder().name("run").cpus(2)
            .xpsPreset(XpsPreset.RXQS).qdiscRingTerm(8 << 20).socketRingTerm(64 << 10).build();
        assertEquals(expected, settings.pipeline());
        assertEquals(10, settings.duration().toSeconds());
        assertEquals(50_000, settings.rate());
        assertEquals(256, settings.flows());

        // The scenario's file over the library's defaults; that the reference sets every key is
        // EveryKeyIsDocumentedTest's.
        final String scenario = new String(RunCommandTest.class.getResourceAsStream("/" + Settings.SCENARIO)
            .readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(expected, PipelineConfig.fromConfig(ConfigFactory.parseString(scenario).withoutPath("xmit.run")
            .withFallback(ConfigFactory.defaultReference()).resolve()));
    }

    /** More xmit CPUs than processors is allowed (a test may want it) but said; as many as there are is not. */
    @Test
    void moreCpusThanProcessorsIsAWarning()
    {
        final Settings settings = Settings.load(null, List.of("cpus=3"));
        assertEquals(List.of("xmit.cpus = 3 is more than the 2 processors here: the pipeline's actors will share " +
            "them, so its figures will not be those of 3 CPUs"), settings.warnings(2));
        assertEquals(List.of(), settings.warnings(3));
    }

    /** kernel-semantics §9: the option counts plain µs, as the kernel's busy_read does; --set takes a duration. */
    @Test
    void busyPollingIsSetByItsOptionOrItsKeysAndTheLiveLineShowsItsShare()
    {
        assertEquals(Duration.ZERO, Settings.load(null, List.of()).pipeline().busyPoll().time(), "off by default");
        final BusyPoll set = Settings.load(null, List.of("busy-poll=50us", "busy-poll-budget=16",
            "prefer-busy-poll=on")).pipeline().busyPoll();
        assertEquals(new BusyPoll(Duration.ofNanos(50_000), 16, true), set);

        final Result result = xmit("run", "--duration", "2s", "--rate", "2000", "--flows", "8", "--busy-poll", "50");
        assertEquals(Main.EXIT_OK, result.code(), result.err());
        final List<String> live = result.out().lines().filter(line -> line.startsWith("[")).toList();
        assertTrue(!live.isEmpty() && live.stream().allMatch(line -> line.matches(".* busy-poll +\\d+% of rx .*")),
            result.out());
        assertTrue(xmit("run", "--duration", "1s", "--rate", "1000", "--flows", "4").out().lines()
            .filter(line -> line.startsWith("[")).noneMatch(line -> line.contains("busy-poll")),
            "without busy polling the live line does not show it");
    }

    @Test
    void laterOverridesWinOverTheFileAndTheReference() throws IOException
    {
        final Path file = dir.resolve("edge.conf");
        Files.writeString(file, "xmit { name = edge, cpus = 1, qdisc.bulk-limit = 8, run.rate = 7 }\n");
        final Settings settings = Settings.load(file, List.of("cpus=3", "xmit.cpus=4", "device=loop:tx=2,rx=2",
            "xmit.run.duration=2s", "cores=[0, 1, 0, 1]"));
        assertEquals("edge", settings.pipeline().name());
        assertEquals(4, settings.pipeline().cpus());
        assertEquals(List.of(0, 1, 0, 1), settings.pipeline().cores());
        assertEquals(8, settings.pipeline().bulkLimit());
        assertEquals("loop:tx=2,rx=2", settings.pipeline().device());
        assertEquals(7, settings.rate());
        assertEquals(2, settings.duration().toSeconds());
    }

    /**
     * The application's configuration as Akka reads it ({@code -Dconfig.file} here, else {@code application.conf}) lies
     * over the scenario, and under {@code --config} and {@code --set}.
     */
    @Test
    void theApplicationsConfigurationLiesBetweenTheScenarioAndTheFile() throws IOException
    {
        final Path application = dir.resolve("application.conf");
        Files.writeString(application, "xmit { name = app, qdisc { bulk-limit = 8, quota = 16 }, run.rate = 9 }\n");
        final Path file = dir.resolve("edge.conf");
        Files.writeString(file, "xmit.qdisc.quota = 32\n");
        System.setProperty("config.file", application.toString());
        ConfigFactory.invalidateCaches();
        try
        {
            final Settings settings = Settings.load(file, List.of("name=edge"));
            assertEquals(PipelineConfig.builder().name("edge").cpus(2).xpsPreset(XpsPreset.RXQS).socketRingTerm(64 << 10)
                .bulkLimit(8).quota(32).build(), settings.pipeline());
            assertEquals(9, settings.rate());

            Files.writeString(application, "xmit.qdisc.bulk-limt = 8\n");
            ConfigFactory.invalidateCaches();
            final UsageException typo = assertThrows(UsageException.class, () -> Settings.load(null, List.of()));
            assertEquals("xmit.qdisc.bulk-limt = 8 is not a known key; xmit.qdisc knows quota, bulk-limit, " +
                "band-limit, overflow, bypass, sender-bypass", typo.getMessage());
        }
        finally
        {
            System.clearProperty("config.file");
            ConfigFactory.invalidateCaches();
        }
    }

    /** A file may build sections from substitutions: the check that sections are objects waits for them. */
    @Test
    void sectionsMadeOfSubstitutionsAreAccepted() throws IOException
    {
        final Path file = dir.resolve("substituted.conf");
        Files.writeString(file, "base { quota = 8 }\nshared { device = \"loop:tx=2,rx=2\" }\n" +
            "xmit.qdisc = ${base} { bulk-limit = 16 }\nxmit = ${shared}\nxmit { cpus = 2 }\n");
        final Settings settings = Settings.load(file, List.of());
        assertEquals(8, settings.pipeline().quota());
        assertEquals(16, settings.pipeline().bulkLimit());
        assertEquals("loop:tx=2,rx=2", settings.pipeline().device());
        assertEquals(2, settings.pipeline().cpus());
    }
}
