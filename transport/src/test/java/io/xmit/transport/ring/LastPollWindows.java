package io.xmit.transport.ring;

/**
 * The windows of a ring consumer's last {@code Poll} in its {@link RingDutyCycle} (kernel-semantics §5.5), where the
 * step-by-step wake-up tests place a producer's steps: the empty poll, IDLE published, the re-poll, its CAS back to
 * RUNNING, the Poll's return.
 */
public final class LastPollWindows
{
    /** Before the last poll reads the ring. */
    public static final int BEFORE_POLL = 0;
    /** After the last poll found nothing to do, before the consumer publishes IDLE: the window MISSED is for. */
    public static final int AFTER_POLL = 1;
    /** IDLE published, before the re-poll reads the ring. */
    public static final int BEFORE_REPOLL = 2;
    /** After the re-poll read the ring, before its CAS back to RUNNING. */
    public static final int AFTER_REPOLL = 3;
    /** The consumer's Poll has returned. */
    public static final int AFTER_RETURN = 4;
    public static final int WINDOWS = 5;

    private static final String[] NAMES =
        {"before the last poll", "after the last poll", "before the re-poll", "after the re-poll", "after the Poll"};

    private LastPollWindows()
    {
    }

    /** The window's name, for failure messages. */
    public static String name(final int window)
    {
        return NAMES[window];
    }
}
