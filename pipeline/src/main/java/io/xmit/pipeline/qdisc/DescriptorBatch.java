package io.xmit.pipeline.qdisc;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reusable batch of packet descriptors on their way to the driver: per entry the native address and length of
 * the frame bytes (what {@code nic_tx_burst} copies), the priority, and the qdisc slot holding the bytes, or
 * {@link #EXTERNAL} for a descriptor that points elsewhere (the bypass path: straight into the ring).
 * <p>
 * The descriptors themselves live in native memory in the driver shim's layout, so a whole burst crosses into C
 * as one pointer ({@link #descriptorsAddress()}) and a count, with no copy:
 * <pre>
 *   0  u64 address   of the frame bytes
 *   8  u32 length    of the frame
 *  12  u32 flags     per-descriptor driver flags, 0 unless the shim's ABI defines one
 *  16  next descriptor
 * </pre>
 * in the platform's byte order. Priority and slot are the qdisc's business and stay on the heap.
 * <p>
 * Entries taken from a qdisc stay owned by the batch until {@link Qdisc#complete(DescriptorBatch, int)} frees or
 * requeues them; only then does the batch empty. Preallocated: adding and reading never allocate.
 */
public final class DescriptorBatch
{
    /** The slot value of a descriptor that does not belong to a qdisc. */
    public static final int EXTERNAL = -1;

    public static final int ADDRESS_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int DESCRIPTOR_LENGTH = 16;

    private static final int ALIGNMENT = 64;

    private final int capacity;
    private final UnsafeBuffer descriptors;
    private final int[] priorities;
    private final int[] slots;
    private final int[] tags;
    private final long[] traces;
    private int size;
    private int traced;
    private int ownedCount;
    private Qdisc owner;

    /**
     * @param capacity the largest burst, 1..65536.
     */
    public DescriptorBatch(final int capacity)
    {
        if (capacity < 1 || capacity > 65536)
        {
            throw new IllegalArgumentException("batch capacity " + capacity + " is not in 1..65536");
        }
        this.capacity = capacity;
        descriptors = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity * DESCRIPTOR_LENGTH, ALIGNMENT));
        priorities = new int[capacity];
        slots = new int[capacity];
        tags = new int[capacity];
        traces = new long[capacity];
    }

    /** The native address of descriptor 0; descriptor i is at {@code + i * DESCRIPTOR_LENGTH}. */
    public long descriptorsAddress()
    {
        return descriptors.addressOffset();
    }

    public int capacity()
    {
        return capacity;
    }

    public int size()
    {
        return size;
    }

    public int remaining()
    {
        return capacity - size;
    }

    public boolean isEmpty()
    {
        return 0 == size;
    }

    public long address(final int index)
    {
        return descriptors.getLong(index * DESCRIPTOR_LENGTH + ADDRESS_OFFSET);
    }

    public int length(final int index)
    {
        return descriptors.getInt(index * DESCRIPTOR_LENGTH + LENGTH_OFFSET);
    }

    public int flags(final int index)
    {
        return descriptors.getInt(index * DESCRIPTOR_LENGTH + FLAGS_OFFSET);
    }

    public int priority(final int index)
    {
        return priorities[index];
    }

    /** The owning qdisc's slot, or {@link #EXTERNAL}. */
    public int slot(final int index)
    {
        return slots[index];
    }

    /** The caller's tag of the packet (xmit: the sending socket's id), carried through the qdisc. */
    public int tag(final int index)
    {
        return tags[index];
    }

    /** The packet's trace id (xmit: from its ring frame header), 0 if it is not traced. */
    public long trace(final int index)
    {
        return traces[index];
    }

    /** How many entries carry a trace id: 0 lets a qdisc skip looking for traced packets. */
    public int tracedCount()
    {
        return traced;
    }

    public boolean isExternal(final int index)
    {
        return EXTERNAL == slots[index];
    }

    /** The sum of all lengths, what BQL is told when the batch is sent. */
    public long bytes()
    {
        long total = 0;
        for (int i = 0; i < size; i++)
        {
            total += length(i);
        }
        return total;
    }

    /**
     * Append a descriptor for bytes that no qdisc owns (the bypass path). The memory must stay valid until the
     * batch is completed: a descriptor the driver refuses is copied into the qdisc then.
     *
     * @return false if the batch is full.
     */
    public boolean addExternal(final long address, final int length, final int priority)
    {
        return addExternal(address, length, priority, 0);
    }

    /**
     * {@link #addExternal(long, int, int)} with a tag that stays with the packet if it is requeued.
     *
     * @return false if the batch is full.
     */
    public boolean addExternal(final long address, final int length, final int priority, final int tag)
    {
        return addExternal(address, length, priority, tag, 0);
    }

    /**
     * {@link #addExternal(long, int, int, int)} with a trace id that also stays with the packet.
     *
     * @return false if the batch is full.
     */
    public boolean addExternal(
        final long address, final int length, final int priority, final int tag, final long trace)
    {
        if (size == capacity)
        {
            return false;
        }
        put(address, length, priority, EXTERNAL, tag, trace);
        return true;
    }

    /** Drop all entries; only for a batch holding no qdisc slots (those are released by completing it). */
    public void clear()
    {
        if (ownedCount != 0)
        {
            throw new IllegalStateException(
                "batch holds " + ownedCount + " qdisc slots: complete it on its qdisc instead of clearing it");
        }
        size = 0;
        traced = 0;
    }

    Qdisc owner()
    {
        return owner;
    }

    void addOwned(final Qdisc qdisc, final long address, final int length, final int priority, final int slot,
        final int tag, final long trace)
    {
        owner = qdisc;
        ownedCount++;
        put(address, length, priority, slot, tag, trace);
    }

    void completed()
    {
        size = 0;
        traced = 0;
        ownedCount = 0;
        owner = null;
    }

    private void put(
        final long address, final int length, final int priority, final int slot, final int tag, final long trace)
    {
        final int at = size * DESCRIPTOR_LENGTH;
        descriptors.putLong(at + ADDRESS_OFFSET, address);
        descriptors.putInt(at + LENGTH_OFFSET, length);
        descriptors.putInt(at + FLAGS_OFFSET, 0);
        priorities[size] = priority;
        slots[size] = slot;
        tags[size] = tag;
        traces[size] = trace;
        if (0 != trace)
        {
            traced++;
        }
        size++;
    }
}
