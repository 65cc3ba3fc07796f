package io.xmit.transport.ring;

import io.xmit.pipeline.AllocationMeter;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot paths allocate nothing once warm: send, claim and commit (with the doorbell check), poll, block poll and
 * the duty cycle. One thread sends a batch and then drains it, so no back-pressure and no other thread interferes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingAllocationTest
{
    private static final int BATCH = 256;
    private static final int STREAM = 3;

    private Rings rings;
    private PacketPublication publication;
    private PacketSubscription subscription;
    private PacketClaim claim;
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
    private final RingDoorbell doorbell = new RingDoorbell(() -> { });
    private long sum;
    private final PacketHandler handler = (header, buffer, offset, length) -> sum += header.socketId() + length;
    private final PacketBlockHandler blockHandler = block ->
    {
        while (block.next())
        {
            sum += block.header().socketId() + block.frameLength();
        }
    };
    private final RingPoller poller = () -> subscription.poll(handler, 64);
    private final RingPoller blockPoller = () -> (int)subscription.blockPoll(blockHandler, 64 * 1024);

    @BeforeEach
    void setUp()
    {
        rings = Rings.launch("allocation-test",
            RingsConfig.defaults().withMaxFrameLength(1518).withIpcTermLength(1024 * 1024));
        publication = rings.addPublication(STREAM, doorbell);
        subscription = rings.addSubscription(STREAM, doorbell);
        claim = publication.newClaim();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!publication.isConnected() || !subscription.isConnected())
        {
            assertTrue(System.nanoTime() < deadline, "connected within 10 s");
            Thread.onSpinWait();
        }
    }

    @AfterEach
    void tearDown()
    {
        rings.close();
    }

    @Test
    void sendAndPollAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(batches ->
        {
            long frames = 0;
            for (int b = 0; b < batches; b++)
            {
                sendBatch(false);
                frames += drain(poller);
            }
            return frames;
        }, 200, 100);
        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + 100 * BATCH + " sends and polls");
        assertEquals(100L * BATCH, m.result());
    }

    @Test
    void claimCommitAndBlockPollAllocateNothing()
    {
        final AllocationMeter.Measurement m = AllocationMeter.measure(batches ->
        {
            long bytes = 0;
            for (int b = 0; b < batches; b++)
            {
                sendBatch(true);
                bytes += drain(blockPoller);
            }
            return bytes;
        }, 200, 100);
        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + 100 * BATCH + " claims and block polls");
        assertEquals(100L * BATCH * 128, m.result(), "128 bytes per message");
    }

    @Test
    void dutyCycleAllocatesNothing()
    {
        final RingDutyCycle cycle = new RingDutyCycle(doorbell, poller, 2);
        final AllocationMeter.Measurement m = AllocationMeter.measure(batches ->
        {
            long frames = 0;
            for (int b = 0; b < batches; b++)
            {
                sendBatch(false);
                int polls = 0;
                int work;
                // The wake callback does nothing here: each call stands for one Poll message.
                while ((work = cycle.onPoll()) > 0 || polls++ < 4)
                {
                    frames += work;
                }
            }
            return frames;
        }, 200, 100);
        assertEquals(0, m.allocatedBytes(), "bytes allocated by " + 100 * BATCH + " frames through the duty cycle");
        assertEquals(100L * BATCH, m.result());
    }

    private void sendBatch(final boolean inPlace)
    {
        for (int i = 0; i < BATCH; i++)
        {
            long result;
            do
            {
                if (inPlace)
                {
                    result = publication.tryClaim(64, claim);
                    if (result > 0)
                    {
                        claim.putHeader(i, 1, 0, -1, 0, 0, 0);
                        claim.buffer().putLong(claim.frameOffset(), i);
                        claim.commit();
                    }
                }
                else
                {
                    result = publication.send(i, 1, 0, -1, 0, 0, 0, frame, 0, 64);
                }
            }
            while (result == PacketPublication.ADMIN_ACTION || result == PacketPublication.BACK_PRESSURED);
            if (result < 0)
            {
                throw new IllegalStateException(PacketPublication.resultName(result));
            }
        }
    }

    private static long drain(final RingPoller poll)
    {
        long total = 0;
        int empty = 0;
        while (empty < 4)
        {
            final int n = poll.poll();
            total += n;
            empty = n == 0 ? empty + 1 : 0;
        }
        return total;
    }
}
