package io.xmit.transport.nic;

import java.util.Random;

import io.xmit.pipeline.qdisc.DescriptorBatch;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NicFaultTest
{
    @Test
    void everyNthTxBurstFailsWithEioAndAcceptsNothing()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=1,ring=256"))
        {
            final NicDriver a = device.port(0);
            final TestFrames frames = frames(8);
            final DescriptorBatch batch = frames.describe(new DescriptorBatch(8), 0, 8);
            final TxCompletion completion = new TxCompletion();
            a.fault(NicFault.TX_FAIL_EVERY, 1, 3);
            final int[] results = new int[9];
            for (int call = 0; call < results.length; call++)
            {
                results[call] = a.txBurst(1, batch);
                a.txReclaim(1, completion);
            }
            assertEquals("8 8 -5 8 8 -5 8 8 -5", join(results));
            assertEquals(24, a.stats(1).txErrors(), "three refused bursts of 8");
            assertEquals(48, a.stats(1).txPackets());
            assertEquals(8, a.txBurst(0, batch), "queue 0 has no fault");
            a.fault(NicFault.TX_FAIL_EVERY, 1, 0);
            for (int call = 0; call < 3; call++)
            {
                assertEquals(8, a.txBurst(1, batch));
                a.txReclaim(1, completion);
            }
        }
    }

    @Test
    void everyNthTxBurstIsBusyAndTakesOnlyItsFirstHalfWithoutAnError()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=1,ring=256"))
        {
            final NicDriver a = device.port(0);
            final DescriptorBatch batch = frames(8).describe(new DescriptorBatch(8), 0, 8);
            final TxCompletion completion = new TxCompletion();
            a.fault(NicFault.TX_BUSY_EVERY, 1, 2);
            final int[] results = new int[4];
            for (int call = 0; call < results.length; call++)
            {
                results[call] = a.txBurst(1, batch);
                a.txReclaim(1, completion);
            }
            assertEquals("8 4 8 4", join(results));
            assertEquals(0, a.stats(1).txErrors());
            assertEquals(24, a.stats(1).txPackets());
            a.fault(NicFault.TX_BUSY_EVERY, 1, 0);
            assertEquals(8, a.txBurst(1, batch));
        }
    }

    @Test
    void aStalledTxQueueCompletesNothingUntilReleasedThenEverything()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=16"))
        {
            final NicDriver a = device.port(0);
            final TestFrames frames = frames(16);
            final DescriptorBatch batch = new DescriptorBatch(16);
            final TxCompletion completion = new TxCompletion();
            a.fault(NicFault.TX_STALL, 0, 1);
            assertEquals(16, a.txBurst(0, frames.describe(batch, 0, 16)));
            assertEquals(0, a.txBurst(0, frames.describe(batch, 0, 1)), "the stalled ring stays full");
            assertEquals(0, a.txReclaim(0, completion));
            assertEquals(0, completion.packets());
            assertEquals(0, device.port(1).stats(0).rxPackets(), "nothing left on the wire");

            a.fault(NicFault.TX_STALL, 0, 0);
            assertEquals(0, a.txReclaim(0, completion));
            assertEquals(16, completion.packets());
            final RxBurst burst = new RxBurst(16);
            assertEquals(16, device.port(1).rxBurst(0, burst));
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (int i = 0; i < 16; i++)
            {
                burst.wrapFrame(i, view);
                assertTrue(frames.sameBytes(i, view), "frame " + i + " in order and intact after the stall");
            }
        }
    }

    @Test
    void txResetEndsAHangAndItsWaitingFramesLeaveInOrder()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=1,ring=16"))
        {
            final NicDriver a = device.port(0);
            final TestFrames frames = frames(8);
            final TxCompletion completion = new TxCompletion();
            a.fault(NicFault.TX_STALL, 1, 1);
            a.fault(NicFault.TX_FAIL_EVERY, 0, 1);
            assertEquals(8, a.txBurst(1, frames.describe(new DescriptorBatch(8), 0, 8)));
            assertEquals(0, device.port(1).stats(0).rxPackets(), "hung");

            a.txReset(1);
            assertEquals(0, a.txReclaim(1, completion));
            assertEquals(8, completion.packets());
            final RxBurst burst = new RxBurst(16);
            assertEquals(8, device.port(1).rxBurst(0, burst));
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            for (int i = 0; i < 8; i++)
            {
                burst.wrapFrame(i, view);
                assertTrue(frames.sameBytes(i, view), "frame " + i + " in order after the reset");
            }
            assertEquals(Errno.EIO, -a.txBurst(0, frames.describe(new DescriptorBatch(1), 0, 1)),
                "the reset of queue 1 leaves queue 0's injected failure alone");

            final NicException bad = assertThrows(NicException.class, () -> a.txReset(2));
            assertEquals("NIC shim refused reset of TX queue 2 (queues: 2 TX): EINVAL (invalid argument)",
                bad.getMessage());
        }
    }

    @Test
    void everyNthArrivingFrameIsDroppedAndCounted()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=64"))
        {
            device.port(1).fault(NicFault.RX_DROP_EVERY, 0, 4);
            final TestFrames frames = frames(32);
            assertEquals(32, device.port(0).txBurst(0, frames.describe(new DescriptorBatch(32), 0, 32)));
            final RxBurst burst = new RxBurst(64);
            assertEquals(24, device.port(1).rxBurst(0, burst));
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            int expected = 0;
            for (int i = 0; i < 24; i++)
            {
                if (expected % 4 == 3)
                {
                    expected++;
                }
                burst.wrapFrame(i, view);
                assertEquals(expected, frames.sequenceOf(view), "the 4th, 8th, ... frames are the dropped ones");
                expected++;
            }
            final QueueStats stats = device.port(1).stats(0);
            assertEquals(8, stats.rxDropped());
            assertEquals(24, stats.rxPackets());
        }
    }

    @Test
    void everyNthArrivingFrameIsTruncatedToHalfItsLength()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=64"))
        {
            device.port(1).fault(NicFault.RX_TRUNCATE_EVERY, 0, 2);
            final TestFrames frames = frames(10);
            assertEquals(10, device.port(0).txBurst(0, frames.describe(new DescriptorBatch(10), 0, 10)));
            final RxBurst burst = new RxBurst(64);
            assertEquals(10, device.port(1).rxBurst(0, burst));
            for (int i = 0; i < 10; i++)
            {
                final int expected = i % 2 == 1 ? frames.lengths[i] / 2 : frames.lengths[i];
                assertEquals(expected, burst.length(i), "frame " + i);
            }
            assertEquals(5, device.port(1).stats(0).rxTruncated());
        }
    }

    @Test
    void clearTurnsEveryFaultOff()
    {
        try (NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=64"))
        {
            device.port(0).fault(NicFault.TX_FAIL_EVERY, 0, 1);
            device.port(0).fault(NicFault.CLEAR, 0, 0);
            final TestFrames frames = frames(4);
            assertEquals(4, device.port(0).txBurst(0, frames.describe(new DescriptorBatch(4), 0, 4)));
        }
    }

    @Test
    void faultsOnQueuesThatDoNotExistAreRefusedByName()
    {
        try (NicDevice device = NicDevice.open("loop:tx=2,rx=3,ring=64"))
        {
            final NicException tx = assertThrows(NicException.class,
                () -> device.port(0).fault(NicFault.TX_STALL, 2, 1));
            assertEquals("NIC shim refused fault TX_STALL on TX queue 2 value 1 (queues: 2 TX, 3 RX): " +
                "EINVAL (invalid argument)", tx.getMessage());
            assertEquals(Errno.EINVAL, tx.errno());
            assertThrows(NicException.class, () -> device.port(0).fault(NicFault.RX_DROP_EVERY, 3, 1));
            device.port(0).fault(NicFault.RX_DROP_EVERY, 2, 1);
        }
    }

    private static TestFrames frames(final int count)
    {
        final Random random = new Random(count);
        final TestFrames frames = new TestFrames(count);
        for (int slot = 0; slot < count; slot++)
        {
            frames.write(slot, TestFrames.randomFlow(random), 18 + random.nextInt(200), slot);
        }
        return frames;
    }

    private static String join(final int[] values)
    {
        final StringBuilder text = new StringBuilder();
        for (final int value : values)
        {
            text.append(text.isEmpty() ? "" : " ").append(value);
        }
        return text.toString();
    }
}
