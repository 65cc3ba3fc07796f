package io.xmit.pipeline.frame;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * The internet checksum (RFC 1071): the 16-bit ones' complement of the ones' complement sum of 16-bit words.
 * <p>
 * A sum is kept unfolded in a {@code long} and folded once at the end. Because 2^16 = 1 modulo 0xFFFF, adding
 * 32-bit words and folding gives the same result as adding the 16-bit halves, so {@link #sum} reads 8 bytes at
 * a time and adds both 32-bit halves. Partial sums can be chained through {@code initial} provided each region
 * starts at an even position of the checksummed data (true for pseudo-header + header + payload).
 */
public final class Checksums
{
    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    private Checksums()
    {
    }

    /**
     * Adds {@code length} bytes at {@code offset}, as big-endian 16-bit words (an odd last byte is padded with
     * a zero byte), to {@code initial}. The result stays unfolded; it cannot overflow for any int length when
     * {@code initial} is below 2^62.
     */
    public static long sum(final DirectBuffer buffer, final int offset, final int length, final long initial)
    {
        long sum = initial;
        int index = offset;
        final int end = offset + length;
        final int wordsEnd = end - 7;
        while (index < wordsEnd)
        {
            final long word = buffer.getLong(index, NETWORK);
            sum += (word >>> 32) + (word & 0xFFFF_FFFFL);
            index += 8;
        }
        if (end - index >= 4)
        {
            sum += buffer.getInt(index, NETWORK) & 0xFFFF_FFFFL;
            index += 4;
        }
        if (end - index >= 2)
        {
            sum += buffer.getShort(index, NETWORK) & 0xFFFF;
            index += 2;
        }
        if (index < end)
        {
            sum += (buffer.getByte(index) & 0xFF) << 8;
        }
        return sum;
    }

    /** Folds an unfolded sum to 16 bits with end-around carry (not complemented). */
    public static int fold(final long sum)
    {
        long folded = (sum & 0xFFFF_FFFFL) + (sum >>> 32);
        folded = (folded & 0xFFFF_FFFFL) + (folded >>> 32);
        folded = (folded & 0xFFFF) + (folded >>> 16);
        folded = (folded & 0xFFFF) + (folded >>> 16);
        return (int)folded;
    }

    /** The checksum to put on the wire for an unfolded sum: the complement of its fold. */
    public static int complement(final long sum)
    {
        return ~fold(sum) & 0xFFFF;
    }

    /** The internet checksum of {@code length} bytes at {@code offset}; 0 when verifying data that carries one. */
    public static int checksum(final DirectBuffer buffer, final int offset, final int length)
    {
        return complement(sum(buffer, offset, length, 0));
    }

    /** The unfolded sum of the IPv4 pseudo-header (RFC 768): addresses, protocol, L4 length. */
    public static long ipv4PseudoHeaderSum(
        final int source, final int destination, final int protocol, final int length)
    {
        return (source & 0xFFFF_FFFFL) + (destination & 0xFFFF_FFFFL) + (protocol & 0xFF) + (length & 0xFFFF);
    }

    /** The unfolded sum of the IPv6 pseudo-header (RFC 8200 §8.1): addresses, 32-bit L4 length, next header. */
    public static long ipv6PseudoHeaderSum(
        final long sourceHi,
        final long sourceLo,
        final long destinationHi,
        final long destinationLo,
        final int nextHeader,
        final int length)
    {
        return halves(sourceHi) + halves(sourceLo) + halves(destinationHi) + halves(destinationLo) +
            (nextHeader & 0xFF) + (length & 0xFFFF_FFFFL);
    }

    private static long halves(final long value)
    {
        return (value >>> 32) + (value & 0xFFFF_FFFFL);
    }
}
