package io.xmit.actors.stats;

import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.XpsMask;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class XpsMapsFileTest
{
    private static final FlowHasher HASHER = new FlowHasher(0x0001020304050607L, 0x08090a0b0c0d0e0fL);
    private static final FlowKey FLOW = FlowKey.parse("udp:10.0.0.1:5000-10.0.0.2:11211");

    @TempDir
    Path dir;

    @Test
    void readsBackEachPortsMapsTheHashKeyAndTheReselectionPeriod() throws IOException
    {
        final Path counters = dir.resolve("xmit-" + ProcessHandle.current().pid() + "-edge.counters");
        final QueueMap port0 = QueueMap.create(4, 2, 4).withXpsCpus(2, XpsMask.of(2, 1)).withXpsCpus(0,
            XpsMask.of(2, 1));
        final QueueMap port1 = QueueMap.create(1, 2, 1);
        try (XpsMapsFile file = XpsMapsFile.create(counters, HASHER, Duration.ofMillis(200),
            new QueueMap[] {port0, port1}))
        {
            assertEquals(dir.resolve("xmit-" + ProcessHandle.current().pid() + "-edge.xps"), file.path());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())));
            final List<String> lines = Files.readAllLines(file.path());
            assertEquals(List.of("hash-key 000102030405060708090a0b0c0d0e0f", "txq-reselection-ns 200000000",
                "ports 2", "port 0 tx-queues 4 real 4 cpus 2 rx-queues 4", "port 0 xps-cpus 1=2,0", "port 0 xps-rxqs",
                "port 1 tx-queues 1 real 1 cpus 2 rx-queues 1", "port 1 xps-cpus", "port 1 xps-rxqs"),
                lines.subList(2, lines.size()));

            final XpsMapsFile.Maps maps = XpsMapsFile.read(file.path());
            assertEquals(Duration.ofMillis(200), maps.txqReselection());
            assertEquals(HASHER.hash(FLOW), maps.hasher().hash(FLOW));
            assertArrayEquals(new int[] {2, 0}, maps.port(0).cpuEntry(1), "the order a flow hash picks from");
            assertEquals(port0.toString(), maps.port(0).toString());
            assertEquals(port1.toString(), maps.port(1).toString());
            assertEquals("port 2 is not in 0..1 (the pipeline's ports)",
                assertThrows(IllegalArgumentException.class, () -> maps.port(2)).getMessage());
        }
    }

    @Test
    void anUpdateReplacesTheFileWholeAndACloseRemovesIt() throws IOException
    {
        final Path counters = dir.resolve("xmit-" + ProcessHandle.current().pid() + "-edge.counters");
        final QueueMap before = QueueMap.create(4, 2, 4);
        final XpsMapsFile file = XpsMapsFile.create(counters, HASHER, Duration.ZERO, new QueueMap[] {before});
        file.update(0, before.withXpsRxqs(3, XpsMask.of(4, 0, 1)).withRealNumTx(2));
        final QueueMap after = XpsMapsFile.read(file.path()).port(0);
        assertEquals(2, after.realNumTx());
        assertFalse(after.rxqMapEnabled(), "tx-3 went with the shrink (§2.7)");
        try (Stream<Path> files = Files.list(dir))
        {
            assertEquals(List.of(file.path()), files.toList(), "no temporary file is left");
        }
        file.close();
        assertFalse(Files.exists(file.path()));
        file.update(0, before);
        assertFalse(Files.exists(file.path()), "nothing is written after the close");
        assertEquals("no XPS maps file " + file.path() + " (the pipeline has stopped, or predates the file)",
            assertThrows(IllegalStateException.class, () -> XpsMapsFile.read(file.path())).getMessage());
    }

    @Test
    void aDamagedFileIsNamedWithItsDamage() throws IOException
    {
        final Path damaged = dir.resolve("xmit-1-x.xps");
        Files.writeString(damaged, "xmit-xps 1\nwritten 2026-01-01T00:00:00Z\nhash-key 00\n");
        assertEquals("XPS maps file " + damaged + " is damaged: hash-key '00' is not 32 hex digits",
            assertThrows(IllegalStateException.class, () -> XpsMapsFile.read(damaged)).getMessage());
        Files.writeString(damaged, "something else\n");
        assertEquals("XPS maps file " + damaged + " is damaged: line 1 is not 'xmit-xps 1'",
            assertThrows(IllegalStateException.class, () -> XpsMapsFile.read(damaged)).getMessage());
    }

    @Test
    void theFilesOfDeadProcessesAreRemovedAtCreate() throws IOException
    {
        final Process gone = new ProcessBuilder("true").start();
        final long deadPid = gone.pid();
        assertTrue(waitFor(gone));
        final Path leftover = Files.writeString(dir.resolve("xmit-" + deadPid + "-old.xps"), "xmit-xps 1\n");
        final Path notOurs = Files.writeString(dir.resolve("xmit-notapid.xps"), "");
        XpsMapsFile.create(dir.resolve("xmit-" + ProcessHandle.current().pid() + "-new.counters"), HASHER,
            Duration.ZERO, new QueueMap[] {QueueMap.create(1, 1, 1)}).close();
        assertFalse(Files.exists(leftover), "a crashed pipeline's file");
        assertTrue(Files.exists(notOurs), "a file of another form is left alone");
    }

    private static boolean waitFor(final Process process)
    {
        try
        {
            return 0 == process.waitFor();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
