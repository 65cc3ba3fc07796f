package io.xmit.actors.stats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * {@code xmit stat} reads another process's counters file, which a crash or a stray writer may have damaged: a file
 * whose header is sound but whose counter records hold random bytes reads as counters or fails with an
 * {@link IllegalStateException} naming the file, never with anything else. Seeded ({@code -Dtest.fuzz.seed}), the
 * seed in every message; a fixed number of files.
 */
class CountersViewFuzzTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", System.nanoTime());
    private static final int FILES = 3_000;

    @TempDir
    Path directory;

    @Test
    void damagedCounterRecordsReadAsCountersOrAsAnErrorNamingTheFile() throws Exception
    {
        final byte[] original;
        try (CountersFile file = CountersFile.create("fuzz", directory, 16))
        {
            for (final CounterType type : new CounterType[] {CounterType.RX_PACKETS, CounterType.QDISC_PACKETS,
                CounterType.HOST_RX, CounterType.TRACE_EVENTS})
            {
                file.allocate(type, CounterScope.rxq(0, 1)).setRelease(type.typeId());
            }
            original = Files.readAllBytes(file.path());
        }
        final Random random = new Random(SEED);
        final Path damaged = directory.resolve("xmit-1-damaged.counters");
        int refused = 0;
        for (int i = 0; i < FILES; i++)
        {
            final byte[] bytes = original.clone();
            final int changes = 1 + random.nextInt(16);
            for (int c = 0; c < changes; c++)
            {
                final int at = CountersFile.HEADER_LENGTH + random.nextInt(bytes.length - CountersFile.HEADER_LENGTH);
                bytes[at] = (byte)(random.nextInt(4) == 0 ? 0xFF : random.nextInt(256));
            }
            Files.write(damaged, bytes);
            try (CountersView view = CountersFile.open(damaged))
            {
                view.forEach((counterId, typeId, scope, label, value) -> { });
                view.value(CounterType.RX_PACKETS, CounterScope.rxq(0, 1));
            }
            catch (final IllegalStateException ex)
            {
                if (!ex.getMessage().contains(damaged.toString()))
                {
                    throw new AssertionError("seed " + SEED + ", file " + i + ": the message does not name the " +
                        "file: " + ex.getMessage(), ex);
                }
                refused++;
            }
            catch (final RuntimeException ex)
            {
                throw new AssertionError("seed " + SEED + " (-Dtest.fuzz.seed=" + SEED + "), file " + i + ": " + ex,
                    ex);
            }
        }
        System.out.printf("counters fuzz: seed %d, %,d damaged files, %,d refused%n", SEED, FILES, refused);
    }
}
