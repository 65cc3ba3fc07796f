package io.xmit.pipeline.host;

import java.util.ArrayList;
import java.util.List;

import io.xmit.pipeline.frame.EthernetFlyweight;
import org.agrona.DirectBuffer;

/** Records what a {@link NeighbourTable} asked for, as readable lines, for exact assertions. */
final class RecordingHandler implements NeighbourHandler
{
    final List<String> events = new ArrayList<>();
    final List<byte[]> transmitted = new ArrayList<>();
    /** The next transmit is recorded, then throws (a failing owner). */
    boolean failNextTransmit;

    @Override
    public void transmit(final DirectBuffer buffer, final int offset, final int length, final long tag)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        transmitted.add(copy);
        events.add("transmit " + tag + " to " + Long.toHexString(EthernetFlyweight.getMac(buffer, offset)));
        if (failNextTransmit)
        {
            failNextTransmit = false;
            throw new IllegalStateException("the owner failed to transmit " + tag);
        }
    }

    @Override
    public void dropped(final long tag, final NeighbourDrop reason)
    {
        events.add("dropped " + tag + " " + reason.counterName());
    }

    @Override
    public void solicit(final int ip, final long destinationMac)
    {
        events.add("solicit " + ip(ip) + " to " + Long.toHexString(destinationMac));
    }

    @Override
    public void failed(final int ip)
    {
        events.add("failed " + ip(ip));
    }

    List<String> take()
    {
        final List<String> taken = List.copyOf(events);
        events.clear();
        return taken;
    }

    static String ip(final int ip)
    {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }
}
