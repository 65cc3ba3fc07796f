package io.xmit.actors.cpu;

import akka.actor.ActorRef;
import akka.dispatch.Envelope;
import akka.dispatch.MessageQueue;
import com.typesafe.config.ConfigFactory;
import io.xmit.pipeline.AllocationMeter;
import org.junit.jupiter.api.Test;
import scala.Option;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PipelineMailboxTest
{
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

    @Test
    void refusesACapacityBelowTwo()
    {
        assertEquals("xmit-mailbox.capacity must be at least 2, was 1", assertThrows(IllegalArgumentException.class,
            () -> new PipelineMailbox(null, ConfigFactory.parseString("capacity = 1"))).getMessage());
    }
}
