package io.xmit.transport.ring;

import io.aeron.driver.ThreadingMode;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rings' lifecycle: a directory per instance, removed on close, and clear errors for bad settings. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingsTest
{
    private static final RingsConfig SMALL =
        RingsConfig.defaults().withMaxFrameLength(1518).withIpcTermLength(64 * 1024);

    @Test
    void closeRemovesTheDirectoryAndIsIdempotent()
    {
        final Rings rings = Rings.launch("close-test", SMALL);
        final Path directory = rings.directory();
        assertTrue(Files.isDirectory(directory), directory + " exists while running");
        assertTrue(directory.getFileName().toString().startsWith("xmit-" + ProcessHandle.current().pid() + "-"));
        assertTrue(directory.getFileName().toString().endsWith("-close-test"));
        final PacketPublication publication = rings.addPublication(1, new RingDoorbell(() -> { }));
        final PacketSubscription subscription = rings.addSubscription(1, new RingDoorbell(() -> { }));

        rings.close();
        assertFalse(Files.exists(directory), directory + " is removed");
        assertTrue(rings.isClosed());
        assertTrue(publication.isClosed());
        assertTrue(subscription.isClosed());
        rings.close();
        assertFalse(Files.exists(directory));
        final IllegalStateException ex =
            assertThrows(IllegalStateException.class, () -> rings.addPublication(2, new RingDoorbell(() -> { })));
        assertEquals("xmit rings 'close-test' are closed", ex.getMessage());
    }

    @Test
    void twoRingsInOneProcessHaveTheirOwnDirectoriesAndWorkAtOnce()
    {
        try (Rings first = Rings.launch("same", SMALL);
            Rings second = Rings.launch("same", SMALL.withThreadingMode(ThreadingMode.DEDICATED)))
        {
            assertNotEquals(first.directory(), second.directory());
            final Loop a = new Loop(first);
            final Loop b = new Loop(second);
            a.awaitConnected();
            b.awaitConnected();

            for (int i = 0; i < 1000; i++)
            {
                a.sendAndReceive(i);
                b.sendAndReceive(1_000_000 + i);
            }
            assertEquals(1000, a.received);
            assertEquals(1000, b.received);
        }
    }

    @Test
    void sharedNetworkModeWorksToo()
    {
        try (Rings rings = Rings.launch("shared-network", SMALL.withThreadingMode(ThreadingMode.SHARED_NETWORK)))
        {
            final Loop loop = new Loop(rings);
            loop.awaitConnected();
            loop.sendAndReceive(42);
            assertEquals(1, loop.received);
        }
    }

    @Test
    void aLaunchRemovesDirectoriesLeftByDeadProcessesOnly(@TempDir final Path base) throws Exception
    {
        final Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        final Path dead = Files.createDirectories(base.resolve("xmit-" + exited.pid() + "-3-crashed"));
        Files.writeString(dead.resolve("cnc.dat"), "left behind");
        final Path live = Files.createDirectories(base.resolve("xmit-" + ProcessHandle.current().pid() + "-999-other"));
        final Path unrelated = Files.createDirectories(base.resolve("xmit-notes"));
        try (Rings rings = Rings.launch("fresh", SMALL.withDirectoryBase(base)))
        {
            assertTrue(Files.isDirectory(rings.directory()));
        }
        assertFalse(Files.exists(dead), "the dead process's directory is removed");
        assertTrue(Files.isDirectory(live), "a running process's directory stays");
        assertTrue(Files.isDirectory(unrelated), "a directory not named like ours stays");
    }

    @Test
    void missingDirectoryBaseIsAClearError(@TempDir final Path temp)
    {
        final Path missing = temp.resolve("no-such-dir");
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> Rings.launch("p", SMALL.withDirectoryBase(missing)));
        assertEquals("xmit rings 'p': the Aeron directory base " + missing + " is missing or not a writable " +
            "directory; Aeron IPC needs a memory-backed file system such as /dev/shm (RingsConfig.directoryBase)",
            ex.getMessage());
    }

    @Test
    void driverThatCannotStartIsAClearErrorAndLeavesNothing(@TempDir final Path temp) throws Exception
    {
        // A base just short of PATH_MAX: it exists, but the driver's files under it cannot be named.
        Path base = temp;
        while (base.toString().length() < 4050)
        {
            base = base.resolve("d".repeat(Math.min(200, 4050 - base.toString().length())));
        }
        Files.createDirectories(base);
        final String name = "n".repeat(64);
        final Path finalBase = base;

        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> Rings.launch(name, SMALL.withDirectoryBase(finalBase)));
        assertTrue(ex.getMessage().startsWith("xmit rings '" + name + "': the Aeron media driver could not start in " +
            base + "/xmit-"), ex.getMessage());
        try (var left = Files.list(base))
        {
            assertEquals(0, left.count(), "nothing left in the base directory");
        }
    }

    @Test
    void rejectsBadNamesAndSettingsWithMessages()
    {
        assertEquals("rings name must be 1 to 64 letters, digits, '.', '_' or '-', was 'a/b'",
            assertThrows(IllegalArgumentException.class, () -> Rings.launch("a/b", SMALL)).getMessage());
        assertEquals("ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 100000",
            assertThrows(IllegalArgumentException.class, () -> SMALL.withIpcTermLength(100_000)).getMessage());
        assertEquals("ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was 32768",
            assertThrows(IllegalArgumentException.class, () -> SMALL.withIpcTermLength(32 * 1024)).getMessage());
        assertEquals("maxFrameLength 9216 needs an IPC MTU of 9280 bytes, more than one eighth of ipcTermLength " +
            "65536; use a longer term or a shorter maxFrameLength (at most 8128)",
            assertThrows(IllegalArgumentException.class, () -> SMALL.withMaxFrameLength(9216)).getMessage());
        assertEquals("maxFrameLength must be from 60 to 65440 bytes, was 59",
            assertThrows(IllegalArgumentException.class, () -> SMALL.withMaxFrameLength(59)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> SMALL.withThreadingMode(ThreadingMode.INVOKER)).getMessage()
            .startsWith("threadingMode INVOKER is not supported by xmit rings"));
    }

    @Test
    void defaultsAreSharedWith64MiBTermsAndJumboFrames()
    {
        final RingsConfig defaults = RingsConfig.defaults();
        assertEquals(ThreadingMode.SHARED, defaults.threadingMode());
        assertEquals(64 * 1024 * 1024, defaults.ipcTermLength());
        assertEquals(9216, defaults.maxFrameLength());
        assertEquals(9280, defaults.ipcMtuLength());
        assertEquals(Path.of("/dev/shm"), defaults.directoryBase());
        assertEquals(1600, SMALL.ipcMtuLength(), "1518 + 64 bytes of headers, aligned to 32");
    }

    /** One publication and one subscription on stream 7 of some rings, used in lock step. */
    private static final class Loop
    {
        final PacketPublication publication;
        final PacketSubscription subscription;
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
        long expected;
        int received;

        Loop(final Rings rings)
        {
            publication = rings.addPublication(7, new RingDoorbell(() -> { }));
            subscription = rings.addSubscription(7, new RingDoorbell(() -> { }));
        }

        void awaitConnected()
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!publication.isConnected() || !subscription.isConnected())
            {
                assertTrue(System.nanoTime() < deadline, "connected within 10 s");
                Thread.onSpinWait();
            }
        }

        void sendAndReceive(final long value)
        {
            frame.putLong(0, value);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long result;
            while ((result = publication.send(0, 7, 0, RingFrameHeader.NO_RX_QUEUE, 0, value, 0, frame, 0, 64)) < 0)
            {
                // The driver moves the publisher's limit on in its own duty cycle, so a ring can look full briefly.
                assertTrue(result == PacketPublication.BACK_PRESSURED || result == PacketPublication.ADMIN_ACTION,
                    PacketPublication.resultName(result));
                assertTrue(System.nanoTime() < deadline, "sent within 10 s");
            }
            expected = value;
            int got = 0;
            while (got == 0)
            {
                got = subscription.poll((header, buffer, offset, length) ->
                {
                    assertEquals(expected, header.traceId());
                    assertEquals(expected, buffer.getLong(offset));
                    assertEquals(64, length);
                    received++;
                }, 10);
                assertTrue(System.nanoTime() < deadline, "received within 10 s");
            }
        }
    }
}
