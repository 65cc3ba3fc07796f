package io.xmit.pipeline.frame;

import java.util.HexFormat;

import org.agrona.concurrent.UnsafeBuffer;

/** Hand-built frames as hex, placed at the end of a buffer exactly as long as offset + frame length. */
final class HexFrames
{
    /** Where a hand-built frame starts; the bytes before it are garbage. */
    static final int BASE = 5;

    private HexFrames()
    {
    }

    static byte[] hex(final String text)
    {
        return HexFormat.of().parseHex(text.replaceAll("\\s+", ""));
    }

    /** The frame at {@link #BASE} in a buffer with no byte after it, so an over-read throws. */
    static UnsafeBuffer atEnd(final byte[] frame)
    {
        final byte[] bytes = new byte[BASE + frame.length];
        for (int i = 0; i < BASE; i++)
        {
            bytes[i] = (byte)0xA5;
        }
        System.arraycopy(frame, 0, bytes, BASE, frame.length);
        return new UnsafeBuffer(bytes);
    }

    static String zeros(final int count)
    {
        return "00".repeat(count);
    }
}
