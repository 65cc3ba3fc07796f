package io.xmit.pipeline.host;

/**
 * A neighbour entry's state, Linux's NUD states in simplified form: no DELAY or PROBE state (a stale entry in
 * use is re-probed at once, see {@link NeighbourTable#lookup}) and no FAILED entries (a failed resolution
 * removes the entry).
 */
public enum NeighbourState
{
    /** No entry for the address. */
    NONE,
    /** Being resolved: requests are broadcast and frames are held until a reply comes or the probes run out. */
    INCOMPLETE,
    /** Confirmed less than {@link NeighbourConfig#reachableNanos()} ago. */
    REACHABLE,
    /** Known but unconfirmed: still used, and re-probed when used. */
    STALE
}
