package io.xmit.actors.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Trace files as the tests read them: with the project's own {@link PcapngReader}, so the checks need nothing
 * installed, and, where tshark is, through tshark too, as a check that other tools read the format the same way.
 */
final class TraceFiles
{
    private static final Pattern KEY_VALUE = Pattern.compile("(\\w+)=(\\S+)");

    /** One packet of a file: interface, id, queue, direction (1 in, 2 out), comment and the comment's words. */
    record Packet(String iface, long id, int queue, int direction, String comment, Map<String, String> keys)
    {
        int ifaceQueue()
        {
            return Integer.parseInt(iface.substring(iface.length() - 1));
        }
    }

    private TraceFiles()
    {
    }

    /** The packets of {@code file} as {@link PcapngReader} reads them, each comment split into key=value words. */
    static List<Packet> packets(final Path file) throws IOException
    {
        final List<Packet> packets = new ArrayList<>();
        for (final PcapngReader.Packet packet : PcapngReader.read(file))
        {
            final Map<String, String> keys = new HashMap<>();
            final Matcher m = KEY_VALUE.matcher(packet.comment());
            while (m.find())
            {
                keys.put(m.group(1), m.group(2));
            }
            packets.add(new Packet(packet.iface(), packet.packetId(), packet.queue(), packet.direction(),
                packet.comment(), keys));
        }
        return packets;
    }

    /**
     * That {@code file}, closed, is whole blocks end to end, each with its length at both ends: the reader stops
     * quietly at a block cut short (a file still being written), so a closed file is checked for that separately.
     */
    static void assertWholeBlocks(final Path file) throws IOException
    {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertTrue(bytes.limit() >= 12, file + " holds " + bytes.limit() + " bytes, less than a section header");
        int at = 0;
        while (at < bytes.limit())
        {
            assertTrue(bytes.limit() - at >= 12, file + ": " + (bytes.limit() - at) + " bytes left at offset " + at);
            final int length = bytes.getInt(at + 4);
            assertTrue(length >= 12 && (length & 3) == 0 && length <= bytes.limit() - at,
                file + ": the block at offset " + at + " has length " + length + " of " + (bytes.limit() - at) +
                    " bytes left");
            assertEquals(length, bytes.getInt(at + length - 4), file + ": the lengths of the block at offset " + at);
            at += length;
        }
    }

    /**
     * That tshark reads {@code file} without a warning as {@link PcapngReader} does: the same packets in the same
     * order, with the same interface, packet id, queue, direction and comment. Run after {@link Tshark#assumeInstalled}.
     */
    static void assertTsharkReadsAsTheReaderDoes(final Path file) throws Exception
    {
        final Tshark.Result result = Tshark.run(file, "-T", "fields", "-E", "separator=|", "-e",
            "frame.interface_name", "-e", "frame.packet_id", "-e", "frame.interface_queue", "-e",
            "frame.packet_flags_direction", "-e", "frame.comment");
        assertEquals(0, result.exit(), "tshark exit on " + file);
        assertEquals(List.of(), result.warnings(), "tshark warnings on " + file);
        final List<String> expected = new ArrayList<>();
        for (final Packet packet : packets(file))
        {
            expected.add(String.format("%s|%d|%d|0x%08x|%s", packet.iface(), packet.id(), packet.queue(),
                packet.direction(), packet.comment()));
        }
        assertEquals(expected, result.out(), "tshark and PcapngReader on " + file);
    }
}
