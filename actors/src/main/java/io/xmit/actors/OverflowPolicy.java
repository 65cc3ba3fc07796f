package io.xmit.actors;

/** What a qdisc does when its backlog is full (architecture.md, "The qdisc's duty cycle"). */
public enum OverflowPolicy
{
    /** Stop reading the ring: senders see back-pressure when it fills. The default; nothing is lost. */
    BACKPRESSURE("backpressure"),
    /** Keep reading the ring and drop what does not fit, counted as {@code qdisc_drop_overflow} (the kernel's way). */
    DROP("drop");

    private final String label;

    OverflowPolicy(final String label)
    {
        this.label = label;
    }

    public String label()
    {
        return label;
    }

    /** @throws IllegalArgumentException naming the value and the allowed ones. */
    public static OverflowPolicy of(final String key, final String value)
    {
        for (final OverflowPolicy policy : values())
        {
            if (policy.label.equals(value))
            {
                return policy;
            }
        }
        throw new IllegalArgumentException(
            key + " = '" + value + "' is not an overflow policy; use backpressure or drop");
    }
}
