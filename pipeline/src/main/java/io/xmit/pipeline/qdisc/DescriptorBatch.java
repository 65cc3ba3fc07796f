package io.xmit.pipeline.qdisc;

/**
 * A reusable batch of packet descriptors on their way to the driver: per entry the native address and length of
 * the frame bytes (what {@code nic_tx_burst} copies), the priority, and the qdisc slot holding the bytes, or
 * {@link #EXTERNAL} for a descriptor that points elsewhere (the bypass path: straight into the ring).
 * <p>
 * Entries taken from a qdisc stay owned by the batch until {@link Qdisc#complete(DescriptorBatch, int)} frees or
 * requeues them; only then does the batch empty. Preallocated: adding and reading never allocate.
 */
public final class DescriptorBatch
{
    /** The slot value of a descriptor that does not belong to a qdisc. */
    public static final int EXTERNAL = -1;

    private final long[] addresses;
    private final int[] lengths;
    private final int[] priorities;
    private final int[] slots;
    private int size;
    private int ownedCount;
    private Qdisc owner;

    public DescriptorBatch(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("batch capacity " + capacity + " must be >= 1");
        }
        addresses = new long[capacity];
        lengths = new int[capacity];
        priorities = new int[capacity];
        slots = new int[capacity];
    }

    public int capacity()
    {
        return addresses.length;
    }

    public int size()
    {
        return size;
    }

    public int remaining()
    {
        return addresses.length - size;
    }

    public boolean isEmpty()
    {
        return 0 == size;
    }

    public long address(final int index)
    {
        return addresses[index];
    }

    public int length(final int index)
    {
        return lengths[index];
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
            total += lengths[i];
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
        if (size == addresses.length)
        {
            return false;
        }
        put(address, length, priority, EXTERNAL);
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
    }

    Qdisc owner()
    {
        return owner;
    }

    void addOwned(final Qdisc qdisc, final long address, final int length, final int priority, final int slot)
    {
        owner = qdisc;
        ownedCount++;
        put(address, length, priority, slot);
    }

    void completed()
    {
        size = 0;
        ownedCount = 0;
        owner = null;
    }

    private void put(final long address, final int length, final int priority, final int slot)
    {
        addresses[size] = address;
        lengths[size] = length;
        priorities[size] = priority;
        slots[size] = slot;
        size++;
    }
}
