package io.xmit.actors.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The pcapng blocks as the format draws them, read back by {@link PcapngReader} and by tshark. */
class PcapngWriterTest
{
    @TempDir
    Path dir;

    private static byte[] frame()
    {
        final byte[] frame = new byte[61];
        for (int i = 0; i < frame.length; i++)
        {
            frame[i] = (byte)i;
        }
        return frame;
    }

    /** A section with two interfaces, one packet and one interface statistics block. */
    private static Path write(final Path file) throws Exception
    {
        try (PcapngWriter writer = new PcapngWriter(file))
        {
            writer.sectionHeader("test");
            writer.interfaceDescription("loopA-rx0", 128);
            writer.interfaceDescription("loopA-tx1", 128);
            writer.enhancedPacket(1, 1_700_000_000_123_456_789L, frame(), 100, PcapngWriter.OUTBOUND, 42, 1,
                "dir=tx txq=1 via=hash");
            writer.interfaceStatistics(1, 1_700_000_001_000_000_000L, 1_700_000_000_000_000_000L, 1, 0,
                "trace_dropped=0");
        }
        return file;
    }

    @Test
    void blocksRoundTripThroughTheReader() throws Exception
    {
        final Path file = write(dir.resolve("blocks.pcapng"));
        final byte[] frame = frame();
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(PcapngWriter.SHB, bytes.getInt(0));
        final int shbLength = bytes.getInt(4);
        assertEquals(shbLength, bytes.getInt(shbLength - 4), "a block's length at both ends");
        assertEquals(0, bytes.capacity() % 4);

        final List<PcapngReader.Packet> packets = PcapngReader.read(file);
        assertEquals(1, packets.size());
        final PcapngReader.Packet packet = packets.getFirst();
        assertEquals("loopA-tx1", packet.iface());
        assertEquals(1_700_000_000_123_456_789L, packet.timeNs());
        assertArrayEquals(frame, packet.frame());
        assertEquals(100, packet.originalLength());
        assertEquals(2, packet.direction());
        assertEquals(42, packet.packetId());
        assertEquals(1, packet.queue());
        assertEquals("dir=tx txq=1 via=hash", packet.comment());
    }

    /** The blocks as another tool reads them: only this test needs tshark, and skips without it saying so. */
    @Test
    void blocksAreReadByTshark() throws Exception
    {
        Tshark.assumeInstalled();
        final Path file = write(dir.resolve("blocks.pcapng"));
        final Tshark.Result result = Tshark.run(file, "-T", "fields", "-E", "separator=|", "-e",
            "frame.interface_name", "-e", "frame.packet_id", "-e", "frame.interface_queue", "-e", "frame.len", "-e",
            "frame.cap_len", "-e", "frame.time_epoch", "-e", "frame.comment");
        assertEquals(List.of(), result.warnings());
        assertEquals(List.of("loopA-tx1|42|1|100|61|1700000000.123456789|dir=tx txq=1 via=hash"), result.out());
    }
}
