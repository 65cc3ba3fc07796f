package io.xmit.deploy.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;

import akka.actor.ActorRefWithCell;
import akka.actor.Cell;
import akka.actor.typed.Behavior;
import akka.actor.typed.MailboxSelector;
import akka.actor.typed.PostStop;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Receive;
import akka.dispatch.Envelope;
import io.xmit.actors.SendResult;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.cpu.CpuThread;
import io.xmit.actors.cpu.PipelineMailbox;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The application side of the xmit variant: an actor on an xmit CPU sending 64-byte frames on its own connected
 * socket, {@link #BURST} sends per self-sent {@link Continue} so the qdisc and TX queue actors sharing its CPU get
 * their turns; a burst is one run of {@link UdpSocket#sendMore} ended by a {@link UdpSocket#send}, so the qdisc runs
 * (in the sender's context, or as its actor) once per burst. A full ring ({@link SendResult#BACK_PRESSURED}) ends
 * the burst early: the next {@link Continue} queues behind the qdisc's Poll, which drains the ring. Nothing is allocated per packet: the payload is one off-heap block
 * and {@link UdpSocket#send} writes the frame in place in the ring. Nor per burst: spawned with the pipeline's
 * preallocated mailbox ({@link #PLACEMENT}), the actor sends itself {@link Continue} in one envelope made at start
 * and handed to its own cell, where {@code tell} would make an envelope per message (the pipeline's actors wake
 * each other the same way).
 */
final class XmitSender extends AbstractBehavior<XmitSender.Continue>
{
    static final int BURST = 64;
    static final int PAYLOAD_LENGTH = BenchFrames.FRAME_LENGTH - (14 + 20 + 8);
    /** Spawn on CPU i with {@code Cpus.dispatcher(i)} followed by this: the pipeline's array mailbox. */
    static final MailboxSelector PLACEMENT = MailboxSelector.fromConfig(PipelineMailbox.CONFIG_PATH);

    /** The only message: send up to {@link #BURST} more packets. */
    record Continue()
    {
        static final Continue INSTANCE = new Continue();
    }

    private final UdpSocket socket;
    private final long limit;
    private final BooleanSupplier running;
    private final CountDownLatch stopped;
    private final UnsafeBuffer payload = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final Cell cell;
    private final Envelope next;
    private long sent;

    private XmitSender(
        final ActorContext<Continue> context,
        final UdpSocket socket,
        final long limit,
        final BooleanSupplier running,
        final CountDownLatch stopped)
    {
        super(context);
        this.socket = socket;
        this.limit = limit;
        this.running = running;
        this.stopped = stopped;
        if (Adapter.toClassic(context.getSelf()) instanceof ActorRefWithCell withCell)
        {
            cell = withCell.underlying();
            next = Envelope.apply(Continue.INSTANCE, akka.actor.ActorRef.noSender(), cell.system());
        }
        else
        {
            cell = null;
            next = null;
        }
    }

    /**
     * @param cpu     the xmit CPU the actor must run on; it fails at start if its thread is not that CPU.
     * @param threads where it records its thread, slot {@code cpu}, before it sends anything.
     * @param limit   packets to send in all, then stop ({@code Long.MAX_VALUE}: until {@code running} is false).
     * @param stopped counted down once when the actor has stopped, normally or by a failure.
     */
    static Behavior<Continue> create(
        final int cpu,
        final UdpSocket socket,
        final long limit,
        final BooleanSupplier running,
        final AtomicReferenceArray<Thread> threads,
        final CountDownLatch stopped)
    {
        return Behaviors.setup(context ->
        {
            final Thread thread = Thread.currentThread();
            if (!(thread instanceof CpuThread cpuThread) || cpuThread.cpu() != cpu)
            {
                stopped.countDown();
                throw new IllegalStateException("sender " + cpu + " runs on " + thread + ", not on xmit CPU " + cpu);
            }
            threads.set(cpu, thread);
            final XmitSender sender = new XmitSender(context, socket, limit, running, stopped);
            sender.continueLater();
            return sender;
        });
    }

    @Override
    public Receive<Continue> createReceive()
    {
        return newReceiveBuilder()
            .onMessage(Continue.class, this::onContinue)
            .onSignal(PostStop.class, signal -> onPostStop())
            .build();
    }

    private Behavior<Continue> onContinue(final Continue message)
    {
        if (!running.getAsBoolean())
        {
            return Behaviors.stopped();
        }
        final long burstEnd = Math.min(limit, sent + BURST);
        while (sent < burstEnd)
        {
            // One run of sends per burst (xmit_more): the qdisc runs, or is woken, once, at the burst's last send.
            final long result = sent + 1 < burstEnd ? socket.sendMore(payload, 0, PAYLOAD_LENGTH) :
                socket.send(payload, 0, PAYLOAD_LENGTH);
            if (result > 0)
            {
                sent++;
            }
            else if (SendResult.BACK_PRESSURED == result)
            {
                break;
            }
            else
            {
                throw new IllegalStateException("socket " + socket.id() + " refused a send: " +
                    SendResult.name(result));
            }
        }
        if (sent >= limit)
        {
            return Behaviors.stopped();
        }
        continueLater();
        // Not `this`: under the supervisor Akka wraps top-level actors in, returning the behavior itself (rather than
        // `same`) allocates a new interceptor chain per message.
        return Behaviors.same();
    }

    private void continueLater()
    {
        if (null != cell)
        {
            cell.sendMessage(next);
        }
        else
        {
            getContext().getSelf().tell(Continue.INSTANCE);
        }
    }

    private Behavior<Continue> onPostStop()
    {
        stopped.countDown();
        return this;
    }
}
