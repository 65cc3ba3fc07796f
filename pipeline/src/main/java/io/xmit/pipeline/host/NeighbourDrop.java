package io.xmit.pipeline.host;

/**
 * Why the {@link NeighbourTable} dropped a frame it was asked to hold, each with the counter name an operator
 * sees. The ordinal is stable within a build and indexes the table's drop counts.
 */
public enum NeighbourDrop
{
    /**
     * The neighbour's hold queue was full; as Linux's __neigh_event_send does (SKB_DROP_REASON_NEIGH_QUEUEFULL),
     * the oldest held frame is dropped to make room for the newest.
     */
    HOLD_FULL("neigh_drop_hold_full"),
    /** Resolution failed after {@link NeighbourConfig#maxProbes()} requests; everything held is dropped. */
    UNRESOLVED("neigh_drop_unresolved"),
    /** No entry could be made: every entry is INCOMPLETE, so none may be evicted. */
    TABLE_FULL("neigh_drop_table_full"),
    /** The frame is longer than {@link NeighbourConfig#maxFrameLength()}, or shorter than an Ethernet header. */
    BAD_LENGTH("neigh_drop_bad_length"),
    /** Still held when the pipeline stopped: never sent ({@link NeighbourTable#dropAllHeld}). */
    SHUTDOWN("neigh_drop_shutdown");

    private final String counterName;

    NeighbourDrop(final String counterName)
    {
        this.counterName = counterName;
    }

    public String counterName()
    {
        return counterName;
    }
}
