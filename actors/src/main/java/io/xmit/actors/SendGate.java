package io.xmit.actors;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets a graceful stop (or a socket's close) release the rings under their senders safely, at almost no cost per
 * send. A sender marks itself inside a send (an ordered store on its socket, fenced before the send's own stores into
 * the ring), then reads the gate (an acquire load, before any access to the ring). The stop closes the gate (a volatile
 * store), lets a {@link #GRACE grace period} pass, then waits until no sender is marked. After {@link #closeAndWait},
 * no send is in a ring or will be.
 * <p>
 * Why a grace period rather than Dekker's handshake (a volatile store, then a volatile load, on each side): the full
 * fence that handshake puts on every send cost 10 % of xmit's TX throughput ({@code xmit bench}, five alternating
 * pairs of runs). Without it the processor may let the sender's read of the gate overtake its mark, which then waits
 * in the store buffer; but a store buffer drains within nanoseconds, and at once when its thread is switched out, so
 * a sender that read the gate open shows its mark long before the grace period ends, and is then waited for. This
 * reasons about the hardware (store buffers drain) as well as the Java memory model, the trade the kernel's
 * membarrier-based RCU makes; the compiler is held by the fences named above.
 */
final class SendGate
{
    /** Far longer than a store buffer takes to drain. */
    static final long GRACE = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle SENDING;
    private static final VarHandle CLOSED;

    static
    {
        try
        {
            SENDING = MethodHandles.lookup().findVarHandle(Sender.class, "sending", boolean.class);
            CLOSED = MethodHandles.lookup().findVarHandle(SendGate.class, "closed", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The per-socket mark, on its own object so that senders on different sockets share no cache line. */
    static final class Sender
    {
        @SuppressWarnings("unused")
        private boolean sending;

        /** On the sending thread: true if the send may go on (then {@link #leave()} must follow). */
        boolean enter(final SendGate gate)
        {
            SENDING.setOpaque(this, true);
            // The send's stores into the ring may not be moved before the mark.
            VarHandle.storeStoreFence();
            if ((boolean)CLOSED.getAcquire(gate))
            {
                SENDING.setRelease(this, false);
                return false;
            }
            return true;
        }

        void leave()
        {
            SENDING.setRelease(this, false);
        }

        /**
         * After its socket or the gate was closed: lets the grace period pass, then waits until this sender is not
         * inside a send; it stays out from then on.
         */
        void awaitOutside()
        {
            gracePeriod();
            awaitLeft();
        }

        private void awaitLeft()
        {
            while ((boolean)SENDING.getVolatile(this))
            {
                Thread.onSpinWait();
            }
        }
    }

    private volatile boolean closed;

    /** Sleeps at least {@link #GRACE} (a park may return early). */
    private static void gracePeriod()
    {
        final long end = System.nanoTime() + GRACE;
        long left;
        while ((left = end - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(left);
        }
    }

    /** Closes the gate, lets the grace period pass, and waits until none of {@code senders} is inside a send. */
    void closeAndWait(final Iterable<Sender> senders)
    {
        closed = true;
        gracePeriod();
        for (final Sender sender : senders)
        {
            sender.awaitLeft();
        }
    }
}
