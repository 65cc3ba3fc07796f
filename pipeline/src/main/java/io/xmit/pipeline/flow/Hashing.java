package io.xmit.pipeline.flow;

/**
 * Hash-to-index arithmetic shared by the TX hash fallback and XPS entries.
 */
public final class Hashing
{
    private Hashing()
    {
    }

    /**
     * Maps a 32-bit hash onto {@code [0, n)} by the top bits of the 64-bit product, as the kernel's
     * {@code reciprocal_scale}: no division, and every hash bit counts (kernel-semantics §3.3).
     *
     * @param v the hash, read as unsigned.
     * @param n the range, {@code >= 0}; 0 yields 0.
     * @return a value in {@code [0, n)}.
     */
    public static int reciprocalScale(final int v, final int n)
    {
        return (int)(((v & 0xFFFF_FFFFL) * n) >>> 32);
    }
}
