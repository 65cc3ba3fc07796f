package io.xmit.deploy.bench;

import java.util.concurrent.atomic.AtomicLong;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The naive socket stage: writes each packet into a fresh {@code byte[]} and tells it to its qdisc actor, one
 * message per packet. A self-sent {@link Continue} drives it, {@link #BURST} packets per message so the actors
 * sharing its dispatcher thread get their turns; when {@link #WINDOW} packets are outstanding (sent, not yet
 * completed by the TX queue actor) it only re-sends itself {@link Continue}, which keeps the mailboxes bounded
 * without Akka timers (their 1 ms tick would idle the pipeline).
 */
final class NaiveSender extends AbstractBehavior<NaiveSender.Continue>
{
    static final int BURST = 64;
    static final int WINDOW = 4096;

    /** The only message: send up to {@link #BURST} more packets. */
    record Continue()
    {
        static final Continue INSTANCE = new Continue();
    }

    private final ActorRef<NaiveQdisc.Packet> qdisc;
    private final AtomicLong completed;
    private final long limit;
    private final BenchFrames frames;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private long sent;

    private NaiveSender(
        final ActorContext<Continue> context,
        final int cpu,
        final ActorRef<NaiveQdisc.Packet> qdisc,
        final AtomicLong completed,
        final long limit)
    {
        super(context);
        this.qdisc = qdisc;
        this.completed = completed;
        this.limit = limit;
        this.frames = new BenchFrames(cpu);
    }

    /**
     * @param completed packets the TX queue actor has seen complete; the sender reads it for its window.
     * @param limit     packets to send in all, then stop ({@code Long.MAX_VALUE}: until the system stops).
     */
    static Behavior<Continue> create(
        final int cpu, final ActorRef<NaiveQdisc.Packet> qdisc, final AtomicLong completed, final long limit)
    {
        return Behaviors.setup(context -> new NaiveSender(context, cpu, qdisc, completed, limit));
    }

    @Override
    public Receive<Continue> createReceive()
    {
        return newReceiveBuilder().onMessage(Continue.class, this::onContinue).build();
    }

    private Behavior<Continue> onContinue(final Continue message)
    {
        final long windowEnd = Math.min(limit, completed.get() + WINDOW);
        final long burstEnd = Math.min(windowEnd, sent + BURST);
        while (sent < burstEnd)
        {
            final byte[] frame = new byte[BenchFrames.FRAME_LENGTH];
            view.wrap(frame);
            frames.write(view, 0);
            qdisc.tell(new NaiveQdisc.Packet(frame));
            sent++;
        }
        if (sent < limit)
        {
            getContext().getSelf().tell(Continue.INSTANCE);
        }
        return this;
    }
}
