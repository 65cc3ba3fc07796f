package io.xmit.transport.nic;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.xmit.pipeline.AllocationMeter;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NicDeviceTest
{
    @Test
    void badBurstArgumentsComeBackAsNegativeErrnoValues()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=2,ring=32"))
        {
            final NicDriver a = device.port(0);
            final TestFrames frames = new TestFrames(1);
            frames.write(0, TestFrames.randomFlow(new Random(1)), 20, 0);
            final DescriptorBatch one = frames.describe(new DescriptorBatch(64), 0, 1);
            assertEquals(-Errno.EINVAL, a.txBurst(2, one), "TX queue 2 of 2");
            assertEquals(-Errno.EINVAL, a.txBurst(-1, one), "negative queue");
            final DescriptorBatch tooMany = new DescriptorBatch(33);
            for (int i = 0; i < 33; i++)
            {
                tooMany.addExternal(frames.address(0), frames.lengths[0], 0);
            }
            assertEquals(-Errno.EINVAL, a.txBurst(0, tooMany), "burst above the ring size");
            assertEquals(-Errno.EFAULT, ((NicPort)a).txBurst(0, 0, 1), "NULL descriptors");
            final DescriptorBatch empty = new DescriptorBatch(1);
            empty.addExternal(0, 60, 0);
            assertEquals(-Errno.EFAULT, a.txBurst(0, empty), "frame address 0");
            final DescriptorBatch huge = new DescriptorBatch(1);
            huge.addExternal(frames.address(0), 2049, 0);
            assertEquals(-Errno.EINVAL, a.txBurst(0, huge), "frame above the 2048-byte maximum");
            assertEquals(-Errno.EINVAL, a.rxRelease(0, 1), "nothing handed out");
            assertEquals(-Errno.EINVAL, a.rxBurst(2, new RxBurst(4)), "RX queue 2 of 2");
            assertEquals(-Errno.EINVAL, a.armRx(5, true));
            assertThrows(NicException.class, () -> a.setRssKey(new byte[39]));
            assertThrows(NicException.class, () -> a.setRssIndirection(new int[127]));
            final int[] table = new int[128];
            table[5] = 2;
            final NicException reta = assertThrows(NicException.class, () -> a.setRssIndirection(table));
            assertEquals("NIC shim refused RSS indirection table of 128 entries (must be 128, each below 2): " +
                "EINVAL (invalid argument)", reta.getMessage());
            assertThrows(IllegalArgumentException.class, () -> device.port(2));
        }
    }

    @Test
    void aClosedDeviceAnswersEbadfAndClosesOnce()
    {
        final NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=16");
        final NicDriver a = device.port(0);
        device.close();
        device.close();
        final TestFrames frames = new TestFrames(1);
        frames.write(0, TestFrames.randomFlow(new Random(2)), 20, 0);
        assertEquals(-Errno.EBADF, a.txBurst(0, frames.describe(new DescriptorBatch(1), 0, 1)));
        assertEquals(-Errno.EBADF, a.txReclaim(0, new TxCompletion()));
        assertEquals(-Errno.EBADF, a.rxBurst(0, new RxBurst(1)));
        assertEquals(Errno.EBADF, assertThrows(NicException.class, () -> a.stats(0)).errno());
    }

    @Test
    void theNullDeviceAcceptsCountsAndCompletes()
    {
        try (NicDevice device = NicDevice.open("null:tx=2,ring=64"))
        {
            assertEquals(1, device.portCount());
            final NicDriver port = device.port(0);
            final TestFrames frames = new TestFrames(64);
            final Random random = new Random(3);
            long bytes = 0;
            for (int slot = 0; slot < 64; slot++)
            {
                bytes += frames.write(slot, TestFrames.randomFlow(random), 18, slot);
            }
            final DescriptorBatch batch = frames.describe(new DescriptorBatch(64), 0, 64);
            for (int round = 0; round < 100; round++)
            {
                assertEquals(64, port.txBurst(1, batch), "the null device never fills");
            }
            final TxCompletion completion = new TxCompletion();
            assertEquals(0, port.txReclaim(1, completion));
            assertEquals(6_400, completion.packets());
            assertEquals(100 * bytes, completion.bytes());
            assertEquals(6_400, port.stats(1).txPackets());
            assertEquals(0, port.rxBurst(0, new RxBurst(8)));
        }
    }

    @Test
    void burstCallsAllocateNothing()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=256"))
        {
            final NicDriver a = device.port(0);
            final NicDriver b = device.port(1);
            final TestFrames frames = new TestFrames(32);
            final Random random = new Random(4);
            for (int slot = 0; slot < 32; slot++)
            {
                frames.write(slot, TestFrames.randomFlow(random), 18, slot);
            }
            final DescriptorBatch batch = frames.describe(new DescriptorBatch(32), 0, 32);
            final TxCompletion completion = new TxCompletion();
            final RxBurst burst = new RxBurst(32);
            final AllocationMeter.Measurement measurement = AllocationMeter.measure(operations ->
            {
                long received = 0;
                for (int i = 0; i < operations; i++)
                {
                    a.txBurst(0, batch);
                    a.txReclaim(0, completion);
                    received += b.rxBurst(0, burst);
                    b.rxRelease(0, burst.count());
                    a.armRx(0, false);
                }
                return received;
            }, 20_000, 100_000);
            assertEquals(0, measurement.allocatedBytes());
            assertEquals(3_200_000, measurement.result());
        }
    }

    @Test
    void anArmedQueueIsSignalledExactlyOncePerArming() throws InterruptedException
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=2,ring=256"))
        {
            final LinkedBlockingQueue<String> interrupts = new LinkedBlockingQueue<>();
            device.startInterrupts((port, queue) -> interrupts.add(port + "/" + queue));
            final NicDriver a = device.port(0);
            final NicDriver b = device.port(1);
            final int[] table = new int[128];
            b.setRssIndirection(table);
            final TestFrames frames = new TestFrames(8);
            final Random random = new Random(5);
            for (int slot = 0; slot < 8; slot++)
            {
                frames.write(slot, TestFrames.randomFlow(random), 18, slot);
            }
            final DescriptorBatch batch = frames.describe(new DescriptorBatch(8), 0, 8);
            final TxCompletion completion = new TxCompletion();

            a.txBurst(0, batch);
            a.txReclaim(0, completion);
            assertNull(interrupts.poll(50, TimeUnit.MILLISECONDS), "an unarmed queue raises nothing");

            for (int arming = 0; arming < 3; arming++)
            {
                assertEquals(0, b.armRx(0, true));
                for (int burst = 0; burst < 4; burst++)
                {
                    a.txBurst(0, batch);
                    a.txReclaim(0, completion);
                }
                assertEquals("1/0", interrupts.poll(5, TimeUnit.SECONDS), "arming " + arming);
                assertNull(interrupts.poll(50, TimeUnit.MILLISECONDS), "one signal for four bursts");
                drainAll(b, 0);
            }
            assertEquals(0, b.armRx(0, true));
            assertEquals(0, b.armRx(0, false));
            a.txBurst(0, batch);
            assertNull(interrupts.poll(50, TimeUnit.MILLISECONDS), "a disarmed queue raises nothing");
            assertEquals(0, b.armRx(1, true));
            assertNull(interrupts.poll(50, TimeUnit.MILLISECONDS), "queue 1 received nothing");
        }
    }

    @Test
    void closeStopsTheInterruptThread()
    {
        final NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=16");
        device.startInterrupts((port, queue) -> { });
        device.close();
        assertTrue(Thread.getAllStackTraces().keySet().stream()
            .noneMatch(thread -> thread.getName().startsWith("xmit-irq-") && thread.isAlive()),
            "every other test closes its device too, so no interrupt thread is left");
    }

    @Test
    void theExtractedLibraryLeavesNoFilesBehind() throws IOException
    {
        NicDevice.open("null").close();
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir"))))
        {
            final List<Path> left = new ArrayList<>();
            entries.filter(path -> path.getFileName().toString().startsWith("xmit-nic-")).forEach(left::add);
            assertEquals(List.of(), left);
        }
    }

    private static void drainAll(final NicDriver port, final int queue)
    {
        final RxBurst burst = new RxBurst(256);
        final int received = port.rxBurst(queue, burst);
        assertEquals(0, port.rxRelease(queue, received));
    }
}
