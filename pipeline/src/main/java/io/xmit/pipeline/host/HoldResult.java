package io.xmit.pipeline.host;

/** What {@link NeighbourTable#hold} did with a frame. */
public enum HoldResult
{
    /** Copied into the neighbour's hold queue; it goes out through the handler when the neighbour resolves. */
    HELD,
    /** The neighbour is already resolved: nothing was copied, send the frame to {@link NeighbourTable#lookup}. */
    RESOLVED,
    /** Dropped and counted under {@link NeighbourDrop#TABLE_FULL}. */
    DROPPED_TABLE_FULL,
    /** Dropped and counted under {@link NeighbourDrop#BAD_LENGTH}. */
    DROPPED_BAD_LENGTH
}
