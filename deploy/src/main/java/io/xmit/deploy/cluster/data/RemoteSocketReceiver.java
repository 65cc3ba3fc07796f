package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.internal.socket.ReceivedFrame;
import io.xmit.actors.internal.stage.ActorWake;
import io.xmit.pipeline.frame.FrameParser;
import io.xmit.pipeline.frame.ParseStatus;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;

import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The receive side of a {@link RemoteUdpSocket}: its UDP ring from the edge, read as a local socket reads its IPC
 * ring. The node's driver rings the doorbell when a datagram of the ring arrives (and when the edge's image appears),
 * the actor's duty cycle drains the ring into the handler and goes idle: no polling loop, no timer. Each datagram's
 * RX queue (from the edge's header) is recorded on the socket, so its replies keep XPS by RX queue and the cached TX
 * queue. Allocation-free per datagram.
 */
final class RemoteSocketReceiver
{
    private static final Logger LOG = LoggerFactory.getLogger(RemoteSocketReceiver.class);

    private final RemoteUdpSocket socket;
    private final PacketSubscription ring;
    private final DatagramHandler handler;
    private final int pollLimit;
    private final FrameParser parser = new FrameParser();
    private final ParsedFrame parsed = new ParsedFrame();
    private final ReceivedFrame datagram = new ReceivedFrame();
    private final PacketHandler onFrame = this::onFrame;
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong handlerFailed = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();

    RemoteSocketReceiver(final RemoteUdpSocket socket, final PacketSubscription ring, final DatagramHandler handler,
        final int pollLimit)
    {
        this.socket = socket;
        this.ring = ring;
        this.handler = handler;
        this.pollLimit = pollLimit;
    }

    /** @return datagrams taken from the ring (each delivered, or counted as malformed). */
    int poll()
    {
        return ring.poll(onFrame, pollLimit);
    }

    /** Datagrams handed to the handler (a handler that threw included, as a local socket counts them). */
    long received()
    {
        return received.get();
    }

    long handlerFailed()
    {
        return handlerFailed.get();
    }

    /** Frames in the ring that did not parse: only a writer other than an edge's RX queue could put them there. */
    long malformed()
    {
        return malformed.get();
    }

    RemoteUdpSocket socket()
    {
        return socket;
    }

    PacketSubscription ring()
    {
        return ring;
    }

    private void onFrame(final RingFrameHeader header, final DirectBuffer buffer, final int offset, final int length)
    {
        if (ParseStatus.OK != parser.parse(buffer, offset, length, parsed))
        {
            malformed.incrementAndGet();
            return;
        }
        socket.recordRxQueue(header.rxQueue());
        datagram.wrap(buffer, parsed, header.rxQueue(), header.flowHash(), header.traceId());
        try
        {
            handler.onDatagram(socket, datagram);
        }
        catch (final RuntimeException ex)
        {
            if (0 == handlerFailed.getAndIncrement())
            {
                LOG.error("remote socket {}: the datagram handler threw; the datagram counts as received (later " +
                    "failures are counted, not logged)", socket.id(), ex);
            }
        }
        received.incrementAndGet();
    }

    /** The receiver's actor protocol. */
    sealed interface Command
    {
    }

    enum Poll implements Command
    {
        INSTANCE
    }

    /** Read the ring to {@code position} (where the edge stopped writing), then tell {@code replyTo}. */
    record DrainTo(long position, ActorRef<AppDataPlane.Command> replyTo) implements Command
    {
    }

    /**
     * The actor: each Poll runs the duty cycle once; the first time the ring has the edge's image, it tells
     * {@code owner} so the edge may steer to the socket.
     */
    static Behavior<Command> create(final RemoteSocketReceiver receiver, final RingDoorbell doorbell,
        final ActorWake<Command> wake, final int spinPolls, final ActorRef<AppDataPlane.Command> owner,
        final int streamId)
    {
        return Behaviors.setup(context ->
        {
            wake.bind(context.getSelf());
            doorbell.ring();
            return new Actor(context, receiver, new RingDutyCycle(doorbell, receiver::poll, spinPolls), owner,
                streamId);
        });
    }

    private static final class Actor extends AbstractBehavior<Command>
    {
        private final RemoteSocketReceiver receiver;
        private final RingDutyCycle cycle;
        private final ActorRef<AppDataPlane.Command> owner;
        private final int streamId;
        private boolean connected;
        private DrainTo drain;

        Actor(final ActorContext<Command> context, final RemoteSocketReceiver receiver, final RingDutyCycle cycle,
            final ActorRef<AppDataPlane.Command> owner, final int streamId)
        {
            super(context);
            this.receiver = receiver;
            this.cycle = cycle;
            this.owner = owner;
            this.streamId = streamId;
        }

        @Override
        public Receive<Command> createReceive()
        {
            return new PollFirstReceive<>(Poll.INSTANCE, this::onPoll, newReceiveBuilder()
                .onMessage(DrainTo.class, this::onDrainTo)
                .build());
        }

        private Behavior<Command> onPoll()
        {
            cycle.onPoll();
            if (!connected && receiver.ring().isConnected())
            {
                connected = true;
                owner.tell(new AppDataPlane.ReceiverConnected(streamId));
            }
            replyIfDrained();
            return this;
        }

        private Behavior<Command> onDrainTo(final DrainTo message)
        {
            drain = message;
            replyIfDrained();
            return this;
        }

        private void replyIfDrained()
        {
            final long position = receiver.ring().position();
            if (null != drain && (PacketSubscription.NO_POSITION == position ? 0 : position) >= drain.position())
            {
                drain.replyTo().tell(new AppDataPlane.ReceiverDrained(streamId, receiver.received()));
                drain = null;
            }
        }
    }
}
