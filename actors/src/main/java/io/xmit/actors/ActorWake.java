package io.xmit.actors;

import akka.actor.typed.ActorRef;

/**
 * A doorbell's wake-up callback that sends an actor its poll message. The doorbell exists before the actor (the
 * rings that ring it are made first), so a wake-up that comes before the actor is bound is remembered and delivered
 * at {@link #bind}: a wake-up is never lost, or the ring would stay SCHEDULED with no Poll coming.
 */
final class ActorWake<T> implements Runnable
{
    private final T poll;
    private volatile ActorRef<T> target;
    private boolean pending;

    ActorWake(final T poll)
    {
        this.poll = poll;
    }

    @Override
    public void run()
    {
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
    synchronized void bind(final ActorRef<T> ref)
    {
        target = ref;
        if (pending)
        {
            pending = false;
            ref.tell(poll);
        }
    }
}
