package io.xmit.actors.cpu;

import akka.actor.ActorRef;
import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.dispatch.Envelope;
import akka.dispatch.MessageQueue;
import com.typesafe.config.ConfigFactory;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.pipeline.AllocationMeter;
import org.junit.jupiter.api.Test;
import scala.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PipelineMailboxTest
{
    private static final int WAKE_UPS = 100_000;

    private static MessageQueue queue(final int capacity)
    {
        return new PipelineMailbox(null, ConfigFactory.parseString("capacity = " + capacity))
            .create(Option.empty(), Option.empty());
    }

    private static Envelope envelope(final int i)
    {
        return new Envelope(i, ActorRef.noSender());
    }

    @Test
    void keepsSendOrderAcrossTheOverflowList()
    {
        final MessageQueue queue = queue(4);
        for (int i = 0; i < 10; i++)
        {
            queue.enqueue(null, envelope(i));
        }
        assertEquals(10, queue.numberOfMessages());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(i, queue.dequeue().message());
        }
        // The ring has room again, but the overflow list still holds older messages: new ones queue behind them.
        queue.enqueue(null, envelope(10));
        for (int i = 3; i <= 10; i++)
        {
            assertEquals(i, queue.dequeue().message());
        }
        assertNull(queue.dequeue());
        assertFalse(queue.hasMessages());
        queue.enqueue(null, envelope(11));
        assertTrue(queue.hasMessages());
        assertEquals(11, queue.dequeue().message());
    }

    @Test
    void cleanUpHandsEveryMessageToDeadLetters()
    {
        final MessageQueue queue = queue(2);
        final MessageQueue deadLetters = queue(16);
        for (int i = 0; i < 5; i++)
        {
            queue.enqueue(null, envelope(i));
        }
        queue.cleanUp(null, deadLetters);
        assertEquals(0, queue.numberOfMessages());
        final List<Object> dead = new ArrayList<>();
        Envelope next;
        while (null != (next = deadLetters.dequeue()))
        {
            dead.add(next.message());
        }
        assertEquals(List.of(0, 1, 2, 3, 4), dead);
    }

    @Test
    void enqueueAndDequeueWithinCapacityAllocateNothing()
    {
        final MessageQueue queue = queue(1024);
        final Envelope poll = envelope(0);
        final AllocationMeter.Measurement measured = AllocationMeter.measure(operations ->
        {
            long moved = 0;
            for (int i = 0; i < operations; i++)
            {
                queue.enqueue(null, poll);
                moved += null == queue.dequeue() ? 0 : 1;
            }
            return moved;
        }, 100_000, 1_000_000);
        assertEquals(1_000_000, measured.result());
        assertEquals(0, measured.allocatedBytes());
    }

    /**
     * An actor woken once per ring turn (a cluster data plane's relay or remote socket receiver, as a pipeline actor)
     * spawned with {@link PipelineMailbox#selectIn} costs its wakers nothing; with Akka's default mailbox each wake-up
     * allocates the queue's node on the waking thread, which the same measurement sees (the bench's cluster hop
     * allocated 25-32 bytes a packet so).
     */
    @Test
    void anActorSpawnedWithSelectInIsWokenWithoutAllocating()
    {
        final ActorTestKit kit = ActorTestKit.create();
        try
        {
            assertEquals(0, wakeUpAllocation(kit, PipelineMailbox.selectIn(kit.system(), Props.empty())));
            final long defaultMailbox = wakeUpAllocation(kit, Props.empty());
            assertTrue(defaultMailbox >= 16L * WAKE_UPS, "Akka's default mailbox: " + defaultMailbox + " bytes");
        }
        finally
        {
            kit.shutdownTestKit();
        }
    }

    /** Bytes the waking thread allocates for {@link #WAKE_UPS} wake-ups, in runs the actor keeps up with. */
    private static long wakeUpAllocation(final ActorTestKit kit, final Props props)
    {
        final AtomicLong polls = new AtomicLong();
        final long[] woken = {0};
        final ActorWake<String> wake = new ActorWake<>("poll");
        wake.bind(kit.spawn(Behaviors.receiveMessage(poll ->
        {
            polls.incrementAndGet();
            return Behaviors.same();
        }), props));
        return AllocationMeter.measure(operations ->
        {
            for (int i = 0; i < operations; i++)
            {
                wake.run();
                if (0 == ++woken[0] % 256)
                {
                    while (polls.get() < woken[0])
                    {
                        Thread.onSpinWait();
                    }
                }
            }
            return operations;
        }, WAKE_UPS, WAKE_UPS).allocatedBytes();
    }

    @Test
    void refusesACapacityBelowTwo()
    {
        assertEquals("xmit-mailbox.capacity must be at least 2, was 1", assertThrows(IllegalArgumentException.class,
            () -> new PipelineMailbox(null, ConfigFactory.parseString("capacity = 1"))).getMessage());
    }
}
