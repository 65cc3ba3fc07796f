package io.xmit.deploy.bench;

import java.util.List;

/**
 * What the data path's threads of one {@code cluster} bench process allocated over one window, with the packets the
 * process handled and the window's length, all from the child's own clock ({@link ClusterBenchChild}'s {@code alloc}).
 * Two windows of the same processes at two offered rates give the bytes per packet that grow with the load, without
 * what those threads allocate per second whatever the rate ({@link #marginalBytesPerPacket}).
 *
 * @param bytes   bytes the process's data-path threads allocated over the window.
 * @param packets packets the process handled over it: replies received, or requests answered.
 * @param nanos   the window's length as the process measured it.
 */
record AllocationWindow(long bytes, long packets, long nanos)
{
    AllocationWindow
    {
        if (bytes < 0 || packets < 0 || nanos < 1)
        {
            throw new IllegalArgumentException("allocation window out of range: " + bytes + " bytes, " + packets +
                " packets, " + nanos + " ns");
        }
    }

    /** A child's answer to {@code alloc}, without its keyword: {@code BYTES PACKETS NANOS}. */
    static AllocationWindow parse(final String line)
    {
        final String[] fields = line.trim().split(" ");
        if (fields.length != 3)
        {
            throw new IllegalArgumentException("not an allocation window (BYTES PACKETS NANOS): '" + line + "'");
        }
        try
        {
            return new AllocationWindow(Long.parseLong(fields[0]), Long.parseLong(fields[1]),
                Long.parseLong(fields[2]));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not an allocation window (BYTES PACKETS NANOS): '" + line + "'", ex);
        }
    }

    double bytesPerSecond()
    {
        return bytes * 1e9 / nanos;
    }

    double packetsPerSecond()
    {
        return packets * 1e9 / nanos;
    }

    /** Bytes allocated by all the processes over their windows. */
    static long bytes(final List<AllocationWindow> processes)
    {
        long sum = 0;
        for (final AllocationWindow process : processes)
        {
            sum += process.bytes();
        }
        return sum;
    }

    /**
     * The bytes the variant's data-path threads allocate for each more packet: the difference of their allocation
     * rates (bytes per second, summed over the processes) between a fast window and a slow one, over the difference
     * of the load's reply rates (the first process's packets per second). Rates, not counts, so windows of slightly
     * different lengths compare; what the threads allocate per second whatever the load cancels out.
     *
     * @param fast the processes' windows at the higher offered rate, the load's process first.
     * @param slow the same processes' windows at the lower one, in the same order.
     * @return the marginal bytes per packet, NaN if the two windows' reply rates are equal.
     */
    static double marginalBytesPerPacket(final List<AllocationWindow> fast, final List<AllocationWindow> slow)
    {
        if (fast.isEmpty() || fast.size() != slow.size())
        {
            throw new IllegalArgumentException("windows of " + fast.size() + " and " + slow.size() +
                " processes: the same processes, at least one, are measured twice");
        }
        double bytes = 0;
        for (int p = 0; p < fast.size(); p++)
        {
            bytes += fast.get(p).bytesPerSecond() - slow.get(p).bytesPerSecond();
        }
        final double packets = fast.getFirst().packetsPerSecond() - slow.getFirst().packetsPerSecond();
        return packets == 0 ? Double.NaN : bytes / packets;
    }
}
