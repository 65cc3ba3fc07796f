package io.xmit.pipeline.flow;

import java.security.SecureRandom;

/**
 * The software flow hash, {@code skb_get_hash} (kernel-semantics §3.4): SipHash-2-4 under a per-pipeline
 * 128-bit key over the canonical form of a {@link FlowKey}, truncated to 32 bits, never 0.
 * <p>
 * Canonical form: the two addresses are put in ascending (unsigned) order and, independently, the two ports,
 * as the current kernel's {@code __flow_hash_consistentify} does, so both directions of a flow hash alike.
 * The message is the family, protocol, sorted ports and sorted addresses:
 * <pre>
 *   IPv4 (2 words): m0 = addrLow &lt;&lt; 32 | addrHigh
 *                   m1 = portHigh &lt;&lt; 32 | portLow &lt;&lt; 16 | protocol &lt;&lt; 8 | family
 *   IPv6 (5 words): m0..m3 = addrLow.hi, addrLow.lo, addrHigh.hi, addrHigh.lo;  m4 as m1 above
 * </pre>
 * Not dissected, unlike the kernel: the IPv6 flow label (which the kernel hashes instead of the ports when
 * nonzero), the VLAN id and GRE keys; TCP's per-socket random {@code sk_txhash} is not modelled either.
 * A key of no family hashes its (zero) fields in the IPv4 layout. The family is part of the message, so an
 * IPv4 flow and an IPv6 flow never share a message. Immutable and thread-safe; {@link #hash} allocates nothing.
 */
public final class FlowHasher
{
    private final long k0;
    private final long k1;

    public FlowHasher(final long k0, final long k1)
    {
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * A hasher with a fresh random key, as the kernel seeds its flow-hash key once per boot: hashes are stable
     * for the life of this hasher and unpredictable from outside.
     */
    public static FlowHasher random()
    {
        final SecureRandom random = new SecureRandom();
        return new FlowHasher(random.nextLong(), random.nextLong());
    }

    /**
     * The key as 32 hex digits, {@code k0} then {@code k1}, the form {@code xmit explain --hash-key} takes: for a tool
     * that explains a running pipeline's choices, never for a log (the kernel keeps its key secret from hash floods).
     */
    public String keyHex()
    {
        return String.format("%016x%016x", k0, k1);
    }

    /**
     * The flow hash of {@code key} (kernel-semantics §3.4): direction-independent, stable, never 0.
     */
    public int hash(final FlowKey key)
    {
        final int srcPort = key.srcPort();
        final int dstPort = key.dstPort();
        final long ports = srcPort <= dstPort ?
            ((long)dstPort << 32) | ((long)srcPort << 16) :
            ((long)srcPort << 32) | ((long)dstPort << 16);
        final long tail = ports | ((long)key.protocol() << 8) | key.family();

        if (key.family() == FlowKey.FAMILY_IPV6)
        {
            final long srcHi = key.srcHi();
            final long srcLo = key.srcLo();
            final long dstHi = key.dstHi();
            final long dstLo = key.dstLo();
            final int order = srcHi != dstHi ? Long.compareUnsigned(srcHi, dstHi) : Long.compareUnsigned(srcLo, dstLo);
            return order <= 0 ?
                fold(SipHash24.hash(k0, k1, srcHi, srcLo, dstHi, dstLo, tail)) :
                fold(SipHash24.hash(k0, k1, dstHi, dstLo, srcHi, srcLo, tail));
        }

        // IPv4 addresses sit in the low 32 bits of lo, zero-extended, so signed comparison orders them unsigned.
        final long src = key.srcLo();
        final long dst = key.dstLo();
        final long addresses = src <= dst ? (src << 32) | dst : (dst << 32) | src;
        return fold(SipHash24.hash(k0, k1, addresses, tail));
    }

    /**
     * Truncates to 32 bits and maps 0 to 1: 0 means "no hash" in the kernel and in xmit frames (§3.4).
     */
    static int fold(final long sipHash)
    {
        final int h = (int)sipHash;
        return h == 0 ? 1 : h;
    }
}
