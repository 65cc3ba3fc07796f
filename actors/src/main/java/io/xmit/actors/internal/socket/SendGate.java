package io.xmit.actors.internal.socket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Lets a graceful stop close the pipeline's rings under its senders safely. A sender marks itself inside a send
 * (a volatile write on its socket), then reads whether the gate is closed (a volatile read); the stop closes the gate,
 * then waits until no socket is marked. Either the sender sees the gate closed and refuses the send, or the stop sees
 * the sender inside and waits for it to leave, never neither (the two volatile accesses on each side are ordered).
 * After {@link #closeAndWait}, no send is in a ring or will be. The price is one full fence per send (the volatile
 * store); a variant with an ordered store and a grace period on the stopping side measured no faster
 * ({@code xmit bench}, three alternating pairs), so the handshake the Java memory model proves is kept.
 */
public final class SendGate
{
    private static final VarHandle SENDING;

    static
    {
        try
        {
            SENDING = MethodHandles.lookup().findVarHandle(Sender.class, "sending", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The per-socket mark, on its own object so that senders on different sockets share no cache line. */
    public static final class Sender
    {
        @SuppressWarnings("unused")
        private boolean sending;

        /** On the sending thread: true if the send may go on (then {@link #leave()} must follow). */
        public boolean enter(final SendGate gate)
        {
            SENDING.setVolatile(this, true);
            if (gate.closed)
            {
                SENDING.setRelease(this, false);
                return false;
            }
            return true;
        }

        public void leave()
        {
            SENDING.setRelease(this, false);
        }

        /** Waits until this sender is not inside a send; after its socket or the gate closed, it stays out. */
        public void awaitOutside()
        {
            while ((boolean)SENDING.getVolatile(this))
            {
                Thread.onSpinWait();
            }
        }
    }

    private volatile boolean closed;

    /** Closes the gate and waits until none of {@code senders} is inside a send (each leaves within one send). */
    public void closeAndWait(final Iterable<Sender> senders)
    {
        closed = true;
        for (final Sender sender : senders)
        {
            sender.awaitOutside();
        }
    }
}
