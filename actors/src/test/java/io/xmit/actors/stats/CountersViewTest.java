package io.xmit.actors.stats;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountersViewTest
{
    @TempDir
    Path directory;

    @Test
    void visitsAllocatedCountersInIdOrderSkippingFreedOnes()
    {
        try (CountersFile file = CountersFile.create("visit", directory, 8))
        {
            final AtomicCounter packets = file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(0, 0));
            final AtomicCounter freed = file.allocate(CounterType.RX_BYTES, CounterScope.rxq(0, 0));
            final AtomicCounter backlog = file.allocate(CounterType.QDISC_BACKLOG_PACKETS, CounterScope.txq(0, 1));
            packets.setRelease(7);
            backlog.setRelease(3);
            file.free(freed);

            try (CountersView view = CountersFile.open(file.path()))
            {
                final List<String> seen = new ArrayList<>();
                view.forEach((counterId, typeId, scope, label, value) ->
                    seen.add(counterId + "/" + typeId + "/" + scope.label() + "/" + label + "/" + value));
                assertEquals(List.of("0/1000/port=0 rxq=0/rx_packets port=0 rxq=0/7",
                    "2/1108/port=0 txq=1/qdisc_backlog_packets port=0 txq=1/3"), seen);
                assertEquals(-1, view.value(CounterType.RX_BYTES, CounterScope.rxq(0, 0)));
                assertEquals(-1, view.value(CounterType.RX_PACKETS, CounterScope.port(0)));
            }
        }
    }

    @Test
    void headerCarriesPidAndStartTime()
    {
        final long before = System.currentTimeMillis();
        try (CountersFile file = CountersFile.create("header", directory, 1);
            CountersView view = CountersFile.open(file.path()))
        {
            assertEquals(ProcessHandle.current().pid(), view.pid());
            assertTrue(view.startTimeMs() >= before && view.startTimeMs() <= System.currentTimeMillis());
            assertEquals(file.path(), view.path());
        }
    }

    @Test
    void viewOutlivesTheDeletedFileAndSeesItsCountersFreed()
    {
        final CountersFile file = CountersFile.create("gone", directory, 2);
        file.allocate(CounterType.TXQ_WAKES, CounterScope.txq(0, 0)).setRelease(5);
        try (CountersView view = CountersFile.open(file.path()))
        {
            file.close();
            assertEquals(-1, view.value(CounterType.TXQ_WAKES, CounterScope.txq(0, 0)));
        }
    }

    @Test
    void ownerOfAFileWithADeadPidIsNotAlive() throws IOException
    {
        final Path copy = copyOfNewFile("dead");
        patchLong(copy, CountersFile.PID_OFFSET, 999_999_999L);
        try (CountersView view = CountersFile.open(copy))
        {
            assertEquals(999_999_999L, view.pid());
            assertFalse(view.ownerAlive());
        }
    }

    @Test
    void closedViewRefusesReadsAndClosesTwice()
    {
        try (CountersFile file = CountersFile.create("closed", directory, 1))
        {
            final CountersView view = CountersFile.open(file.path());
            view.close();
            view.close();
            assertThrows(IllegalStateException.class, () -> view.value(CounterType.RX_PACKETS, CounterScope.rxq(0, 0)));
            assertThrows(IllegalStateException.class, () -> view.forEach((id, type, scope, label, value) -> {}));
        }
    }

    @Test
    void emptyFileIsReportedAsTooShort() throws IOException
    {
        final Path empty = Files.createFile(directory.resolve("xmit-1-empty.counters"));
        assertOpenFails(empty, "0 bytes is shorter than the 128-byte header");
    }

    @Test
    void truncatedFileIsReported() throws IOException
    {
        final Path copy = copyOfNewFile("trunc");
        final byte[] bytes = Files.readAllBytes(copy);
        Files.write(copy, Arrays.copyOf(bytes, bytes.length - CountersReader.COUNTER_LENGTH));
        assertOpenFails(copy, "truncated");

        Files.write(copy, Arrays.copyOf(bytes, 100));
        assertOpenFails(copy, "shorter than the 128-byte header");
    }

    @Test
    void garbageFileIsReportedByItsMagic() throws IOException
    {
        final byte[] garbage = new byte[64 * 1024];
        new Random(42).nextBytes(garbage);
        final Path file = Files.write(directory.resolve("garbage"), garbage);
        assertOpenFails(file, "not a counters file");
        assertOpenFails(file, "expected 0x584d4954");
    }

    @Test
    void otherVersionIsReported() throws IOException
    {
        final Path copy = copyOfNewFile("version");
        patchInt(copy, CountersFile.VERSION_OFFSET, 1);
        assertOpenFails(copy, "version 1, this reader reads version 2");
    }

    @Test
    void inconsistentLengthsAreReported() throws IOException
    {
        final Path copy = copyOfNewFile("lengths");
        patchInt(copy, CountersFile.VALUES_LENGTH_OFFSET, 100);
        assertOpenFails(copy, "values length 100");

        patchInt(copy, CountersFile.VALUES_LENGTH_OFFSET, -128);
        assertOpenFails(copy, "values length -128");

        patchInt(copy, CountersFile.VALUES_LENGTH_OFFSET, 4 * 128);
        patchInt(copy, CountersFile.METADATA_LENGTH_OFFSET, 4 * 512);
        assertOpenFails(copy, "header says " + (128 + 4 * 512 + 4 * 128));
    }

    @Test
    void missingFileIsReported()
    {
        final Path missing = directory.resolve("xmit-1-missing.counters");
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> CountersFile.open(missing));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());
    }

    private Path copyOfNewFile(final String name) throws IOException
    {
        final Path copy = directory.resolve(name + ".copy");
        try (CountersFile file = CountersFile.create(name, directory, 2))
        {
            file.allocate(CounterType.SOCKET_RECEIVED, CounterScope.socket(0, 9)).setRelease(9);
            Files.copy(file.path(), copy);
        }
        try (CountersView view = CountersFile.open(copy))
        {
            assertEquals(9, view.value(CounterType.SOCKET_RECEIVED, CounterScope.socket(0, 9)));
        }
        return copy;
    }

    private static void patchInt(final Path file, final int offset, final int value) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        Files.write(file, bytes);
    }

    private static void patchLong(final Path file, final int offset, final long value) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(offset, value);
        Files.write(file, bytes);
    }

    private static void assertOpenFails(final Path file, final String expected)
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> CountersFile.open(file));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
        assertTrue(ex.getMessage().contains(file.toString()), ex.getMessage());
    }
}
