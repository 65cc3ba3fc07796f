package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import io.xmit.actors.RemoteMember;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPeekHandler;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On the edge, one app node's sends: its TX streams (one UDP ring per TX queue, written by the node's sockets) copied
 * into the pipeline's qdisc rings through the sending socket's {@link RemoteMember#relay}, so they are that member's
 * sends in the pipeline's books and its completions come back to it.
 * <p>
 * A frame is copied only when the qdisc ring takes it: when the ring refuses ({@code BACK_PRESSURED}) the relay
 * leaves the frame in the UDP ring and stops reading that stream, so the node's publication fills to Aeron's window
 * and its sockets' sends return {@code BACK_PRESSURED} too, end to end. The ring does not say when it has room
 * again, so a back-pressured relay looks again {@link #RETRY_AFTER} later (its only timer). Every frame not relayed
 * is counted: from a socket the node does not hold ({@code rejected}), refused by the pipeline ({@code refused}:
 * stopping, closed, too long), left in the streams when the node is gone ({@code nodeDown}), or sent by an
 * incarnation the edge has declared lost ({@code staleIncarnation}: once {@link #fence}d, nothing is relayed).
 * <p>
 * Completions go back to the node: while a member has sends the pipeline is not done with, the relay looks every
 * {@link #COMPLETIONS_AFTER} at what each member has completed ({@link RemoteMember#completed}, plus what the
 * pipeline refused of it here, a drop) and tells the node the counts that changed in one
 * {@link DataPlaneMessage.Completions}, so its sockets count their packets in flight down as a local socket does
 * (kernel-semantics §1.5). The timer runs only while packets are in flight; a node whose sockets send nothing gets no
 * message. Of its own, a look allocates only the message it sends (Artery's send of it is Akka's): the timer repeats
 * (started when frames start to flow, cancelled when none are left in flight) rather than being started again at
 * every look, and the changed counts are gathered in arrays the relay keeps.
 * <p>
 * Cost over a local socket's send: the receiving driver's copy into the UDP image, this copy into the IPC ring, and
 * one actor hop.
 */
final class TxRelay
{
    /** How long a relay refused by a full qdisc ring waits before it looks again. */
    static final Duration RETRY_AFTER = Duration.ofMillis(1);
    /**
     * How often the node hears of its completions while it has packets in flight: a message per node at most this
     * often, whatever the rate; a cached TX queue is kept up to this much longer than on the edge itself.
     */
    static final Duration COMPLETIONS_AFTER = Duration.ofMillis(1);

    private final PacketSubscription[] streams;
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong nodeDown = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicLong staleIncarnation = new AtomicLong();
    private final PacketPeekHandler onFrame = this::onFrame;
    private final PacketHandler countLeftover = this::countLeftover;
    private volatile Int2ObjectHashMap<Sender> members = new Int2ObjectHashMap<>();
    private volatile boolean fenced;
    private volatile ActorRef<DataPlaneMessage> node;
    private int txq;
    private boolean pressured;
    /** A member's frame was relayed or refused since the last look at the completions. */
    private boolean sentSinceReport;
    /** Where {@link #completions} gathers the members whose count changed: as long as the member table, reused. */
    private int[] changedIds = new int[0];
    private long[] changedDone = new long[0];

    /** A member and what the relay alone knows of it; read and written on the relay's thread. */
    private static final class Sender
    {
        final RemoteMember member;
        /** Its frames the pipeline refused here: done with, as a drop, so its node's socket counts them down. */
        long refused;
        /** The done count last told to its node. */
        long reported;

        Sender(final RemoteMember member)
        {
            this.member = member;
        }

        long done()
        {
            return member.completed() + refused;
        }
    }

    /** @param streams the node's TX streams, stream {@code q} for TX queue {@code q}. */
    TxRelay(final PacketSubscription[] streams)
    {
        this.streams = streams;
    }

    /** The node's socket {@code member} may send from now on (copied table: read by the relay without a lock). */
    synchronized void add(final RemoteMember member)
    {
        final Int2ObjectHashMap<Sender> copy = new Int2ObjectHashMap<>(members);
        copy.put(member.id(), new Sender(member));
        members = copy;
    }

    /** Grows the gathering arrays to {@code size} members, on the relay's thread (the table grows as sockets bind). */
    private void fitChanged(final int size)
    {
        if (changedIds.length < size)
        {
            changedIds = new int[size];
            changedDone = new long[size];
        }
    }

    /** Where the node's {@link DataPlaneMessage.Completions} go: its data plane, as it said when it bound. */
    void reportTo(final ActorRef<DataPlaneMessage> node)
    {
        this.node = node;
    }

    /**
     * What each member has completed, for the members whose count changed since the last call, or null if none did
     * (or the relay is fenced: the incarnation is lost). It allocates the message it returns and nothing else: the
     * message goes to another node and is serialized after this returns, so it cannot be reused.
     */
    DataPlaneMessage.Completions completions()
    {
        sentSinceReport = false;
        if (fenced)
        {
            return null;
        }
        final Int2ObjectHashMap<Sender> now = members;
        fitChanged(now.size());
        int changed = 0;
        for (final Sender sender : now.values())
        {
            final long count = sender.done();
            if (count != sender.reported)
            {
                sender.reported = count;
                changedIds[changed] = sender.member.id();
                changedDone[changed++] = count;
            }
        }
        return 0 == changed ? null : new DataPlaneMessage.Completions(Arrays.copyOf(changedIds, changed),
            Arrays.copyOf(changedDone, changed));
    }

    /**
     * True if some member has sends the pipeline is not done with, or frames were relayed since the last
     * {@link #completions}: the node will have more to hear.
     */
    boolean completionsPending()
    {
        if (sentSinceReport)
        {
            return true;
        }
        for (final Sender sender : members.values())
        {
            if (sender.member.sent() + sender.member.held() + sender.refused > sender.reported)
            {
                return true;
            }
        }
        return false;
    }

    ActorRef<DataPlaneMessage> node()
    {
        return node;
    }

    /**
     * The node's incarnation is declared lost while its streams may still bring frames (a newer incarnation of the
     * node has bound): from now on every frame is read and counted {@code staleIncarnation}, none relayed.
     */
    void fence()
    {
        fenced = true;
    }

    boolean fenced()
    {
        return fenced;
    }

    synchronized void remove(final int socketId)
    {
        final Int2ObjectHashMap<Sender> copy = new Int2ObjectHashMap<>(members);
        copy.remove(socketId);
        members = copy;
    }

    /**
     * Copies what each TX stream holds into the qdisc rings, up to a term's end or a ring that refuses.
     *
     * @return frames taken from the streams (relayed or counted).
     */
    int poll()
    {
        pressured = false;
        int frames = 0;
        for (int q = 0; q < streams.length; q++)
        {
            txq = q;
            frames += streams[q].peek(onFrame);
            streams[q].consumePeeked();
        }
        return frames;
    }

    /** The TX streams' ids, stream {@code q} for TX queue {@code q}. */
    int[] streamIds()
    {
        final int[] ids = new int[streams.length];
        for (int q = 0; q < ids.length; q++)
        {
            ids[q] = streams[q].streamId();
        }
        return ids;
    }

    /** True if the last {@link #poll} stopped at a qdisc ring that refused a frame. */
    boolean pressured()
    {
        return pressured;
    }

    /** True once every stream has been read to {@code positions} (one per TX queue). */
    boolean reached(final long[] positions)
    {
        for (int q = 0; q < streams.length; q++)
        {
            final long position = streams[q].position();
            if (PacketSubscription.NO_POSITION == position ? positions[q] > 0 : position < positions[q])
            {
                return false;
            }
        }
        return true;
    }

    /** The node is gone: what its streams still hold is read past and counted as {@code nodeDown}; then closed. */
    void dropLeftovers()
    {
        for (final PacketSubscription stream : streams)
        {
            int taken;
            do
            {
                taken = stream.poll(countLeftover, Integer.MAX_VALUE);
            }
            while (taken > 0);
            stream.close();
        }
    }

    void close()
    {
        for (final PacketSubscription stream : streams)
        {
            stream.close();
        }
    }

    long relayed()
    {
        return relayed.get();
    }

    long rejected()
    {
        return rejected.get();
    }

    long refused()
    {
        return refused.get();
    }

    long nodeDown()
    {
        return nodeDown.get();
    }

    long backPressured()
    {
        return backPressured.get();
    }

    long staleIncarnation()
    {
        return staleIncarnation.get();
    }

    private void countLeftover(final RingFrameHeader header, final DirectBuffer buffer, final int offset,
        final int length)
    {
        (fenced ? staleIncarnation : nodeDown).incrementAndGet();
    }

    private int onFrame(final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        if (fenced)
        {
            staleIncarnation.incrementAndGet();
            return PacketPeekHandler.CONTINUE;
        }
        final Sender sender = members.get(header.socketId());
        if (null == sender)
        {
            rejected.incrementAndGet();
            return PacketPeekHandler.CONTINUE;
        }
        final long result = sender.member.relay(txq, header, buffer, offset, length);
        if (result > 0)
        {
            sentSinceReport = true;
            relayed.incrementAndGet();
            return PacketPeekHandler.CONTINUE;
        }
        if (SendResult.BACK_PRESSURED == result)
        {
            pressured = true;
            backPressured.incrementAndGet();
            return PacketPeekHandler.ABORT;
        }
        sender.refused++;
        sentSinceReport = true;
        refused.incrementAndGet();
        return PacketPeekHandler.CONTINUE;
    }

    /** The relay's actor protocol. */
    sealed interface Command
    {
    }

    enum Poll implements Command
    {
        INSTANCE
    }

    /** A full qdisc ring refused a frame a while ago: look again. */
    enum Retry implements Command
    {
        INSTANCE
    }

    /** Members have packets in flight: tell the node what they have completed since. */
    enum ReportCompletions implements Command
    {
        INSTANCE
    }

    /** What {@link DrainTo} waits for when the whole node leaves, rather than one socket of it. */
    static final int WHOLE_NODE = -1;

    /**
     * Reply {@code Reached} once every stream is read to {@code positions}: the node's last sends before it leaves
     * ({@link #WHOLE_NODE}), or before its socket {@code socketId} is released.
     */
    record DrainTo(long[] positions, int socketId, ActorRef<Reached> replyTo) implements Command
    {
    }

    record Reached(TxRelay relay, int socketId)
    {
    }

    /** {@link #fence} the relay between two polls, then reply: from then on no member of the node is used. */
    record Fence(ActorRef<Fenced> replyTo) implements Command
    {
    }

    record Fenced(TxRelay relay)
    {
    }

    /** Stop: with {@code nodeDown}, count what the streams still hold; else they were drained. Replies when done. */
    record Stop(boolean nodeDown, ActorRef<Stopped> replyTo) implements Command
    {
    }

    record Stopped(TxRelay relay)
    {
    }

    /**
     * The relay's actor: each Poll runs the duty cycle once (spin budget 0: a relay is throughput, not latency), woken
     * by the edge driver's receive hook when a TX stream gets frames.
     */
    static Behavior<Command> create(final TxRelay relay, final RingDoorbell doorbell, final ActorWake<Command> wake)
    {
        return Behaviors.setup(context -> Behaviors.withTimers(timers ->
        {
            wake.bind(context.getSelf());
            doorbell.ring();
            return new Actor(context, timers, relay, doorbell);
        }));
    }

    private static final class Actor extends AbstractBehavior<Command>
    {
        private final TimerScheduler<Command> timers;
        private final TxRelay relay;
        private final RingDoorbell doorbell;
        private final RingDutyCycle cycle;
        /** Drains waiting for the streams to reach their positions, in the order asked. */
        private final List<DrainTo> drains = new ArrayList<>();

        Actor(final ActorContext<Command> context, final TimerScheduler<Command> timers, final TxRelay relay,
            final RingDoorbell doorbell)
        {
            super(context);
            this.timers = timers;
            this.relay = relay;
            this.doorbell = doorbell;
            this.cycle = new RingDutyCycle(doorbell, relay::poll, 0);
        }

        @Override
        public Receive<Command> createReceive()
        {
            return new PollFirstReceive<>(Poll.INSTANCE, this::onPoll, newReceiveBuilder()
                .onMessageEquals(Retry.INSTANCE, this::onRetry)
                .onMessageEquals(ReportCompletions.INSTANCE, this::onReportCompletions)
                .onMessage(DrainTo.class, this::onDrainTo)
                .onMessage(Fence.class, this::onFence)
                .onMessage(Stop.class, this::onStop)
                .build());
        }

        private Behavior<Command> onPoll()
        {
            cycle.onPoll();
            if (relay.pressured() && !timers.isTimerActive(Retry.INSTANCE))
            {
                timers.startSingleTimer(Retry.INSTANCE, Retry.INSTANCE, RETRY_AFTER);
            }
            // Started once per stretch of traffic, not per look: Akka allocates a timer, its task, its message and a
            // logging context at every start, most of what a look allocated (benchmarks.md, 2026-12-02 08:05).
            if (relay.sentSinceReport && !timers.isTimerActive(ReportCompletions.INSTANCE))
            {
                timers.startTimerWithFixedDelay(ReportCompletions.INSTANCE, ReportCompletions.INSTANCE,
                    COMPLETIONS_AFTER);
            }
            replyIfReached();
            return this;
        }

        private Behavior<Command> onReportCompletions()
        {
            final DataPlaneMessage.Completions completions = relay.completions();
            final ActorRef<DataPlaneMessage> node = relay.node();
            if (null != completions && null != node)
            {
                node.tell(completions);
            }
            if (relay.fenced() || !relay.completionsPending())
            {
                timers.cancel(ReportCompletions.INSTANCE);
            }
            return this;
        }

        private Behavior<Command> onRetry()
        {
            // Only from IDLE: a running or scheduled relay has its Poll on the way already.
            if (RingDoorbell.IDLE == doorbell.state())
            {
                doorbell.ring();
            }
            return this;
        }

        private Behavior<Command> onDrainTo(final DrainTo message)
        {
            drains.add(message);
            replyIfReached();
            return this;
        }

        private Behavior<Command> onFence(final Fence fence)
        {
            relay.fence();
            fence.replyTo().tell(new Fenced(relay));
            return this;
        }

        private Behavior<Command> onStop(final Stop stop)
        {
            if (stop.nodeDown())
            {
                relay.dropLeftovers();
            }
            else
            {
                relay.close();
            }
            stop.replyTo().tell(new Stopped(relay));
            return Behaviors.stopped();
        }

        private void replyIfReached()
        {
            for (int i = 0; i < drains.size(); )
            {
                final DrainTo drain = drains.get(i);
                if (relay.reached(drain.positions()))
                {
                    drains.remove(i);
                    drain.replyTo().tell(new Reached(relay, drain.socketId()));
                }
                else
                {
                    i++;
                }
            }
        }
    }
}
