package io.xmit.pipeline.flow;

/**
 * SipHash-2-4 over any number of bytes, written straight from the paper (Aumasson and Bernstein, 2012): the
 * independent reference that the paper's vectors pin and that {@link SipHash24}'s fixed-word forms must agree with.
 */
final class SipHashReference
{
    private static final long INIT_V0 = 0x736f6d6570736575L;
    private static final long INIT_V1 = 0x646f72616e646f6dL;
    private static final long INIT_V2 = 0x6c7967656e657261L;
    private static final long INIT_V3 = 0x7465646279746573L;
    private static final int C_ROUNDS = 2;
    private static final int D_ROUNDS = 4;

    private SipHashReference()
    {
    }

    /**
     * SipHash-2-4 of {@code length} bytes of {@code data} from {@code offset}.
     */
    static long hash(final long k0, final long k1, final byte[] data, final int offset, final int length)
    {
        final State s = new State(k0, k1);
        final int whole = length & ~7;
        for (int i = 0; i < whole; i += 8)
        {
            s.compress(littleEndian(data, offset + i, 8));
        }
        s.compress(((long)length << 56) | littleEndian(data, offset + whole, length - whole));
        return s.finish();
    }

    private static long littleEndian(final byte[] data, final int offset, final int count)
    {
        long value = 0;
        for (int i = 0; i < count; i++)
        {
            value |= (data[offset + i] & 0xFFL) << (8 * i);
        }
        return value;
    }

    private static final class State
    {
        private long v0;
        private long v1;
        private long v2;
        private long v3;

        State(final long k0, final long k1)
        {
            v0 = k0 ^ INIT_V0;
            v1 = k1 ^ INIT_V1;
            v2 = k0 ^ INIT_V2;
            v3 = k1 ^ INIT_V3;
        }

        void compress(final long m)
        {
            v3 ^= m;
            for (int r = 0; r < C_ROUNDS; r++)
            {
                sipRound();
            }
            v0 ^= m;
        }

        long finish()
        {
            v2 ^= 0xFF;
            for (int r = 0; r < D_ROUNDS; r++)
            {
                sipRound();
            }
            return v0 ^ v1 ^ v2 ^ v3;
        }

        private void sipRound()
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
    }
}
