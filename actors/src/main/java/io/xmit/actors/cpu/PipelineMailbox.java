package io.xmit.actors.cpu;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.typed.MailboxSelector;
import akka.actor.typed.Props;
import akka.dispatch.Envelope;
import akka.dispatch.MailboxType;
import akka.dispatch.MessageQueue;
import akka.dispatch.ProducesMessageQueue;
import akka.dispatch.UnboundedMessageQueueSemantics;
import com.typesafe.config.Config;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import scala.Option;

import java.util.ArrayDeque;

/**
 * The mailbox of the pipeline's actors: a preallocated many-to-one array ring, so enqueuing a message allocates no
 * queue node (Akka's default mailbox allocates one per message, and a pipeline actor receives a Poll per turn).
 * Unbounded all the same: when the ring is full, messages wait in an overflow list, and while that list holds
 * anything every new message joins it, so each sender's messages stay in the order sent.
 * <p>
 * Selected by {@code xmit-mailbox} in the actors module's {@code reference.conf}.
 */
public final class PipelineMailbox implements MailboxType, ProducesMessageQueue<PipelineMailbox.Queue>
{
    public static final String CONFIG_PATH = "xmit-mailbox";

    private final int capacity;

    /**
     * {@code props} with this mailbox, for an actor that is told a message per wake-up (a ring's consumer): when the
     * system's configuration has {@link #CONFIG_PATH} (the actors module's {@code reference.conf} does, unless the
     * application built its configuration without the reference files); otherwise {@code props} as they are.
     */
    public static Props selectIn(final akka.actor.typed.ActorSystem<?> system, final Props props)
    {
        return system.settings().config().hasPath(CONFIG_PATH) ?
            props.withNext(MailboxSelector.fromConfig(CONFIG_PATH)) : props;
    }

    /** Akka's constructor for a mailbox type: the system's settings and this mailbox's configuration. */
    public PipelineMailbox(final ActorSystem.Settings settings, final Config config)
    {
        capacity = config.hasPath("capacity") ? config.getInt("capacity") : 1024;
        if (capacity < 2)
        {
            throw new IllegalArgumentException(CONFIG_PATH + ".capacity must be at least 2, was " + capacity);
        }
    }

    @Override
    public MessageQueue create(final Option<ActorRef> owner, final Option<ActorSystem> system)
    {
        return new Queue(capacity);
    }

    /** The queue: many producers, the actor's one consumer at a time. */
    public static final class Queue implements MessageQueue, UnboundedMessageQueueSemantics
    {
        private final ManyToOneConcurrentArrayQueue<Envelope> ring;
        private final ArrayDeque<Envelope> overflow = new ArrayDeque<>();
        private volatile int overflowCount;

        Queue(final int capacity)
        {
            ring = new ManyToOneConcurrentArrayQueue<>(capacity);
        }

        @Override
        public void enqueue(final ActorRef receiver, final Envelope handle)
        {
            if (0 == overflowCount && ring.offer(handle))
            {
                return;
            }
            synchronized (overflow)
            {
                overflow.addLast(handle);
                overflowCount = overflow.size();
            }
        }

        @Override
        public Envelope dequeue()
        {
            final Envelope next = ring.poll();
            if (null != next || 0 == overflowCount)
            {
                return next;
            }
            synchronized (overflow)
            {
                final Envelope first = overflow.pollFirst();
                overflowCount = overflow.size();
                return first;
            }
        }

        @Override
        public int numberOfMessages()
        {
            return ring.size() + overflowCount;
        }

        @Override
        public boolean hasMessages()
        {
            return !ring.isEmpty() || overflowCount > 0;
        }

        @Override
        public void cleanUp(final ActorRef owner, final MessageQueue deadLetters)
        {
            Envelope envelope;
            while (null != (envelope = dequeue()))
            {
                deadLetters.enqueue(owner, envelope);
            }
        }
    }
}
