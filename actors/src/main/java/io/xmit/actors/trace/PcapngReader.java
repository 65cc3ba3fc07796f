package io.xmit.actors.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the packets of a pcapng file as xmit's trace writer writes them (little-endian sections; interface names and
 * timestamp resolutions; enhanced packets with their flags, packet id, queue and comment), for {@code xmit trace show}.
 * Blocks of other types are skipped; a block cut short at the end (a file still being written) ends the reading.
 */
public final class PcapngReader
{
    /** One enhanced packet block. {@code timeNs} is nanoseconds since the epoch; {@code direction} 1 in, 2 out. */
    public record Packet(String iface, long timeNs, int originalLength, byte[] frame, int direction, long packetId,
        int queue, String comment)
    {
    }

    private PcapngReader()
    {
    }

    /**
     * @throws IOException if the file cannot be read or is not a little-endian pcapng file.
     */
    public static List<Packet> read(final Path file) throws IOException
    {
        final ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final List<String> names = new ArrayList<>();
        final List<Long> units = new ArrayList<>();
        final List<Packet> packets = new ArrayList<>();
        boolean first = true;
        while (in.remaining() >= 12)
        {
            final int start = in.position();
            final int type = in.getInt(start);
            final int length = in.getInt(start + 4);
            if (first && (PcapngWriter.SHB != type || PcapngWriter.BYTE_ORDER_MAGIC != in.getInt(start + 8)))
            {
                throw new IOException(file + " is not a little-endian pcapng file");
            }
            first = false;
            if (length < 12 || (length & 3) != 0 || length > in.remaining())
            {
                break;
            }
            switch (type)
            {
                case PcapngWriter.SHB ->
                {
                    names.clear();
                    units.clear();
                }
                case PcapngWriter.IDB -> interfaceDescription(in, start, length, names, units);
                case PcapngWriter.EPB -> packets.add(enhancedPacket(in, start, length, names, units));
                default ->
                {
                }
            }
            in.position(start + length);
        }
        return packets;
    }

    private static void interfaceDescription(final ByteBuffer in, final int start, final int length,
        final List<String> names, final List<Long> units)
    {
        String name = "if" + names.size();
        long unitNs = 1000;
        int at = start + 16;
        while (at + 4 <= start + length - 4)
        {
            final int code = in.getShort(at) & 0xFFFF;
            final int size = in.getShort(at + 2) & 0xFFFF;
            if (PcapngWriter.OPT_END == code)
            {
                break;
            }
            if (PcapngWriter.IF_NAME == code)
            {
                name = string(in, at + 4, size);
            }
            else if (PcapngWriter.IF_TSRESOL == code && size >= 1)
            {
                unitNs = unitNanos(in.get(at + 4));
            }
            at += 4 + ((size + 3) & ~3);
        }
        names.add(name);
        units.add(unitNs);
    }

    /** Nanoseconds per timestamp unit; 0 for a resolution this reader leaves alone (binary, or finer than 1 ns). */
    private static long unitNanos(final byte resolution)
    {
        final int exponent = resolution & 0x7F;
        if ((resolution & 0x80) != 0 || exponent > 9)
        {
            return 0;
        }
        long unit = 1;
        for (int i = exponent; i < 9; i++)
        {
            unit *= 10;
        }
        return unit;
    }

    private static Packet enhancedPacket(final ByteBuffer in, final int start, final int length,
        final List<String> names, final List<Long> units)
    {
        final int iface = in.getInt(start + 8);
        final long ticks = ((in.getInt(start + 12) & 0xFFFF_FFFFL) << 32) | (in.getInt(start + 16) & 0xFFFF_FFFFL);
        final int captured = in.getInt(start + 20);
        final int original = in.getInt(start + 24);
        final byte[] frame = new byte[captured];
        in.get(start + 28, frame);
        int direction = 0;
        long packetId = 0;
        int queue = -1;
        String comment = "";
        int at = start + 28 + ((captured + 3) & ~3);
        while (at + 4 <= start + length - 4)
        {
            final int code = in.getShort(at) & 0xFFFF;
            final int size = in.getShort(at + 2) & 0xFFFF;
            if (PcapngWriter.OPT_END == code)
            {
                break;
            }
            switch (code)
            {
                case PcapngWriter.OPT_COMMENT -> comment = string(in, at + 4, size);
                case PcapngWriter.EPB_FLAGS -> direction = in.getInt(at + 4) & 3;
                case PcapngWriter.EPB_PACKETID -> packetId = in.getLong(at + 4);
                case PcapngWriter.EPB_QUEUE -> queue = in.getInt(at + 4);
                default ->
                {
                }
            }
            at += 4 + ((size + 3) & ~3);
        }
        final boolean known = iface >= 0 && iface < names.size();
        final long unit = known ? units.get(iface) : 1000;
        return new Packet(known ? names.get(iface) : "if" + iface, 0 == unit ? ticks : ticks * unit, original, frame,
            direction, packetId, queue, comment);
    }

    private static String string(final ByteBuffer in, final int at, final int size)
    {
        final byte[] bytes = new byte[size];
        in.get(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
