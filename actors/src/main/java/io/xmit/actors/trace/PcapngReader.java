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
 * Blocks of other types are skipped; a block cut short at the end (a file still being written) ends the reading;
 * any other damage is an {@link IOException} naming the file and the block.
 */
public final class PcapngReader
{
    private static final int MIN_BLOCK_LENGTH = 12;
    /** Type, length, link type and reserved, snap length, length again. */
    private static final int IDB_MIN_LENGTH = 20;
    /** Type, length, interface, 2 timestamp halves, captured and original lengths, length again. */
    private static final int EPB_MIN_LENGTH = 32;

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
        return read(Files.readAllBytes(file), file.toString());
    }

    /**
     * Reads the packets of a pcapng file's bytes.
     *
     * @param name what the bytes are called in messages (the file's path).
     * @throws IOException naming the block at fault if the bytes are not a little-endian pcapng file.
     */
    static List<Packet> read(final byte[] bytes, final String name) throws IOException
    {
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
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
                throw new IOException(name + " is not a little-endian pcapng file");
            }
            first = false;
            if (length < MIN_BLOCK_LENGTH || (length & 3) != 0)
            {
                throw malformed(name, start, "length " + length + " is not a multiple of 4 of at least 12");
            }
            if (length > in.remaining())
            {
                // Cut short at the end: a file still being written.
                break;
            }
            if (in.getInt(start + length - 4) != length)
            {
                throw malformed(name, start, "its lengths differ (" + length + " at the start, " +
                    in.getInt(start + length - 4) + " at the end)");
            }
            switch (type)
            {
                case PcapngWriter.SHB ->
                {
                    if (PcapngWriter.BYTE_ORDER_MAGIC != in.getInt(start + 8))
                    {
                        throw malformed(name, start, "a section that is not little-endian");
                    }
                    names.clear();
                    units.clear();
                }
                case PcapngWriter.IDB -> interfaceDescription(in, start, length, names, units, name);
                case PcapngWriter.EPB -> packets.add(enhancedPacket(in, start, length, names, units, name));
                default ->
                {
                }
            }
            in.position(start + length);
        }
        return packets;
    }

    private static IOException malformed(final String name, final int start, final String what)
    {
        return new IOException(name + ": the block at offset " + start + " is malformed: " + what);
    }

    /**
     * The option at {@code at} of the block at {@code start}: its code, or {@link PcapngWriter#OPT_END} where the
     * options end (also at the block's end without an end-of-options).
     *
     * @throws IOException if the option's value runs past the block.
     */
    private static int optionCode(final ByteBuffer in, final int at, final int start, final int length,
        final String name) throws IOException
    {
        final int end = start + length - 4;
        if (at + 4 > end)
        {
            return PcapngWriter.OPT_END;
        }
        final int code = in.getShort(at) & 0xFFFF;
        if (PcapngWriter.OPT_END != code && at + 4 + (in.getShort(at + 2) & 0xFFFF) > end)
        {
            throw malformed(name, start, "option " + code + " at offset " + at + " runs past the block");
        }
        return code;
    }

    private static void interfaceDescription(final ByteBuffer in, final int start, final int length,
        final List<String> names, final List<Long> units, final String file) throws IOException
    {
        if (length < IDB_MIN_LENGTH)
        {
            throw malformed(file, start, "an interface description of " + length + " bytes");
        }
        String name = "if" + names.size();
        long unitNs = 1000;
        int at = start + 16;
        while (true)
        {
            final int code = optionCode(in, at, start, length, file);
            if (PcapngWriter.OPT_END == code)
            {
                break;
            }
            final int size = in.getShort(at + 2) & 0xFFFF;
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
        final List<String> names, final List<Long> units, final String file) throws IOException
    {
        if (length < EPB_MIN_LENGTH)
        {
            throw malformed(file, start, "an enhanced packet of " + length + " bytes");
        }
        final int iface = in.getInt(start + 8);
        final long ticks = ((in.getInt(start + 12) & 0xFFFF_FFFFL) << 32) | (in.getInt(start + 16) & 0xFFFF_FFFFL);
        final int captured = in.getInt(start + 20);
        final int original = in.getInt(start + 24);
        if (captured < 0 || captured > length - EPB_MIN_LENGTH)
        {
            throw malformed(file, start, "its " + captured + " captured bytes do not fit its " + length);
        }
        final byte[] frame = new byte[captured];
        in.get(start + 28, frame);
        int direction = 0;
        long packetId = 0;
        int queue = -1;
        String comment = "";
        int at = start + 28 + ((captured + 3) & ~3);
        while (true)
        {
            final int code = optionCode(in, at, start, length, file);
            if (PcapngWriter.OPT_END == code)
            {
                break;
            }
            final int size = in.getShort(at + 2) & 0xFFFF;
            switch (code)
            {
                case PcapngWriter.OPT_COMMENT -> comment = string(in, at + 4, size);
                case PcapngWriter.EPB_FLAGS -> direction = size >= 4 ? in.getInt(at + 4) & 3 : direction;
                case PcapngWriter.EPB_PACKETID -> packetId = size >= 8 ? in.getLong(at + 4) : packetId;
                case PcapngWriter.EPB_QUEUE -> queue = size >= 4 ? in.getInt(at + 4) : queue;
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
