package io.xmit.actors.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code xmit trace show} on any bytes: a trace file with random bytes changed, or cut anywhere, reads as packets or
 * fails with an {@link IOException} that names the file, never with anything else. Seeded ({@code -Dtest.fuzz.seed}),
 * the seed in every message; a fixed number of files.
 */
class PcapngReaderFuzzTest
{
    private static final long SEED = Long.getLong("test.fuzz.seed", System.nanoTime());
    private static final int FILES = 200_000;
    private static final String NAME = "fuzzed.pcapng";

    @TempDir
    Path dir;

    @Test
    void anyDamageReadsAsPacketsOrAsAnIoExceptionNamingTheFile() throws Exception
    {
        final byte[] original = traceFile();
        assertEquals(3, PcapngReader.read(original, NAME).size());
        final Random random = new Random(SEED);
        int refused = 0;
        for (int i = 0; i < FILES; i++)
        {
            final byte[] bytes = damage(original, random);
            try
            {
                PcapngReader.read(bytes, NAME);
            }
            catch (final IOException ex)
            {
                if (!ex.getMessage().startsWith(NAME))
                {
                    fail("seed " + SEED + ", file " + i + ": the message does not name the file: " + ex.getMessage());
                }
                refused++;
            }
            catch (final RuntimeException ex)
            {
                throw new AssertionError("seed " + SEED + " (-Dtest.fuzz.seed=" + SEED + "), file " + i + ": " + ex,
                    ex);
            }
        }
        System.out.printf("pcapng fuzz: seed %d, %,d damaged files, %,d refused with an IOException%n", SEED, FILES,
            refused);
    }

    /** One to eight random bytes changed, or, one time in four, the file cut at a random length as well. */
    private static byte[] damage(final byte[] original, final Random random)
    {
        final byte[] bytes = random.nextInt(4) == 0 ?
            Arrays.copyOf(original, random.nextInt(original.length + 1)) : original.clone();
        final int changes = 1 + random.nextInt(8);
        for (int c = 0; c < changes && bytes.length > 0; c++)
        {
            bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
        }
        return bytes;
    }

    private byte[] traceFile() throws IOException
    {
        final Path file = dir.resolve(NAME);
        try (PcapngWriter writer = new PcapngWriter(file))
        {
            writer.sectionHeader("fuzz");
            writer.interfaceDescription("loopA-rx0", 128);
            writer.interfaceDescription("loopA-tx1", 128);
            for (int p = 0; p < 3; p++)
            {
                final byte[] frame = new byte[42 + 7 * p];
                Arrays.fill(frame, (byte)p);
                writer.enhancedPacket(p % 2, 1_700_000_000_000_000_000L + p, frame, frame.length + p,
                    p % 2 == 0 ? PcapngWriter.INBOUND : PcapngWriter.OUTBOUND, 10 + p, p, "dir=tx txq=" + p);
            }
            writer.interfaceStatistics(1, 1_700_000_001_000_000_000L, 1_700_000_000_000_000_000L, 3, 0,
                "trace_dropped=0");
        }
        return Files.readAllBytes(file);
    }
}
