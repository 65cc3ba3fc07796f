package io.xmit.transport.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Fills the 128 bytes before the token word, as {@link RingDoorbell} does, so that the word shares no cache line
 * with anything written often.
 */
abstract class RunTokenLhsPadding
{
    byte
        p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p010, p011, p012, p013, p014, p015,
        p016, p017, p018, p019, p020, p021, p022, p023, p024, p025, p026, p027, p028, p029, p030, p031,
        p032, p033, p034, p035, p036, p037, p038, p039, p040, p041, p042, p043, p044, p045, p046, p047,
        p048, p049, p050, p051, p052, p053, p054, p055, p056, p057, p058, p059, p060, p061, p062, p063,
        p064, p065, p066, p067, p068, p069, p070, p071, p072, p073, p074, p075, p076, p077, p078, p079,
        p080, p081, p082, p083, p084, p085, p086, p087, p088, p089, p090, p091, p092, p093, p094, p095,
        p096, p097, p098, p099, p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p110, p111,
        p112, p113, p114, p115, p116, p117, p118, p119, p120, p121, p122, p123, p124, p125, p126, p127;
}

/** The token word itself. */
abstract class RunTokenState extends RunTokenLhsPadding
{
    int state;
}

/** Fills the 128 bytes after the token word. */
abstract class RunTokenRhsPadding extends RunTokenState
{
    byte
        q000, q001, q002, q003, q004, q005, q006, q007, q008, q009, q010, q011, q012, q013, q014, q015,
        q016, q017, q018, q019, q020, q021, q022, q023, q024, q025, q026, q027, q028, q029, q030, q031,
        q032, q033, q034, q035, q036, q037, q038, q039, q040, q041, q042, q043, q044, q045, q046, q047,
        q048, q049, q050, q051, q052, q053, q054, q055, q056, q057, q058, q059, q060, q061, q062, q063,
        q064, q065, q066, q067, q068, q069, q070, q071, q072, q073, q074, q075, q076, q077, q078, q079,
        q080, q081, q082, q083, q084, q085, q086, q087, q088, q089, q090, q091, q092, q093, q094, q095,
        q096, q097, q098, q099, q100, q101, q102, q103, q104, q105, q106, q107, q108, q109, q110, q111,
        q112, q113, q114, q115, q116, q117, q118, q119, q120, q121, q122, q123, q124, q125, q126, q127;
}

/**
 * The right to run one single-writer engine (a qdisc, or a channel's RX queue and completions), held by one runner at
 * a time: its actor, which owns it by default, or a thread that borrows it, such as a sender taking the qdisc's bypass
 * in its own context or a socket busy-polling its channel. It has the semantics of the kernel's
 * {@code qdisc_run_begin}/{@code qdisc_run_end} for a lockless qdisc and of a NAPI instance's {@code SCHED} bit: a
 * try-lock that never waits, and a MISSED mark so that work a loser brought is not stranded.
 * <pre>
 *   FREE ──tryAcquire()──▶ HELD ──a loser's tryAcquire()──▶ HELD_MISSED
 *    ▲                      │                                  │
 *    └──── release(): false ┘          release(): true ────────┘ (the holder must see that the engine runs again)
 * </pre>
 * A runner that loses {@link #tryAcquire()} marks the token MISSED and walks away, leaving its work to the holder;
 * the holder's {@link #release()} then answers true, and the holder makes sure the engine runs again, for example by
 * ringing its actor's doorbell (the kernel's {@code __netif_schedule} after {@code qdisc_run_end} found MISSED). A
 * loser tries once more after marking, so that a holder releasing at that moment, before it could see the mark, does
 * not leave the loser's work behind.
 * <p>
 * The acquiring CAS and the releasing swap order everything the engine wrote: whatever a holder wrote before its
 * release is seen by the next holder after its acquire, on whatever thread. An engine that moves between threads this
 * way stays single-writer.
 */
public final class RunToken extends RunTokenRhsPadding
{
    /** Nobody runs the engine. */
    public static final int FREE = 0;
    /** One runner holds the engine. */
    public static final int HELD = 1;
    /** One runner holds the engine, and another wanted to run it while it did. */
    public static final int HELD_MISSED = 2;

    private static final VarHandle STATE;

    static
    {
        try
        {
            STATE = MethodHandles.lookup().findVarHandle(RunTokenState.class, "state", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /**
     * Takes the token if it is free. If not, marks it MISSED (the holder will see to it that the engine runs again)
     * and tries once more, in case the holder released before it could see the mark.
     *
     * @return true if the caller now holds the token and must {@link #release()} it.
     */
    public boolean tryAcquire()
    {
        if (STATE.compareAndSet(this, FREE, HELD))
        {
            return true;
        }
        STATE.compareAndSet(this, HELD, HELD_MISSED);
        return STATE.compareAndSet(this, FREE, HELD);
    }

    /**
     * Takes the token if it is free, and leaves no mark if it is not: for a runner that will come back by itself (a
     * poll of its own that it repeats), so that the holder is not asked to hand over for nothing.
     *
     * @return true if the caller now holds the token and must {@link #release()} it.
     */
    public boolean tryAcquireQuietly()
    {
        return STATE.compareAndSet(this, FREE, HELD);
    }

    /**
     * Gives the token back.
     *
     * @return true if another runner wanted the engine while it was held: the caller must see to it that the engine
     * runs again (its work may be waiting).
     * @throws IllegalStateException if the token was not held.
     */
    public boolean release()
    {
        final int previous = (int)STATE.getAndSet(this, FREE);
        if (FREE == previous)
        {
            throw new IllegalStateException("run token released while free");
        }
        return HELD_MISSED == previous;
    }

    /** {@link #FREE}, {@link #HELD} or {@link #HELD_MISSED}; for tests and diagnostics. */
    public int state()
    {
        return (int)STATE.getVolatile(this);
    }

    @Override
    public String toString()
    {
        return "RunToken{" + switch (state())
        {
            case FREE -> "FREE";
            case HELD -> "HELD";
            case HELD_MISSED -> "HELD_MISSED";
            default -> "UNKNOWN";
        } + "}";
    }
}
