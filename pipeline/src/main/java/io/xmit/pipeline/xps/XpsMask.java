package io.xmit.pipeline.xps;

import java.util.Arrays;

/**
 * An immutable bitmask of {@code nbits} bits in the sysfs {@code xps_cpus} / {@code xps_rxqs} hex form
 * (kernel-semantics §2.5): comma-separated 32-bit words, most significant first.
 * <p>
 * Parsing follows the kernel's {@code bitmap_parse}: each word holds 1 to 8 hex digits (leading zeros
 * optional, either case), a single word such as {@code f} is fine, one trailing newline (as {@code echo}
 * writes) is ignored, at most {@code ceil(nbits / 32)} words, no set bit at or beyond {@code nbits}. It is
 * stricter in two ways: an empty word ({@code 3,,4}) or empty text is rejected, where the kernel skips
 * repeated commas and whitespace and reads empty text as zero; write {@code 0} to clear.
 * <p>
 * Printing follows the kernel's {@code %*pb} ({@code bitmap_string}), which is what reading the sysfs file
 * shows, without its trailing newline: {@code ceil(nbits / 4)} lower-case hex digits in 32-bit groups, most
 * significant first. Every group has 8 digits except the first, which has {@code ceil((nbits mod 32) / 4)}
 * (8 when {@code nbits} is a multiple of 32): 4 bits print as {@code f}, 6 as {@code 03}, 40 as
 * {@code 00,00000003}, 64 as {@code 00000000,00000003}.
 */
public final class XpsMask
{
    private static final int WORD_BITS = 32;
    private static final int WORD_DIGITS = 8;

    private final int nbits;
    private final long[] bits;

    private XpsMask(final int nbits, final long[] bits)
    {
        this.nbits = nbits;
        this.bits = bits;
    }

    /**
     * An empty mask of {@code nbits} bits.
     *
     * @throws IllegalArgumentException if {@code nbits < 1}.
     */
    public static XpsMask empty(final int nbits)
    {
        checkNbits(nbits);
        return new XpsMask(nbits, new long[(nbits + 63) >>> 6]);
    }

    /**
     * A mask of {@code nbits} bits with the given bits set.
     *
     * @throws IllegalArgumentException if {@code nbits < 1} or a bit is outside {@code [0, nbits)}.
     */
    public static XpsMask of(final int nbits, final int... setBits)
    {
        checkNbits(nbits);
        final long[] words = new long[(nbits + 63) >>> 6];
        for (final int bit : setBits)
        {
            if (bit < 0 || bit >= nbits)
            {
                throw new IllegalArgumentException("bit " + bit + " is outside a mask of " + nbits + " bits (0.." +
                    (nbits - 1) + ")");
            }
            words[bit >>> 6] |= 1L << bit;
        }
        return new XpsMask(nbits, words);
    }

    /**
     * Parses an {@code xps_cpus} mask for TX queue {@code txq} of a device with {@code numCpus} CPUs.
     */
    public static XpsMask parseCpus(final String text, final int numCpus, final int txq)
    {
        return parse(text, numCpus, "xps_cpus", "tx-" + txq, "CPUs");
    }

    /**
     * Parses an {@code xps_rxqs} mask for TX queue {@code txq} of a device with {@code numRxQueues} RX queues.
     */
    public static XpsMask parseRxqs(final String text, final int numRxQueues, final int txq)
    {
        return parse(text, numRxQueues, "xps_rxqs", "tx-" + txq, "RX queues");
    }

    /**
     * Parses the sysfs hex form.
     *
     * @param text      the mask, e.g. {@code 00000000,00000003} or {@code 3}.
     * @param nbits     the number of ids the mask covers, {@code >= 1}.
     * @param attribute the attribute it is written to, for messages, e.g. {@code xps_cpus}.
     * @param owner     what it is written for, for messages, e.g. {@code tx-3}.
     * @param unit      what the ids are, for messages, e.g. {@code CPUs}.
     * @throws IllegalArgumentException naming the mask, its owner and the limit it breaks.
     */
    public static XpsMask parse(
        final String text, final int nbits, final String attribute, final String owner, final String unit)
    {
        checkNbits(nbits);
        if (null == text)
        {
            throw new IllegalArgumentException(attribute + " mask for " + owner + " is missing (null)");
        }
        final String prefix = attribute + " mask '" + text + "' for " + owner + ": ";
        final String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (body.isEmpty())
        {
            throw new IllegalArgumentException(prefix + "is empty; write 0 to clear it");
        }

        final String[] groups = body.split(",", -1);
        final int[] values = new int[groups.length];
        for (int i = 0; i < groups.length; i++)
        {
            values[groups.length - 1 - i] = parseWord(prefix, groups[i], i + 1);
        }

        int highest = -1;
        for (int w = values.length - 1; w >= 0 && highest < 0; w--)
        {
            if (values[w] != 0)
            {
                highest = w * WORD_BITS + (WORD_BITS - 1 - Integer.numberOfLeadingZeros(values[w]));
            }
        }
        if (highest >= nbits)
        {
            throw new IllegalArgumentException(prefix + "bit " + highest + " is beyond " + nbits + " " + unit);
        }
        final int maxWords = (nbits + WORD_BITS - 1) / WORD_BITS;
        if (values.length > maxWords)
        {
            throw new IllegalArgumentException(prefix + "has " + values.length + " words; " + nbits + " " + unit +
                " take at most " + maxWords);
        }

        final long[] words = new long[(nbits + 63) >>> 6];
        for (int w = 0; w < values.length; w++)
        {
            words[w >>> 1] |= (values[w] & 0xFFFF_FFFFL) << ((w & 1) * WORD_BITS);
        }
        return new XpsMask(nbits, words);
    }

    private static int parseWord(final String prefix, final String group, final int position)
    {
        if (group.isEmpty())
        {
            throw new IllegalArgumentException(prefix + "word " + position + " is empty");
        }
        if (group.length() > WORD_DIGITS)
        {
            throw new IllegalArgumentException(
                prefix + "word '" + group + "' has more than " + WORD_DIGITS + " hex digits (32 bits)");
        }
        int value = 0;
        for (int i = 0; i < group.length(); i++)
        {
            final int digit = hexDigit(group.charAt(i));
            if (digit < 0)
            {
                throw new IllegalArgumentException(
                    prefix + "'" + group.charAt(i) + "' in word '" + group + "' is not a hex digit");
            }
            value = (value << 4) | digit;
        }
        return value;
    }

    private static int hexDigit(final char c)
    {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f')
        {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F')
        {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static void checkNbits(final int nbits)
    {
        if (nbits < 1)
        {
            throw new IllegalArgumentException("mask size " + nbits + " bits: must be at least 1");
        }
    }

    public int nbits()
    {
        return nbits;
    }

    /**
     * @return whether {@code bit} is set; false outside {@code [0, nbits)}.
     */
    public boolean get(final int bit)
    {
        return bit >= 0 && bit < nbits && (bits[bit >>> 6] & (1L << bit)) != 0;
    }

    /**
     * @return the lowest set bit {@code >= from}, or -1 if there is none.
     */
    public int nextSetBit(final int from)
    {
        int w = Math.max(from, 0) >>> 6;
        if (w >= bits.length)
        {
            return -1;
        }
        long word = bits[w] & (-1L << Math.max(from, 0));
        while (word == 0)
        {
            if (++w == bits.length)
            {
                return -1;
            }
            word = bits[w];
        }
        return (w << 6) + Long.numberOfTrailingZeros(word);
    }

    public int cardinality()
    {
        int count = 0;
        for (final long word : bits)
        {
            count += Long.bitCount(word);
        }
        return count;
    }

    public boolean isEmpty()
    {
        for (final long word : bits)
        {
            if (word != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The kernel's {@code %*pb} form of this mask (see the class comment).
     */
    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        final int firstBits = nbits % WORD_BITS == 0 ? WORD_BITS : nbits % WORD_BITS;
        int digits = (firstBits + 3) / 4;
        for (int w = (nbits - 1) / WORD_BITS; w >= 0; w--)
        {
            final int value = (int)(bits[w >>> 1] >>> ((w & 1) * WORD_BITS));
            final String hex = Integer.toHexString(value);
            if (out.length() > 0)
            {
                out.append(',');
            }
            out.repeat('0', Math.max(digits - hex.length(), 0)).append(hex);
            digits = WORD_DIGITS;
        }
        return out.toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof XpsMask m && nbits == m.nbits && Arrays.equals(bits, m.bits);
    }

    @Override
    public int hashCode()
    {
        return 31 * nbits + Arrays.hashCode(bits);
    }
}
