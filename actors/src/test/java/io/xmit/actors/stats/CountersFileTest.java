package io.xmit.actors.stats;

import io.xmit.actors.stats.CounterScope.Side;
import io.xmit.actors.stats.CounterScope.Stage;
import io.xmit.transport.nic.ThreadCapabilities;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CountersFileTest
{
    private static final long PID = ProcessHandle.current().pid();

    /** Above Linux's largest pid_max (2^22), so no process can have it. */
    private static final long DEAD_PID = 999_999_999L;


    @TempDir
    Path directory;

    @Test
    void counterSetInOneMappingIsReadThroughAnIndependentMapping()
    {
        try (CountersFile file = CountersFile.create("pipe-1", directory, 16))
        {
            final AtomicCounter bypassed = file.allocate(CounterType.QDISC_BYPASSED, CounterScope.txq(0, 3));
            bypassed.setRelease(42);
            bypassed.incrementRelease();

            try (CountersView view = CountersFile.open(file.path()))
            {
                assertEquals(43, view.value(CounterType.QDISC_BYPASSED, CounterScope.txq(0, 3)));
                assertEquals(PID, view.pid());
                assertTrue(view.ownerAlive());

                bypassed.incrementRelease();
                assertEquals(44, view.value(CounterType.QDISC_BYPASSED, CounterScope.txq(0, 3)));
            }
        }
    }

    @Test
    void fileIsNamedWithPidAndPipelineName()
    {
        try (CountersFile file = CountersFile.create("edge.v4_a", directory, 1))
        {
            assertEquals(directory.resolve("xmit-" + PID + "-edge.v4_a.counters"), file.path());
            assertTrue(Files.isRegularFile(file.path()));
        }
    }

    @Test
    void labelIsTypeLabelThenScopeAndTypeIdIsStored()
    {
        try (CountersFile file = CountersFile.create("labels", directory, 16))
        {
            final AtomicCounter drops = file.allocate(CounterType.RX_DROP_NO_SOCKET, CounterScope.rxq(1, 2));
            final AtomicCounter stops = file.allocate(CounterType.TXQ_STOPS, CounterScope.txq(0, 7));

            final CountersReader reader = file.reader();
            assertEquals("rx_drop_no_socket port=1 rxq=2", reader.getCounterLabel(drops.id()));
            assertEquals(CounterType.RX_DROP_NO_SOCKET.typeId(), reader.getCounterTypeId(drops.id()));
            assertEquals("txq_stops port=0 txq=7", reader.getCounterLabel(stops.id()));
            assertEquals(CounterType.TXQ_STOPS.typeId(), reader.getCounterTypeId(stops.id()));
        }
    }

    @Test
    void scopeWrittenAsTheKeyIsDecodedByAReaderOfAnotherMapping()
    {
        final List<CounterScope> scopes = List.of(CounterScope.tracer(), CounterScope.port(10), CounterScope.rxq(1, 2),
            CounterScope.txq(10, 3), CounterScope.socket(1, 7), CounterScope.txq(1, 3).withStage(Stage.QDISC),
            CounterScope.port(1).withStage(Stage.HOST), CounterScope.txq(1, 3).withSide(Side.RECLAIM));
        try (CountersFile file = CountersFile.create("keys", directory, 16))
        {
            for (int i = 0; i < scopes.size(); i++)
            {
                file.allocate(CounterType.STAGE_RESTARTS, scopes.get(i)).setRelease(100 + i);
            }
            try (CountersView view = CountersFile.open(file.path()))
            {
                final List<CounterScope> decoded = new ArrayList<>();
                final List<String> labels = new ArrayList<>();
                view.forEach((counterId, typeId, scope, label, value) ->
                {
                    decoded.add(scope);
                    labels.add(label);
                    assertEquals(100 + counterId, value, label);
                });
                assertEquals(scopes, decoded);
                assertEquals(scopes.stream().map(scope -> "stage_restarts " + scope.label()).toList(), labels);
                for (int i = 0; i < scopes.size(); i++)
                {
                    assertEquals(100 + i, view.value(CounterType.STAGE_RESTARTS, scopes.get(i)));
                    assertEquals(100 + i, file.value(CounterType.STAGE_RESTARTS, scopes.get(i)));
                }
                assertEquals(-1, view.value(CounterType.STAGE_RESTARTS, CounterScope.txq(1, 3)));
                assertEquals(-1, view.value(CounterType.RX_PACKETS, CounterScope.rxq(1, 2)));
            }
        }
    }

    @Test
    void totalOfAPortIsItsQueuesSocketsStagesAndOwnCountersNotAnotherPortsNorASides()
    {
        try (CountersFile file = CountersFile.create("totals", directory, 16))
        {
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(1, 0)).setRelease(1);
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(1, 1)).setRelease(2);
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(10, 0)).setRelease(100);
            file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(1, 10)).setRelease(3);
            file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(10, 1)).setRelease(300);
            file.allocate(CounterType.HOST_RX, CounterScope.port(1)).setRelease(4);
            file.allocate(CounterType.HOST_RX, CounterScope.port(10)).setRelease(400);
            file.allocate(CounterType.TXQ_DRIVER_ERRORS, CounterScope.txq(1, 0)).setRelease(5);
            file.allocate(CounterType.TXQ_DRIVER_ERRORS, CounterScope.txq(1, 0).withSide(Side.RECLAIM)).setRelease(50);
            file.allocate(CounterType.STAGE_RESTARTS, CounterScope.txq(1, 0).withStage(Stage.QDISC)).setRelease(6);
            file.allocate(CounterType.STAGE_RESTARTS, CounterScope.port(1).withStage(Stage.HOST)).setRelease(7);
            file.allocate(CounterType.STAGE_RESTARTS, CounterScope.port(10).withStage(Stage.HOST)).setRelease(700);

            assertEquals(3, file.total(CounterType.RX_PACKETS, 1));
            assertEquals(100, file.total(CounterType.RX_PACKETS, 10));
            assertEquals(3, file.total(CounterType.SOCKET_SENT, 1));
            assertEquals(300, file.total(CounterType.SOCKET_SENT, 10));
            assertEquals(4, file.total(CounterType.HOST_RX, 1));
            assertEquals(400, file.total(CounterType.HOST_RX, 10));
            assertEquals(5, file.total(CounterType.TXQ_DRIVER_ERRORS, 1));
            assertEquals(13, file.total(CounterType.STAGE_RESTARTS, 1));
            assertEquals(700, file.total(CounterType.STAGE_RESTARTS, 10));
            assertEquals(0, file.total(CounterType.RX_PACKETS, 0));
        }
    }

    @Test
    void fullFileSaysItsCapacityAndHowToRaiseIt()
    {
        try (CountersFile file = CountersFile.create("full", directory, 2))
        {
            file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 0));
            file.allocate(CounterType.RX_BYTES, CounterScope.rxq(0, 0));

            final IllegalStateException ex = assertThrows(
                IllegalStateException.class, () -> file.allocate(CounterType.RX_POLLS, CounterScope.rxq(0, 0)));
            assertTrue(ex.getMessage().contains("capacity of 2 counters"), ex.getMessage());
            assertTrue(ex.getMessage().contains("rx_polls port=0 rxq=0"), ex.getMessage());
            assertTrue(ex.getMessage().contains("larger capacity"), ex.getMessage());
        }
    }

    @Test
    void freedSlotIsReusedAndDisappearsFromReaders()
    {
        try (CountersFile file = CountersFile.create("reuse", directory, 1))
        {
            final AtomicCounter first = file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(0, 1));
            file.free(first);
            file.free(first);

            final AtomicCounter second = file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(0, 2));
            try (CountersView view = CountersFile.open(file.path()))
            {
                assertEquals(-1, view.value(CounterType.SOCKET_SENT, CounterScope.socket(0, 1)));
                assertEquals(0, view.value(CounterType.SOCKET_SENT, CounterScope.socket(0, 2)));
            }
            assertEquals(first.id(), second.id());
        }
    }

    @Test
    void rejectsBadPipelineNamesNamingThem()
    {
        for (final String name : new String[]{"", "a b", "a/b", "..x/y", "pipe\u00e9", "x".repeat(65), "a*"})
        {
            final IllegalArgumentException ex = assertThrows(
                IllegalArgumentException.class, () -> CountersFile.create(name, directory, 1), name);
            assertTrue(ex.getMessage().contains("'" + name + "'"), ex.getMessage());
        }
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> CountersFile.create(null, directory, 1));
        assertTrue(ex.getMessage().contains("null"), ex.getMessage());

        try (CountersFile longest = CountersFile.create("x".repeat(64), directory, 1))
        {
            assertTrue(Files.exists(longest.path()));
        }
    }

    @Test
    void rejectsCapacityOutOfRangeNamingIt()
    {
        for (final int capacity : new int[]{0, -1, 1_000_001, Integer.MAX_VALUE})
        {
            final IllegalArgumentException ex = assertThrows(
                IllegalArgumentException.class, () -> CountersFile.create("cap", directory, capacity));
            assertTrue(ex.getMessage().contains("capacity") && ex.getMessage().endsWith(": " + capacity),
                ex.getMessage());
        }
    }

    @Test
    void rejectsMissingDirectoryOrFileNamingIt() throws IOException
    {
        final Path missing = directory.resolve("missing");
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> CountersFile.create("pipe", missing, 1));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());

        final Path regularFile = Files.createFile(directory.resolve("plain"));
        final IllegalArgumentException notDirectory = assertThrows(
            IllegalArgumentException.class, () -> CountersFile.create("pipe", regularFile, 1));
        assertTrue(notDirectory.getMessage().contains(regularFile.toString()), notDirectory.getMessage());
    }

    @Test
    void rejectsUnwritableDirectoryNamingIt() throws Exception
    {
        final Path readOnly = Files.createDirectory(directory.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-x------"));
        try
        {
            // root may write anywhere through CAP_DAC_OVERRIDE, so the create runs on a thread without it (and
            // without the other capabilities that bypass file permissions): the directory's r-x then holds for
            // root too, and for an ordinary user, who has none of them, nothing changes.
            final IllegalArgumentException ex = onThreadWithoutFileCapabilities(() -> assertThrows(
                IllegalArgumentException.class, () -> CountersFile.create("pipe", readOnly, 1)));
            assertEquals("counters directory is not writable: " + readOnly, ex.getMessage());
            try (Stream<Path> left = Files.list(readOnly))
            {
                assertEquals(List.of(), left.toList(), "nothing created in the refused directory");
            }
        }
        finally
        {
            Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /**
     * Runs {@code work} on a new thread whose effective and permitted capability sets lack CAP_DAC_OVERRIDE,
     * CAP_DAC_READ_SEARCH and CAP_FOWNER (capabilities are per thread in Linux, and access(2), which
     * {@link Files#isWritable} uses, checks the permitted set for root): its result or its exception.
     */
    private static <T> T onThreadWithoutFileCapabilities(final Callable<T> work) throws Exception
    {
        final FutureTask<T> task = new FutureTask<>(() ->
        {
            try
            {
                ThreadCapabilities.drop(true, ThreadCapabilities.CAP_DAC_OVERRIDE,
                    ThreadCapabilities.CAP_DAC_READ_SEARCH, ThreadCapabilities.CAP_FOWNER);
            }
            catch (final Exception | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
            return work.call();
        });
        Thread.ofPlatform().name("no-dac-override").start(task);
        try
        {
            return task.get(30, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof Exception cause)
            {
                throw cause;
            }
            if (ex.getCause() instanceof Error cause)
            {
                throw cause;
            }
            throw ex;
        }
    }

    @Test
    void rejectsSecondFileOfTheSameNameInOneProcess()
    {
        try (CountersFile file = CountersFile.create("twice", directory, 1))
        {
            final IllegalStateException ex = assertThrows(
                IllegalStateException.class, () -> CountersFile.create("twice", directory, 1));
            assertTrue(ex.getMessage().contains("'twice'"), ex.getMessage());
            assertTrue(Files.exists(file.path()));
        }
    }

    @Test
    void closeDeletesTheFileAndIsIdempotent()
    {
        final CountersFile file = CountersFile.create("closing", directory, 4);
        final AtomicCounter counter = file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 0));
        counter.incrementRelease();

        file.close();
        assertFalse(Files.exists(file.path()));
        file.close();
        file.free(counter);

        final IllegalStateException ex = assertThrows(
            IllegalStateException.class, () -> file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 1)));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
    }

    @Test
    void createRemovesFilesOfDeadProcessesAndKeepsLiveOnes() throws IOException
    {
        assumeTrue(ProcessHandle.of(DEAD_PID).isEmpty(), "pid " + DEAD_PID + " is alive here");
        final Path dead = Files.write(directory.resolve("xmit-" + DEAD_PID + "-x.counters"), new byte[256]);
        final Path live = Files.write(directory.resolve("xmit-" + PID + "-other.counters"), new byte[256]);
        final Path foreign = Files.write(directory.resolve("xmit-" + DEAD_PID + "-x.log"), new byte[1]);

        try (CountersFile file = CountersFile.create("next", directory, 1))
        {
            assertFalse(Files.exists(dead));
            assertTrue(Files.exists(live));
            assertTrue(Files.exists(foreign));
            assertEquals(List.of(file.path(), live), CountersFile.list(directory));
        }
    }

    @Test
    void removeFilesOfDeadProcessesCountsWhatItRemoved() throws IOException
    {
        assumeTrue(ProcessHandle.of(DEAD_PID).isEmpty(), "pid " + DEAD_PID + " is alive here");
        Files.write(directory.resolve("xmit-" + DEAD_PID + "-a.counters"), new byte[1]);
        Files.write(directory.resolve("xmit-" + DEAD_PID + "-b.counters"), new byte[1]);
        Files.write(directory.resolve("xmit-" + PID + "-c.counters"), new byte[1]);

        assertEquals(2, CountersFile.removeFilesOfDeadProcesses(directory));
        assertEquals(0, CountersFile.removeFilesOfDeadProcesses(directory));
        assertEquals(List.of(directory.resolve("xmit-" + PID + "-c.counters")), CountersFile.list(directory));
    }

    @Test
    void listsOnlyCountersFilesByName() throws IOException
    {
        Files.write(directory.resolve("xmit-12-b.counters"), new byte[1]);
        Files.write(directory.resolve("xmit-3-a.counters"), new byte[1]);
        Files.write(directory.resolve("xmit-x-a.counters"), new byte[1]);
        Files.write(directory.resolve("other-3-a.counters"), new byte[1]);
        Files.write(directory.resolve("xmit-3-a.counters.tmp"), new byte[1]);

        assertEquals(
            List.of(directory.resolve("xmit-12-b.counters"), directory.resolve("xmit-3-a.counters")),
            CountersFile.list(directory));
    }

    @Test
    void rejectsMissingTypeOrScope()
    {
        try (CountersFile file = CountersFile.create("scopes", directory, 4))
        {
            assertThrows(IllegalArgumentException.class, () -> file.allocate(CounterType.RX_PACKETS, null));
            assertThrows(IllegalArgumentException.class, () -> file.allocate(null, CounterScope.rxq(0, 0)));
        }
    }
}
