package io.xmit.actors.trace;

import io.xmit.actors.config.ConfigKey;

/**
 * Tracing as configured ({@code xmit.trace { … }}): which packets, where the pcapng file goes, and the trace ring.
 *
 * @param selector   which packets are traced (changeable at run time through the pipeline).
 * @param file       the pcapng file to write, or empty for none (events then go to the {@code xmit.trace} log only).
 * @param ringSize   the trace ring's capacity in bytes, a power of two; a full ring drops events (counted).
 * @param snapLength how many bytes of each traced frame are kept.
 */
public record TraceConfig(TraceSelector selector, String file, int ringSize, int snapLength)
{
    public static final int DEFAULT_RING_SIZE = 1 << 20;
    public static final int DEFAULT_SNAP_LENGTH = 128;
    public static final TraceConfig OFF = new TraceConfig(TraceSelector.OFF, "", DEFAULT_RING_SIZE,
        DEFAULT_SNAP_LENGTH);

    public TraceConfig
    {
        if (null == selector)
        {
            selector = TraceSelector.OFF;
        }
        if (null == file)
        {
            file = "";
        }
        if (Integer.bitCount(ringSize) != 1)
        {
            throw ConfigKey.TRACE_RING_SIZE.refused(ringSize);
        }
        ConfigKey.TRACE_RING_SIZE.check(ringSize);
        ConfigKey.TRACE_SNAP_LENGTH.check(snapLength);
        if (TraceEvent.HEADER_LENGTH + snapLength > ringSize / 8)
        {
            throw new IllegalArgumentException(ConfigKey.TRACE_RING_SIZE.key() + " = " + ringSize +
                " is too small for events of a " + snapLength + "-byte snap length (at least " +
                8 * (TraceEvent.HEADER_LENGTH + snapLength) + " bytes)");
        }
    }

    public TraceConfig withSelector(final TraceSelector newSelector)
    {
        return new TraceConfig(newSelector, file, ringSize, snapLength);
    }

    public TraceConfig withFile(final String newFile)
    {
        return new TraceConfig(selector, newFile, ringSize, snapLength);
    }

    public TraceConfig withRingSize(final int newRingSize)
    {
        return new TraceConfig(selector, file, newRingSize, snapLength);
    }
}
