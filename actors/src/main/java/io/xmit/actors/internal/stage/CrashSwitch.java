package io.xmit.actors.internal.stage;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for supervision tests: a crash armed from any thread and taken by the stage's own thread at its
 * n-th <em>crash point</em> from then on. Each stage puts its crash points where a failure is hardest to recover
 * from (an RX burst half delivered, a {@code tx_burst} whose result is not yet booked, completions reclaimed but not
 * yet released), so the tests prove the recovery there. Unarmed, a crash point costs a field read and a branch.
 */
public final class CrashSwitch
{
    private final AtomicInteger armed = new AtomicInteger();
    private final String stage;
    private int countdown;

    public CrashSwitch(final String stage)
    {
        this.stage = stage;
    }

    /** Arms a crash at the {@code points}-th crash point the stage passes from its next turn on (1 = the first). */
    public void arm(final int points)
    {
        if (points < 1)
        {
            throw new IllegalArgumentException("a crash must come at crash point 1 or later, was " + points);
        }
        armed.set(points);
    }

    /** At the start of each turn, on the stage's thread: takes an armed crash. */
    public void load()
    {
        if (0 != armed.get())
        {
            countdown = armed.getAndSet(0);
        }
    }

    /** A crash point, named by a constant (nothing is built unless it throws): throws if this is the armed one. */
    public void point(final String where)
    {
        if (countdown > 0 && 0 == --countdown)
        {
            throw new InjectedCrash(stage + ": injected crash " + where);
        }
    }

    /** The failure a {@link CrashSwitch} throws: an ordinary exception, so supervision treats it as any other. */
    public static final class InjectedCrash extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        InjectedCrash(final String message)
        {
            super(message, null, false, false);
        }
    }
}
