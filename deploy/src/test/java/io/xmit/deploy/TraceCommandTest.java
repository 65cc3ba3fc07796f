package io.xmit.deploy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.xmit.actors.trace.PcapngReader;
import io.xmit.actors.trace.Tracer;
import io.xmit.actors.trace.Tshark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code xmit run --trace … --trace-file}, and {@code xmit trace show} on the file it wrote. */
class TraceCommandTest
{
    private static final Pattern LOG_LINE = Pattern.compile("trace=\\d+ stage=(\\w+) ");

    @TempDir
    Path dir;

    /** The trace file, written once by xmit run for the tests that read it. */
    @TempDir
    static Path files;

    private static Path traced;

    /** Runs {@code xmit run} with tracing once, checking what it says, and gives its trace file. */
    private static synchronized Path traced()
    {
        if (null != traced)
        {
            return traced;
        }
        final Path file = files.resolve("out.pcapng");
        final RunCommandTest.Result run = xmit("run", "--duration", "1", "--rate", "2000", "--flows", "8",
            "--trace", "flow=udp:*:*-10.0.0.1:11211", "--trace", "sample=4", "--trace-file", file.toString());
        assertEquals(Main.EXIT_OK, run.code(), run.err());
        assertTrue(run.out().contains("tracing sample=4,flow=udp:*:*-10.0.0.1:11211, packets into " + file),
            run.out());
        assertTrue(run.out().contains("read it with xmit trace show " + file), run.out());
        traced = file;
        return traced;
    }

    @Test
    void runWritesATraceFileThatShowReadsAsOnePacketsTimeline() throws Exception
    {
        final Path file = traced();
        final List<PcapngReader.Packet> packets = PcapngReader.read(file);
        assertTrue(packets.size() > 10, "packets traced: " + packets.size());
        final Map<Long, Integer> sides = new HashMap<>();
        for (final PcapngReader.Packet packet : packets)
        {
            sides.merge(packet.packetId(), 1, Integer::sum);
        }
        // A request sampled on its arrival at port A is answered through socket.reply, which carries its id.
        final long both = sides.entrySet().stream().filter(e -> 2 == e.getValue()).findFirst().orElseThrow().getKey();

        final RunCommandTest.Result show = xmit("trace", "show", file.toString());
        assertEquals(Main.EXIT_OK, show.code(), show.err());
        assertEquals(packets.size() + 1, show.out().lines().count());
        assertTrue(show.out().contains(packets.size() + " packet sides"), show.out());

        final RunCommandTest.Result one = xmit("trace", "show", file.toString(), "--packet", Long.toString(both));
        assertEquals(Main.EXIT_OK, one.code(), one.err());
        final List<String> lines = one.out().lines().toList();
        assertTrue(lines.get(0).startsWith("packet " + both + ", "), one.out());
        assertTrue(lines.get(1).contains("arrived at port A as " + both + " -> replied from port A as " + both),
            one.out());
        assertTrue(lines.get(2).contains("+0 ns"), one.out());
        assertTrue(one.out().contains(" replied: TX queue "), one.out());
        assertTrue(one.out().contains("device completed it"), one.out());
    }

    /**
     * A recorded file (xmit run --rate 3 --flows 1 --trace sample=1): the first request's three ids, its send, its
     * arrival (the reply carries that id) and the reply's arrival, are one round trip whichever id is asked for.
     */
    @Test
    void packetShowsTheRoundTripOfARequestItsArrivalAndItsReply() throws Exception
    {
        final String file = Path.of(TraceCommandTest.class.getResource("/traces/round-trips.pcapng").toURI())
            .toString();
        final String trip = """
            packet 2, 4 side(s), from 19:23:53.091150553 UTC
              sent from port B as 1 -> arrived at port A as 2 -> replied from port A as 2 -> arrived at port B as 3
                        +0 ns  loopB-tx3    id=1      socket 3 on CPU -1 sent: TX queue 3, chosen by hash
                +4,877,355 ns  loopB-tx3    id=1      qdisc bypass: straight to the driver after 4877355 ns in the ring
                +4,877,355 ns  loopB-tx3    id=1      driver accepted it, packet 1/1 of a bulk, after 0 ns queued
                +5,774,558 ns  loopA-rx0    id=2      arrived on RX queue 0, CPU 0, 74 bytes, for socket 1
                +7,718,938 ns  loopA-rx0    id=2      socket 1 took it on CPU 0
                +7,857,551 ns  loopA-tx3    id=2      socket 1 on CPU 0 replied: TX queue 3, chosen by hash
                +8,243,734 ns  loopB-tx3    id=1      device completed it
               +13,944,421 ns  loopA-tx3    id=2      qdisc bypass: straight to the driver after 6086870 ns in the ring
               +13,944,421 ns  loopA-tx3    id=2      driver accepted it, packet 1/1 of a bulk, after 0 ns queued
               +14,493,744 ns  loopB-rx3    id=3      arrived on RX queue 3, CPU 1, 74 bytes, for socket 3
               +14,622,748 ns  loopA-tx3    id=2      device completed it
               +15,783,932 ns  loopB-rx3    id=3      socket 3 took it on CPU 0
            """;
        for (final String id : List.of("1", "2", "3"))
        {
            final RunCommandTest.Result show = xmit("trace", "show", file, "--packet", id);
            assertEquals(Main.EXIT_OK, show.code(), show.err());
            assertEquals(trip.replace("packet 2,", "packet " + id + ","), show.out());
        }
        // The file's last request links the same way, from the id of its reply's arrival.
        final RunCommandTest.Result last = xmit("trace", "show", file, "--packet", "12");
        assertEquals("  sent from port B as 10 -> arrived at port A as 11 -> replied from port A as 11 -> arrived at " +
            "port B as 12", last.out().lines().skip(1).findFirst().orElseThrow());
    }

    /** The file as another tool reads it: only this test needs tshark, and skips without it saying so. */
    @Test
    void tsharkReadsThePacketIdsThatPcapngReaderDoes() throws Exception
    {
        Tshark.assumeInstalled();
        final Path file = traced();
        final Tshark.Result result = Tshark.run(file, "-T", "fields", "-e", "frame.packet_id");
        final String out = result.out() + " " + result.warnings();
        assertEquals(0, result.exit(), out);
        assertEquals(List.of(), result.warnings(), out);
        assertEquals(PcapngReader.read(file).stream().map(packet -> Long.toUnsignedString(packet.packetId())).toList(),
            result.out(), out);
    }

    /**
     * Tracing without a trace file says its events go to the xmit.trace log at INFO, below the CLI's WARN: they are
     * shown, every one (each RX side is delivered and each TX side completed before the run ends), and a run after it
     * without tracing is back to WARN.
     */
    @Test
    void traceWithoutAFileShowsItsEventsOnTheLog()
    {
        final Logger log = (Logger)LoggerFactory.getLogger(Tracer.LOG);
        final ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        try
        {
            final RunCommandTest.Result run = xmit("run", "--duration", "1", "--rate", "20", "--flows", "1", "--trace",
                "sample=1");
            assertEquals(Main.EXIT_OK, run.code(), run.err());
            assertTrue(run.out().contains("tracing sample=1, events on the xmit.trace log (INFO)"), run.out());
            final Map<String, Integer> stages = new HashMap<>();
            for (final ILoggingEvent line : lines.list)
            {
                assertEquals(Level.INFO, line.getLevel(), line.getFormattedMessage());
                final Matcher stage = LOG_LINE.matcher(line.getFormattedMessage());
                assertTrue(stage.lookingAt(), line.getFormattedMessage());
                stages.merge(stage.group(1), 1, Integer::sum);
            }
            assertTrue(stages.getOrDefault("rx", 0) > 0, stages::toString);
            assertEquals(stages.get("rx"), stages.get("deliver"), stages::toString);
            assertEquals(stages.get("send"), stages.get("complete"), stages::toString);
            assertEquals(Level.INFO, log.getEffectiveLevel());

            assertEquals(Main.EXIT_OK, xmit("run", "--duration", "1", "--rate", "20", "--flows", "1").code());
            assertEquals(Level.WARN, log.getEffectiveLevel());
        }
        finally
        {
            log.detachAppender(lines);
        }
    }

    @Test
    void badTraceOptionsAndFilesAreUsageErrors() throws IOException
    {
        final RunCommandTest.Result flow = xmit("run", "--trace", "flow=udp:nowhere");
        assertEquals(Main.EXIT_USAGE, flow.code());
        assertTrue(flow.err().startsWith("xmit run: --trace 'flow=udp:nowhere': trace flow 'udp:nowhere'"),
            flow.err());
        assertEquals(Main.EXIT_USAGE, xmit("run", "--trace", "every=3").code());
        assertEquals(Main.EXIT_USAGE, xmit("trace", "show", dir.resolve("missing.pcapng").toString()).code());
        final Path notPcapng = dir.resolve("text.pcapng");
        Files.writeString(notPcapng, "not a capture, but long enough to hold a block header");
        assertEquals(Main.EXIT_FAILED, xmit("trace", "show", notPcapng.toString()).code());
    }
}
