package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.qdisc.Qdisc;
import io.xmit.transport.nic.NicDriver;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The naive qdisc stage, the pre-bulk design: for every packet message, enqueue it into pfifo_fast, dequeue one
 * packet and hand it to the driver in a {@code tx_burst} of one, then tell the TX queue actor, again one message
 * per packet. A packet the driver refuses stays requeued in the qdisc and goes out ahead of the next one; the shim
 * counts the refusal ({@code txErrors}).
 */
final class NaiveQdisc extends AbstractBehavior<NaiveQdisc.Packet>
{
    /** One frame, in a byte array of its own. */
    record Packet(byte[] frame)
    {
    }

    private final int queue;
    private final NicDriver driver;
    private final ActorRef<NaiveTxQueue.Transmitted> txQueue;
    private final AtomicLong drops;
    private final PfifoFast qdisc = new PfifoFast();
    private final DescriptorBatch batch = new DescriptorBatch(1);
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

    private NaiveQdisc(
        final ActorContext<Packet> context,
        final int queue,
        final NicDriver driver,
        final ActorRef<NaiveTxQueue.Transmitted> txQueue,
        final AtomicLong drops)
    {
        super(context);
        this.queue = queue;
        this.driver = driver;
        this.txQueue = txQueue;
        this.drops = drops;
    }

    /** @param drops counts packets pfifo_fast dropped on enqueue. */
    static Behavior<Packet> create(
        final int queue, final NicDriver driver, final ActorRef<NaiveTxQueue.Transmitted> txQueue,
        final AtomicLong drops)
    {
        return Behaviors.setup(context -> new NaiveQdisc(context, queue, driver, txQueue, drops));
    }

    @Override
    public Receive<Packet> createReceive()
    {
        return newReceiveBuilder().onMessage(Packet.class, this::onPacket).build();
    }

    private Behavior<Packet> onPacket(final Packet packet)
    {
        view.wrap(packet.frame());
        if (Qdisc.NET_XMIT_SUCCESS != qdisc.enqueue(view, 0, packet.frame().length, 0))
        {
            drops.incrementAndGet();
        }
        if (1 == qdisc.dequeue(batch))
        {
            final int accepted = driver.txBurst(queue, batch);
            qdisc.complete(batch, Math.max(accepted, 0));
            if (accepted > 0)
            {
                txQueue.tell(new NaiveTxQueue.Transmitted(accepted));
            }
        }
        return this;
    }
}
