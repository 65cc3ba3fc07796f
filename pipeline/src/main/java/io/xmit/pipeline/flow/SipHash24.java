package io.xmit.pipeline.flow;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012) with a 128-bit key given as two little-endian 64-bit halves:
 * key bytes {@code 00 01 .. 0f} are {@code k0 = 0x0706050403020100L, k1 = 0x0f0e0d0c0b0a0908L}.
 * <p>
 * Fixed-word forms for the flow hash: the message is given as 64-bit words (each the little-endian reading of 8
 * message bytes) and nothing is allocated. The tests pin them against the paper's vectors and against a
 * byte-oriented reference written straight from the paper ({@code SipHashReference}, test code).
 */
public final class SipHash24
{
    private static final long INIT_V0 = 0x736f6d6570736575L;
    private static final long INIT_V1 = 0x646f72616e646f6dL;
    private static final long INIT_V2 = 0x6c7967656e657261L;
    private static final long INIT_V3 = 0x7465646279746573L;
    private static final int C_ROUNDS = 2;
    private static final int D_ROUNDS = 4;

    private SipHash24()
    {
    }

    /**
     * SipHash-2-4 of a 16-byte message given as two words.
     */
    public static long hash(final long k0, final long k1, final long m0, final long m1)
    {
        return hashWords(k0, k1, 2, m0, m1, 0, 0, 0);
    }

    /**
     * SipHash-2-4 of a 40-byte message given as five words.
     */
    public static long hash(
        final long k0, final long k1, final long m0, final long m1, final long m2, final long m3, final long m4)
    {
        return hashWords(k0, k1, 5, m0, m1, m2, m3, m4);
    }

    /*
     * The fixed-word form keeps the four state words in locals so nothing escapes. One loop walks the blocks:
     * the message words, then the length block (lengths are whole words, so it carries only the byte count),
     * then the finalisation pass, which XORs 0xff into v2 instead of a block into v3 and runs D_ROUNDS.
     */
    private static long hashWords(
        final long k0,
        final long k1,
        final int count,
        final long m0,
        final long m1,
        final long m2,
        final long m3,
        final long m4)
    {
        long v0 = k0 ^ INIT_V0;
        long v1 = k1 ^ INIT_V1;
        long v2 = k0 ^ INIT_V2;
        long v3 = k1 ^ INIT_V3;

        final int finalisation = count + 1;
        for (int block = 0; block <= finalisation; block++)
        {
            final long m = switch (block - count)
            {
                case 0 -> (long)(count * 8) << 56;
                case 1 -> 0;
                default -> switch (block)
                {
                    case 0 -> m0;
                    case 1 -> m1;
                    case 2 -> m2;
                    case 3 -> m3;
                    default -> m4;
                };
            };
            final int rounds;
            if (block == finalisation)
            {
                v2 ^= 0xFF;
                rounds = D_ROUNDS;
            }
            else
            {
                v3 ^= m;
                rounds = C_ROUNDS;
            }
            for (int r = 0; r < rounds; r++)
            {
                v0 += v1;
                v1 = Long.rotateLeft(v1, 13);
                v1 ^= v0;
                v0 = Long.rotateLeft(v0, 32);
                v2 += v3;
                v3 = Long.rotateLeft(v3, 16);
                v3 ^= v2;
                v0 += v3;
                v3 = Long.rotateLeft(v3, 21);
                v3 ^= v0;
                v2 += v1;
                v1 = Long.rotateLeft(v1, 17);
                v1 ^= v2;
                v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
