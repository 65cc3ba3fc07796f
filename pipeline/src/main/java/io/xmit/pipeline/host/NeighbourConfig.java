package io.xmit.pipeline.host;

/**
 * The neighbour table's sizes and timers, named after Linux's neigh sysctls.
 *
 * @param capacity        how many neighbours the table holds (Linux's gc_thresh3 is 1024).
 * @param reachableNanos  how long a confirmation keeps an entry REACHABLE (base_reachable_time, 30 s; Linux
 *                        randomises it to 0.5..1.5 times the base, this table does not, so tests are exact).
 * @param retransNanos    the interval between requests for one neighbour (retrans_time, 1 s).
 * @param maxProbes       requests sent before a resolution fails (mcast_probes and ucast_probes, 3 each).
 * @param holdPerNeighbour frames held per unresolved neighbour (unres_qlen, 3 until Linux 3.3; later kernels
 *                        bound the queue by unres_qlen_bytes instead, about 100 full-size frames).
 * @param maxFrameLength  the longest frame that can be held; the hold arena is
 *                        {@code capacity * holdPerNeighbour * maxFrameLength} bytes, allocated once.
 */
public record NeighbourConfig(
    int capacity,
    long reachableNanos,
    long retransNanos,
    int maxProbes,
    int holdPerNeighbour,
    int maxFrameLength)
{
    public static final int DEFAULT_CAPACITY = 256;
    public static final long DEFAULT_REACHABLE_NANOS = 30_000_000_000L;
    public static final long DEFAULT_RETRANS_NANOS = 1_000_000_000L;
    public static final int DEFAULT_MAX_PROBES = 3;
    public static final int DEFAULT_HOLD_PER_NEIGHBOUR = 3;
    public static final int DEFAULT_MAX_FRAME_LENGTH = 2048;
    /** Keeps the hold arena inside one byte array. */
    public static final long MAX_ARENA_BYTES = Integer.MAX_VALUE - 8;

    public NeighbourConfig
    {
        positive("capacity", capacity);
        positive("reachableNanos", reachableNanos);
        positive("retransNanos", retransNanos);
        positive("maxProbes", maxProbes);
        positive("holdPerNeighbour", holdPerNeighbour);
        positive("maxFrameLength", maxFrameLength);
        if (capacity > 1 << 24)
        {
            throw new IllegalArgumentException("capacity " + capacity + " is above 2^24");
        }
        if ((long)capacity * holdPerNeighbour * maxFrameLength > MAX_ARENA_BYTES)
        {
            throw new IllegalArgumentException("hold arena of " + capacity + " * " + holdPerNeighbour + " * " +
                maxFrameLength + " bytes does not fit in one array");
        }
    }

    /** Linux's defaults, 256 neighbours, frames up to 2048 bytes: a 1.5 MiB hold arena. */
    public static NeighbourConfig defaults()
    {
        return new NeighbourConfig(DEFAULT_CAPACITY, DEFAULT_REACHABLE_NANOS, DEFAULT_RETRANS_NANOS,
            DEFAULT_MAX_PROBES, DEFAULT_HOLD_PER_NEIGHBOUR, DEFAULT_MAX_FRAME_LENGTH);
    }

    private static void positive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " " + value + " is not positive");
        }
    }
}
