package io.xmit.actors.internal.stage;

import akka.actor.ActorRefWithCell;
import akka.actor.Cell;
import akka.actor.typed.ActorRef;
import akka.actor.typed.javadsl.Adapter;
import akka.dispatch.Envelope;

/**
 * A doorbell's wake-up callback that sends an actor its poll message. The doorbell exists before the actor (the
 * rings that ring it are made first), so a wake-up that comes before the actor is bound is remembered and delivered
 * at {@link #bind}: a wake-up is never lost, or the ring would stay SCHEDULED with no Poll coming.
 * <p>
 * A wake-up allocates nothing: the poll message travels in one envelope made at {@link #bind} and handed to the
 * actor's cell directly, where {@code tell} would make a new envelope per message. Reusing it is safe because an
 * envelope is immutable (and the wake-up protocol keeps at most one Poll in flight anyway). An actor reached through
 * an unstarted or remote reference falls back to {@code tell}.
 */
public final class ActorWake<T> implements Runnable
{
    private final T poll;
    private volatile ActorRef<T> target;
    private volatile Cell cell;
    private Envelope envelope;
    private boolean pending;

    public ActorWake(final T poll)
    {
        this.poll = poll;
    }

    @Override
    public void run()
    {
        final Cell local = cell;
        if (null != local)
        {
            local.sendMessage(envelope);
            return;
        }
        final ActorRef<T> ref = target;
        if (null != ref)
        {
            ref.tell(poll);
            return;
        }
        synchronized (this)
        {
            if (null == target)
            {
                pending = true;
                return;
            }
        }
        target.tell(poll);
    }

    /** Binds (or, after a restart, re-binds) the actor, delivering a wake-up that came before it. */
    public synchronized void bind(final ActorRef<T> ref)
    {
        final akka.actor.ActorRef classic = Adapter.toClassic(ref);
        if (classic instanceof ActorRefWithCell withCell)
        {
            envelope = Envelope.apply(poll, akka.actor.ActorRef.noSender(), withCell.underlying().system());
            cell = withCell.underlying();
        }
        target = ref;
        if (pending)
        {
            pending = false;
            ref.tell(poll);
        }
    }
}
