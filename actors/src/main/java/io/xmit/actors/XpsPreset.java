package io.xmit.actors;

/**
 * Ready-made XPS maps a pipeline can start with (explicit per-queue masks can be added on top).
 */
public enum XpsPreset
{
    /** No XPS: cached queue, else the flow hash (kernel-semantics §1.2, §3.3). */
    NONE("none"),
    /** TX queue i is used by CPU {@code i mod cpus}: one queue per CPU as scaling.rst recommends (§2.2(b)). */
    CPUS("cpus"),
    /** TX queue i serves replies to RX queue i ("symmetric queues", §2.2(a)); RX queues past the TX count wrap. */
    RXQS("rxqs");

    private final String label;

    XpsPreset(final String label)
    {
        this.label = label;
    }

    public String label()
    {
        return label;
    }

    /** @throws IllegalArgumentException naming the value and the allowed ones. */
    public static XpsPreset of(final String key, final String value)
    {
        for (final XpsPreset preset : values())
        {
            if (preset.label.equals(value))
            {
                return preset;
            }
        }
        throw new IllegalArgumentException(key + " = '" + value + "' is not an XPS preset; use none, cpus or rxqs");
    }
}
