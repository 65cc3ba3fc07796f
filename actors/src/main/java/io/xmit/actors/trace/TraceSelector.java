package io.xmit.actors.trace;

import io.xmit.pipeline.flow.FlowKey;

/**
 * Which packets are traced: those of a flow filter and/or one socket, and of those one in {@code sample}. Off when
 * neither a sample nor a filter is set. Immutable: the pipeline swaps the whole selector to change it at run time.
 *
 * @param sample trace one in this many matching packets, counted per RX queue and per sending socket; 0 with a filter
 *               means every matching packet, 0 without one means off.
 * @param flow   the flow filter, or null for any flow.
 * @param socket the socket id, or {@link #ANY_SOCKET}.
 */
public record TraceSelector(int sample, FlowFilter flow, int socket)
{
    public static final int ANY_SOCKET = -1;
    public static final TraceSelector OFF = new TraceSelector(0, null, ANY_SOCKET);

    public TraceSelector
    {
        if (sample < 0)
        {
            throw new IllegalArgumentException("trace sample = " + sample + " must be 0 (off, or every match of a " +
                "filter) or N for one packet in N");
        }
        if (socket < ANY_SOCKET)
        {
            throw new IllegalArgumentException("trace socket = " + socket + " must be a socket id (or -1 for any)");
        }
    }

    /**
     * Parses {@code key=value} terms separated by commas: {@code sample=N}, {@code flow=PATTERN} ({@link FlowFilter}),
     * {@code socket=ID}; an empty text or {@code off} is {@link #OFF}.
     *
     * @throws IllegalArgumentException naming the term that is wrong.
     */
    public static TraceSelector parse(final String text)
    {
        int sample = 0;
        FlowFilter flow = null;
        int socket = ANY_SOCKET;
        if (text.isBlank() || "off".equals(text.trim()))
        {
            return OFF;
        }
        for (final String term : text.split(","))
        {
            final int eq = term.indexOf('=');
            final String key = eq < 0 ? term.trim() : term.substring(0, eq).trim();
            final String value = eq < 0 ? "" : term.substring(eq + 1).trim();
            switch (key)
            {
                case "sample" -> sample = number("sample", value);
                case "flow" -> flow = FlowFilter.parse(value);
                case "socket" -> socket = number("socket", value);
                default -> throw new IllegalArgumentException("trace '" + term + "' is not sample=N, " +
                    "flow=proto:src:sport-dst:dport or socket=ID");
            }
        }
        return new TraceSelector(sample, flow, socket);
    }

    private static int number(final String key, final String value)
    {
        try
        {
            return Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("trace " + key + " = '" + value + "' is not a whole number", ex);
        }
    }

    /** True if this selector traces anything. */
    public boolean active()
    {
        return sample > 0 || null != flow || ANY_SOCKET != socket;
    }

    /** One in how many matching packets: {@code sample}, or 1 when only a filter is set. */
    int every()
    {
        return Math.max(1, sample);
    }

    /** The filter part: the flow and the socket match (the sample is counted by the caller). */
    boolean matches(final FlowKey key, final int socketId)
    {
        return (ANY_SOCKET == socket || socket == socketId) && (null == flow || flow.matches(key));
    }

    @Override
    public String toString()
    {
        if (!active())
        {
            return "off";
        }
        final StringBuilder text = new StringBuilder();
        if (sample > 0)
        {
            text.append("sample=").append(sample);
        }
        if (null != flow)
        {
            text.append(text.isEmpty() ? "" : ",").append("flow=").append(flow);
        }
        if (ANY_SOCKET != socket)
        {
            text.append(text.isEmpty() ? "" : ",").append("socket=").append(socket);
        }
        return text.toString();
    }
}
