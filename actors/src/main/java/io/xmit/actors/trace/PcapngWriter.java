package io.xmit.actors.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a pcapng file (draft-ietf-opsawg-pcapng) block by block: one section header, interface descriptions, enhanced
 * packets and interface statistics, little-endian. Blocks are built whole in a buffer and written whole, so after each
 * {@link #flush} the file holds only complete blocks and a reader can open it while it grows.
 */
final class PcapngWriter implements AutoCloseable
{
    static final int SHB = 0x0A0D0D0A;
    static final int IDB = 1;
    static final int ISB = 5;
    static final int EPB = 6;
    static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    static final int LINKTYPE_ETHERNET = 1;

    static final int OPT_END = 0;
    static final int OPT_COMMENT = 1;
    static final int IF_NAME = 2;
    static final int IF_TSRESOL = 9;
    static final int EPB_FLAGS = 2;
    static final int EPB_PACKETID = 5;
    static final int EPB_QUEUE = 6;
    static final int ISB_STARTTIME = 2;
    static final int ISB_ENDTIME = 3;
    static final int ISB_IFRECV = 4;
    static final int ISB_IFDROP = 5;

    /** epb_flags direction bits (0–1). */
    static final int INBOUND = 1;
    static final int OUTBOUND = 2;

    private final FileChannel channel;
    private final ByteBuffer block = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer pending = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);

    PcapngWriter(final Path file) throws IOException
    {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
    }

    void sectionHeader(final String application) throws IOException
    {
        begin(SHB);
        block.putInt(BYTE_ORDER_MAGIC);
        block.putShort((short)1);
        block.putShort((short)0);
        block.putLong(-1L);
        stringOption(4, application);
        end();
    }

    /** An Ethernet interface with nanosecond timestamps. */
    void interfaceDescription(final String name, final int snapLength) throws IOException
    {
        begin(IDB);
        block.putShort((short)LINKTYPE_ETHERNET);
        block.putShort((short)0);
        block.putInt(snapLength);
        stringOption(IF_NAME, name);
        block.putShort((short)IF_TSRESOL).putShort((short)1).put((byte)9).put((byte)0).putShort((short)0);
        end();
    }

    void enhancedPacket(final int interfaceId, final long timeNs, final byte[] frame, final int originalLength,
        final int flags, final long packetId, final int queue, final String comment) throws IOException
    {
        begin(EPB);
        block.putInt(interfaceId);
        timestamp(timeNs);
        block.putInt(frame.length);
        block.putInt(Math.max(originalLength, frame.length));
        block.put(frame);
        pad(frame.length);
        block.putShort((short)EPB_FLAGS).putShort((short)4).putInt(flags);
        block.putShort((short)EPB_PACKETID).putShort((short)8).putLong(packetId);
        block.putShort((short)EPB_QUEUE).putShort((short)4).putInt(queue);
        stringOption(OPT_COMMENT, comment);
        end();
    }

    void interfaceStatistics(final int interfaceId, final long timeNs, final long startNs, final long received,
        final long dropped, final String comment) throws IOException
    {
        begin(ISB);
        block.putInt(interfaceId);
        timestamp(timeNs);
        block.putShort((short)ISB_STARTTIME).putShort((short)8);
        timestamp(startNs);
        block.putShort((short)ISB_ENDTIME).putShort((short)8);
        timestamp(timeNs);
        block.putShort((short)ISB_IFRECV).putShort((short)8).putLong(received);
        block.putShort((short)ISB_IFDROP).putShort((short)8).putLong(dropped);
        stringOption(OPT_COMMENT, comment);
        end();
    }

    /** Writes the complete blocks built so far. */
    void flush() throws IOException
    {
        pending.flip();
        while (pending.hasRemaining())
        {
            channel.write(pending);
        }
        pending.clear();
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            flush();
            channel.force(false);
        }
        finally
        {
            channel.close();
        }
    }

    private void begin(final int type)
    {
        block.clear();
        block.putInt(type);
        block.putInt(0);
    }

    private void end() throws IOException
    {
        block.putShort((short)OPT_END).putShort((short)0);
        final int length = block.position() + 4;
        block.putInt(length);
        block.putInt(4, length);
        block.flip();
        if (pending.remaining() < block.remaining())
        {
            flush();
        }
        pending.put(block);
    }

    private void timestamp(final long timeNs)
    {
        block.putInt((int)(timeNs >>> 32));
        block.putInt((int)timeNs);
    }

    private void stringOption(final int code, final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(bytes.length, 0xFFFF - 3);
        block.putShort((short)code).putShort((short)length);
        block.put(bytes, 0, length);
        pad(length);
    }

    private void pad(final int length)
    {
        for (int i = length; (i & 3) != 0; i++)
        {
            block.put((byte)0);
        }
    }
}
