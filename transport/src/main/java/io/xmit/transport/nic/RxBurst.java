package io.xmit.transport.nic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reusable array of RX descriptors in native memory that {@link NicDriver#rxBurst(int, RxBurst)} fills: per
 * frame the address and length of the bytes in a shim-owned buffer (valid until
 * {@link NicDriver#rxRelease(int, int)}) and the frame's Toeplitz RSS hash. Reading allocates nothing.
 */
public final class RxBurst
{
    static final int DESCRIPTOR_LENGTH = 16;

    private final int capacity;
    // An auto-arena segment: the native array lives exactly as long as this burst is reachable.
    private final MemorySegment segment;
    private final UnsafeBuffer descriptors;
    final long address;
    int count;

    /**
     * @param capacity the most frames one burst takes, 1..65536; the driver also caps it at its ring size.
     */
    public RxBurst(final int capacity)
    {
        if (capacity < 1 || capacity > NicSpec.MAX_RING)
        {
            throw new IllegalArgumentException("RX burst capacity " + capacity + " is not in 1.." + NicSpec.MAX_RING);
        }
        this.capacity = capacity;
        segment = Arena.ofAuto().allocate((long)capacity * DESCRIPTOR_LENGTH, 64);
        descriptors = new UnsafeBuffer(segment.address(), capacity * DESCRIPTOR_LENGTH);
        address = segment.address();
    }

    /** The most frames one burst takes. */
    public int capacity()
    {
        return capacity;
    }

    /** Frames the last {@code rxBurst} delivered. */
    public int count()
    {
        return count;
    }

    /** The native address of frame {@code index}'s bytes. */
    public long address(final int index)
    {
        return descriptors.getLong(index * DESCRIPTOR_LENGTH);
    }

    /** The length of frame {@code index}. */
    public int length(final int index)
    {
        return descriptors.getInt(index * DESCRIPTOR_LENGTH + 8);
    }

    /** The 32-bit Toeplitz RSS hash the port computed for frame {@code index} (0 for non-IP frames). */
    public int rssHash(final int index)
    {
        return descriptors.getInt(index * DESCRIPTOR_LENGTH + 12);
    }

    /** Points {@code view} at frame {@code index}'s bytes (valid until they are released). */
    public void wrapFrame(final int index, final UnsafeBuffer view)
    {
        view.wrap(address(index), length(index));
    }

    @Override
    public String toString()
    {
        return "RxBurst[count=" + count + ", capacity=" + capacity + ", " + segment.byteSize() + " native bytes]";
    }
}
