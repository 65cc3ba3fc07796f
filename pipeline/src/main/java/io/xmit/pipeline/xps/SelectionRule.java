package io.xmit.pipeline.xps;

/**
 * Which rule chose a packet's TX queue, for counters and for explaining a flow's queue.
 */
public enum SelectionRule
{
    /** A single real TX queue: queue 0, nothing consulted (kernel-semantics §1.1(b)). */
    SINGLE("single"),
    /** The socket's cached queue (§1.2). */
    CACHED("cached"),
    /** XPS by the socket's recorded RX queue (§2.2(a)). */
    XPS_RXQS("xps-rxqs"),
    /** XPS by the sending CPU (§2.2(b)). */
    XPS_CPUS("xps-cpus"),
    /** The flow hash scaled onto the real TX queues (§3.3). */
    HASH("hash");

    private final String label;

    SelectionRule(final String label)
    {
        this.label = label;
    }

    /**
     * @return the lower-case name used in counter labels and explanations.
     */
    public String label()
    {
        return label;
    }
}
