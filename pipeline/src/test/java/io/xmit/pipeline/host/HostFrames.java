package io.xmit.pipeline.host;

import java.util.HexFormat;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/** Fixtures for the host tests: hex frames placed at the very end of a buffer, and a reference checksum. */
final class HostFrames
{
    /** Where a fixture frame starts; the bytes before it are garbage. */
    static final int BASE = 3;

    /** 02:00:00:00:00:01, 10.0.0.1: port 0 of a default pipeline. */
    static final long OUR_MAC = 0x0200_0000_0001L;
    static final int OUR_IP = 0x0A00_0001;
    /** 02:00:00:00:00:02, 10.0.0.2: the kernel peer. */
    static final long PEER_MAC = 0x0200_0000_0002L;
    static final int PEER_IP = 0x0A00_0002;

    /**
     * A Linux ping request from the peer to us (id 0x1c46, seq 1, 16-byte timeval and 0x10..0x37), checksums
     * computed by an independent Python script.
     */
    static final String PING_REQUEST =
        "020000000001 020000000002 0800" +
        "4500 0054 4ba1 4000 4001 db05 0a000002 0a000001" +
        "0800 4009 1c46 0001" +
        "f1a2b36500000000 2bd40c0000000000" +
        "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637";
    /** Our reply to it: identification 0, DF clear, TTL 64, type 0, checksums from the same script. */
    static final String PING_REPLY =
        "020000000002 020000000001 0800" +
        "4500 0054 0000 0000 4001 66a7 0a000001 0a000002" +
        "0000 4809 1c46 0001" +
        "f1a2b36500000000 2bd40c0000000000" +
        "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637";
    /** UDP from 10.0.0.2:40000 to 10.0.0.1:9999, TOS 0x10, payload "hello xmit", valid UDP checksum. */
    static final String UDP_TO_CLOSED_PORT =
        "020000000001 020000000002 0800" +
        "4510 0026 1234 4000 4011 1481 0a000002 0a000001" +
        "9c40 270f 0012 02a4" +
        "68656c6c6f20786d6974";
    /** The port unreachable for it: TOS 0xd0 (precedence 6, TOS bits kept), the whole datagram quoted. */
    static final String PORT_UNREACHABLE =
        "020000000002 020000000001 0800" +
        "45d0 0042 0000 0000 4001 65e9 0a000001 0a000002" +
        "0303 1123 00000000" +
        "4510 0026 1234 4000 4011 1481 0a000002 0a000001" +
        "9c40 270f 0012 02a4" +
        "68656c6c6f20786d6974";
    /** Who has 10.0.0.1? Tell 10.0.0.2 (broadcast). */
    static final String ARP_REQUEST =
        "ffffffffffff 020000000002 0806" +
        "0001 0800 06 04 0001 020000000002 0a000002 000000000000 0a000001";
    /** 10.0.0.1 is at 02:00:00:00:00:01, to the requester. */
    static final String ARP_REPLY =
        "020000000002 020000000001 0806" +
        "0001 0800 06 04 0002 020000000001 0a000001 020000000002 0a000002";

    private HostFrames()
    {
    }

    static byte[] hex(final String text)
    {
        return HexFormat.of().parseHex(text.replaceAll("\\s+", ""));
    }

    static String hex(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** The frame at {@link #BASE} in a buffer with no byte after it, so an over-read throws. */
    static UnsafeBuffer atEnd(final byte[] frame)
    {
        final byte[] bytes = new byte[BASE + frame.length];
        for (int i = 0; i < BASE; i++)
        {
            bytes[i] = (byte)0x5A;
        }
        System.arraycopy(frame, 0, bytes, BASE, frame.length);
        return new UnsafeBuffer(bytes);
    }

    static UnsafeBuffer atEnd(final String hexFrame)
    {
        return atEnd(hex(hexFrame));
    }

    /**
     * RFC 1071 done the plain way, independent of {@code Checksums}: add 16-bit big-endian words (an odd last
     * byte padded with zero) with end-around carry; 0xFFFF means the region, checksum included, verifies.
     */
    static int onesComplementSum(final DirectBuffer buffer, final int offset, final int length)
    {
        int sum = 0;
        for (int i = 0; i < length; i += 2)
        {
            final int high = buffer.getByte(offset + i) & 0xFF;
            final int low = i + 1 < length ? buffer.getByte(offset + i + 1) & 0xFF : 0;
            sum += (high << 8) | low;
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum;
    }
}
