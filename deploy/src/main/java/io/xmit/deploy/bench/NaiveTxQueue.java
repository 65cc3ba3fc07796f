package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.TxCompletion;

/**
 * The naive TX queue stage: told of every packet the driver accepted, it reclaims the queue's completions and
 * counts them. Its count is what the pipeline delivered and what the sender's window is measured against.
 */
final class NaiveTxQueue extends AbstractBehavior<NaiveTxQueue.Transmitted>
{
    /** The driver accepted {@code packets} packets on this queue. */
    record Transmitted(int packets)
    {
    }

    private final int queue;
    private final NicDriver driver;
    private final AtomicLong completed;
    private final TxCompletion completion = new TxCompletion();

    private NaiveTxQueue(
        final ActorContext<Transmitted> context, final int queue, final NicDriver driver, final AtomicLong completed)
    {
        super(context);
        this.queue = queue;
        this.driver = driver;
        this.completed = completed;
    }

    /** @param completed written by this actor only, read by the sender and the bench. */
    static Behavior<Transmitted> create(final int queue, final NicDriver driver, final AtomicLong completed)
    {
        return Behaviors.setup(context -> new NaiveTxQueue(context, queue, driver, completed));
    }

    @Override
    public Receive<Transmitted> createReceive()
    {
        return newReceiveBuilder().onMessage(Transmitted.class, this::onTransmitted).build();
    }

    private Behavior<Transmitted> onTransmitted(final Transmitted transmitted)
    {
        if (0 == driver.txReclaim(queue, completion))
        {
            // Single writer: a release store is enough for the readers and cheaper than an atomic add.
            completed.setRelease(completed.get() + completion.packets());
        }
        return this;
    }
}
