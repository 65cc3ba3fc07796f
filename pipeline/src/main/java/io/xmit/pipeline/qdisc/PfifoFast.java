package io.xmit.pipeline.qdisc;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * pfifo_fast, the default qdisc (kernel-semantics §4.2): three bands, 0 first, each a FIFO ring with its own
 * limit; the band is {@code PRIO2BAND[priority & 15]}; dequeue is strict priority. Packets are copied into
 * fixed-size slots of one off-heap, 64-byte-aligned block, so a descriptor's address can go straight to a native
 * driver. Packets the driver refused wait in a requeue list that is dequeued before the bands (§4.6, §4.7a).
 * <p>
 * <b>How this maps to the lockless kernel qdisc (§5).</b> The kernel's TCQ_F_NOLOCK pfifo_fast lets many CPUs
 * enqueue into per-band rings under producer spinlocks while the holder of {@code q.seqlock} dequeues, and the
 * MISSED/DRAINING bits make sure a packet enqueued while the holder gives up is never stranded. Here exactly one
 * actor owns the qdisc: senders never touch it, they write into that actor's ring, and only the actor enqueues,
 * dequeues, completes and resets. So there is no lock and no atomic here; the MISSED/DRAINING protocol lives in
 * the actor layer (the ring's idle/scheduled state word), where producers and the single consumer meet.
 * <p>
 * Differences from the kernel: the requeue list is bulk-dequeued under the same budget as the bands (the kernel
 * hands out its gso_skb list one packet per restart, without bulking), and the caller checks the TX queue state
 * (§4.7a/b) before dequeuing, since this class does not know the queue. Slots: each band holds at most its limit,
 * and {@code headroomSlots} extra slots cover packets outside the bands (in a batch awaiting completion or in the
 * requeue list), so an enqueue into a band below its limit finds a slot as long as fewer than that many are out.
 * <p>
 * Over 500 lines on purpose: the discipline and the slot block it copies into are one thing; every slot's owner
 * (a band, a batch, the requeue list) is accounted for here.
 */
public final class PfifoFast implements Qdisc
{
    public static final int BANDS = 3;
    public static final int DEFAULT_BAND_LIMIT = 1000;
    public static final int DEFAULT_SLOT_SIZE = 2048;
    public static final int DEFAULT_HEADROOM_SLOTS = 256;

    private static final int SLOT_ALIGNMENT = 64;
    private static final int TC_PRIO_MAX = 15;
    private static final byte[] PRIO2BAND = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };

    private final int bandLimit;
    private final int slotSize;
    private final int slotStride;
    private final int slotCount;
    private final UnsafeBuffer storage;
    private final long baseAddress;
    private final UnsafeBuffer externalView = new UnsafeBuffer();
    private final QdiscStats stats = new QdiscStats();

    private final int[] slotLength;
    private final int[] slotPriority;
    private final int[] slotTag;
    private final long[] slotTrace;
    private final int[] freeSlots;
    private int freeCount;

    private final int bandMask;
    private final int[] bandRings;
    private final int[] bandHead = new int[BANDS];
    private final int[] bandCount = new int[BANDS];

    private final int requeueMask;
    private final int[] requeueRing;
    private int requeueHead;
    private int requeueCount;
    private int requeueRun;
    /** The bands the bulk dequeue in progress may take from: 0 up to, not including, this. */
    private int dequeueBands = BANDS;

    public PfifoFast()
    {
        this(DEFAULT_BAND_LIMIT, DEFAULT_SLOT_SIZE, DEFAULT_HEADROOM_SLOTS);
    }

    /**
     * @param bandLimit     packets per band (the kernel's {@code tx_queue_len}), >= 1.
     * @param slotSize      the largest frame in bytes, >= 1; longer frames are dropped as oversize.
     * @param headroomSlots slots beyond {@code 3 × bandLimit} for packets in batches or the requeue list, >= 0.
     */
    public PfifoFast(final int bandLimit, final int slotSize, final int headroomSlots)
    {
        if (bandLimit < 1 || bandLimit > 1 << 24)
        {
            throw new IllegalArgumentException("bandLimit " + bandLimit + " is not in 1.." + (1 << 24));
        }
        if (slotSize < 1 || slotSize > 1 << 20)
        {
            throw new IllegalArgumentException("slotSize " + slotSize + " is not in 1.." + (1 << 20));
        }
        if (headroomSlots < 0 || headroomSlots > 1 << 24)
        {
            throw new IllegalArgumentException("headroomSlots " + headroomSlots + " is not in 0.." + (1 << 24));
        }
        final int stride = (slotSize + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
        final long count = (long)BANDS * bandLimit + headroomSlots;
        final long totalBytes = count * stride;
        if (totalBytes > Integer.MAX_VALUE - SLOT_ALIGNMENT)
        {
            throw new IllegalArgumentException("backlog storage of " + totalBytes + " bytes (bandLimit " + bandLimit +
                ", slotSize " + slotSize + ", headroomSlots " + headroomSlots + ") exceeds " +
                (Integer.MAX_VALUE - SLOT_ALIGNMENT) + " bytes");
        }

        this.bandLimit = bandLimit;
        this.slotSize = slotSize;
        this.slotStride = stride;
        this.slotCount = (int)count;

        final ByteBuffer block = BufferUtil.allocateDirectAligned((int)totalBytes, SLOT_ALIGNMENT);
        storage = new UnsafeBuffer(block);
        baseAddress = storage.addressOffset();

        slotLength = new int[slotCount];
        slotPriority = new int[slotCount];
        slotTag = new int[slotCount];
        slotTrace = new long[slotCount];
        freeSlots = new int[slotCount];

        final int bandCapacity = powerOfTwoAtLeast(bandLimit);
        bandMask = bandCapacity - 1;
        bandRings = new int[BANDS * bandCapacity];

        final int requeueCapacity = powerOfTwoAtLeast(slotCount);
        requeueMask = requeueCapacity - 1;
        requeueRing = new int[requeueCapacity];

        freeAllSlots();
    }

    /** prio2band (§4.2): the band of a packet priority, only its low four bits count. */
    public static int prio2band(final int priority)
    {
        return PRIO2BAND[priority & TC_PRIO_MAX];
    }

    public int bandLimit()
    {
        return bandLimit;
    }

    public int slotSize()
    {
        return slotSize;
    }

    /** Packets queued in {@code band}, the requeue list not included. */
    public int bandLength(final int band)
    {
        return bandCount[band];
    }

    /** Packets in the requeue list. */
    public int requeueLength()
    {
        return requeueCount;
    }

    /** Slots not holding a packet. */
    public int freeSlots()
    {
        return freeCount;
    }

    /** pfifo_fast_enqueue (§4.2): a full band, a frame that does not fit a slot, or no free slot is a drop. */
    @Override
    public int enqueue(final DirectBuffer src, final int offset, final int length, final int priority)
    {
        return enqueue(src, offset, length, priority, 0);
    }

    @Override
    public int enqueue(final DirectBuffer src, final int offset, final int length, final int priority, final int tag)
    {
        return enqueue(src, offset, length, priority, tag, 0);
    }

    /** {@link #enqueue(DirectBuffer, int, int, int, int)} with the packet's trace id (0: untraced), kept with it. */
    public int enqueue(final DirectBuffer src, final int offset, final int length, final int priority, final int tag,
        final long trace)
    {
        if (!fitsSlot(length))
        {
            stats.oversize++;
            stats.drops++;
            return NET_XMIT_DROP;
        }
        final int band = prio2band(priority);
        if (bandCount[band] >= bandLimit || 0 == freeCount)
        {
            stats.drops++;
            return NET_XMIT_DROP;
        }

        final int slot = copyIntoSlot(src, offset, length, priority, tag, trace);
        bandRings[ringIndex(band, bandHead[band] + bandCount[band])] = slot;
        bandCount[band]++;
        stats.qlen++;
        stats.backlog += length;
        return NET_XMIT_SUCCESS;
    }

    /**
     * try_bulk_dequeue_skb (§6.1); a {@code byteBudget} of 0 or less (no BQL) means exactly one packet.
     *
     * @throws IllegalArgumentException if {@code batch} holds another qdisc's slots: completing it on either
     *                                  qdisc would free slots that belong to the other.
     */
    @Override
    public int dequeueBulk(final DescriptorBatch batch, final int maxPackets, final int byteBudget)
    {
        return dequeueBulk(batch, maxPackets, byteBudget, BANDS - 1);
    }

    /**
     * {@link #dequeueBulk(DescriptorBatch, int, int)} from the requeue list and bands {@code 0..lastBand} only: the
     * caller knows of packets of band {@code lastBand} that are queued outside this qdisc (in a sender's ring, not
     * yet copied in), which every packet of a lower-priority band must wait for (§4.2).
     *
     * @throws IllegalArgumentException if {@code lastBand} is not a band, or as the three-argument form.
     */
    public int dequeueBulk(final DescriptorBatch batch, final int maxPackets, final int byteBudget, final int lastBand)
    {
        if (lastBand < 0 || lastBand >= BANDS)
        {
            throw new IllegalArgumentException("lastBand " + lastBand + " is not in 0.." + (BANDS - 1));
        }
        checkOwner(batch);
        dequeueBands = lastBand + 1;
        requeueRun = 0;
        if (maxPackets < 1 || 0 == batch.remaining())
        {
            return 0;
        }
        final int firstLength = dequeueOne(batch);
        if (firstLength < 0)
        {
            return 0;
        }

        int packets = 1;
        if (byteBudget > 0)
        {
            int budget = byteBudget - firstLength;
            while (budget > 0 && packets < maxPackets && batch.remaining() > 0)
            {
                final int length = dequeueOne(batch);
                if (length < 0)
                {
                    break;
                }
                budget -= length;
                packets++;
            }
        }
        return packets;
    }

    /**
     * Free the first {@code accepted} descriptors, requeue the rest at the head in their order (dev_requeue_skb,
     * §4.6), and empty the batch. Bypassed ({@link DescriptorBatch#EXTERNAL}) descriptors are counted in bstats
     * here (§4.10), and those refused are copied into slots. Later {@link #requeue} calls continue this run.
     *
     * @throws IllegalArgumentException if the batch holds another qdisc's slots or {@code accepted} is not in
     *                                  0..size: the caller has mixed up its batches or its driver's return value.
     */
    @Override
    public void complete(final DescriptorBatch batch, final int accepted)
    {
        final int size = batch.size();
        if (accepted < 0 || accepted > size)
        {
            throw new IllegalArgumentException("accepted " + accepted + " is not in 0.." + size);
        }
        checkOwner(batch);

        for (int i = 0; i < accepted; i++)
        {
            final int slot = batch.slot(i);
            if (DescriptorBatch.EXTERNAL == slot)
            {
                countBypassed(batch.length(i));
            }
            else
            {
                freeSlots[freeCount++] = slot;
            }
        }

        // Refused external descriptors need free slots; if there are too few, the newest are the ones dropped.
        int slotsLeft = freeCount;
        int dropExternalFrom = size;
        for (int i = accepted; i < size && dropExternalFrom == size; i++)
        {
            if (DescriptorBatch.EXTERNAL == batch.slot(i) && fitsSlot(batch.length(i)) && 0 == slotsLeft--)
            {
                dropExternalFrom = i;
            }
        }

        int requeued = 0;
        for (int i = size - 1; i >= accepted; i--)
        {
            int slot = batch.slot(i);
            final int length = batch.length(i);
            if (DescriptorBatch.EXTERNAL == slot)
            {
                countBypassed(length);
                if (!fitsSlot(length))
                {
                    stats.oversize++;
                    stats.drops++;
                    continue;
                }
                if (i >= dropExternalFrom)
                {
                    stats.drops++;
                    continue;
                }
                externalView.wrap(batch.address(i), length);
                slot = copyIntoSlot(externalView, 0, length, batch.priority(i), batch.tag(i), batch.trace(i));
            }
            requeueAt(0, slot);
            requeued++;
        }

        batch.completed();
        requeueRun = requeued;
    }

    /**
     * The driver failed the whole batch (§4.5: an error return consumes the packets, only "busy" requeues): each
     * packet is counted as dropped, bypassed ({@link DescriptorBatch#EXTERNAL}) ones in bstats first as
     * {@link #complete} counts them, and the batch's slots are freed; nothing is requeued.
     *
     * @throws IllegalArgumentException if the batch holds another qdisc's slots.
     */
    public void discard(final DescriptorBatch batch)
    {
        checkOwner(batch);
        final int size = batch.size();
        for (int i = 0; i < size; i++)
        {
            final int slot = batch.slot(i);
            if (DescriptorBatch.EXTERNAL == slot)
            {
                countBypassed(batch.length(i));
            }
            else
            {
                freeSlots[freeCount++] = slot;
            }
        }
        stats.drops += size;
        batch.completed();
        requeueRun = 0;
    }

    /**
     * dev_requeue_skb for a packet this qdisc never held (§4.6): copy it to the head of the requeue list. A run of
     * calls (after a {@link #complete}, or with no dequeue in between) keeps its order, ahead of older packets.
     */
    @Override
    public int requeue(final DirectBuffer src, final int offset, final int length, final int priority)
    {
        return requeue(src, offset, length, priority, 0);
    }

    @Override
    public int requeue(final DirectBuffer src, final int offset, final int length, final int priority, final int tag)
    {
        // A packet requeued here left through the bypass, which counts bstats as it goes (§4.10).
        countBypassed(length);
        if (!fitsSlot(length))
        {
            stats.oversize++;
            stats.drops++;
            return NET_XMIT_DROP;
        }
        if (0 == freeCount)
        {
            stats.drops++;
            return NET_XMIT_DROP;
        }
        requeueAt(requeueRun, copyIntoSlot(src, offset, length, priority, tag, 0));
        requeueRun++;
        return NET_XMIT_SUCCESS;
    }

    @Override
    public int peekLength()
    {
        if (requeueCount > 0)
        {
            return slotLength[requeueRing[requeueHead & requeueMask]];
        }
        for (int band = 0; band < BANDS; band++)
        {
            if (bandCount[band] > 0)
            {
                return slotLength[bandRings[ringIndex(band, bandHead[band])]];
            }
        }
        return -1;
    }

    @Override
    public boolean isEmpty()
    {
        return 0 == stats.qlen;
    }

    /**
     * pfifo_fast_reset (§5.6): every queued packet is discarded (not counted as a drop, as in the kernel) and
     * qlen/backlog return to 0. Slots held by a batch awaiting completion stay with it.
     */
    @Override
    public void reset()
    {
        for (int band = 0; band < BANDS; band++)
        {
            for (int i = 0; i < bandCount[band]; i++)
            {
                freeSlots[freeCount++] = bandRings[ringIndex(band, bandHead[band] + i)];
            }
            bandHead[band] = 0;
            bandCount[band] = 0;
        }
        for (int i = 0; i < requeueCount; i++)
        {
            freeSlots[freeCount++] = requeueRing[(requeueHead + i) & requeueMask];
        }
        requeueHead = 0;
        requeueCount = 0;
        requeueRun = 0;
        stats.qlen = 0;
        stats.backlog = 0;
    }

    @Override
    public QdiscStats stats()
    {
        return stats;
    }

    /** dequeue_skb (§4.7a, §4.7d): the requeue list first, then the bands in strict priority; -1 when empty. */
    private int dequeueOne(final DescriptorBatch batch)
    {
        final int slot;
        if (requeueCount > 0)
        {
            slot = requeueRing[requeueHead & requeueMask];
            requeueHead++;
            requeueCount--;
        }
        else
        {
            final int band = firstNonEmptyBand();
            if (band < 0)
            {
                return -1;
            }
            slot = bandRings[ringIndex(band, bandHead[band])];
            bandHead[band]++;
            bandCount[band]--;
            stats.packets++;
            stats.bytes += slotLength[slot];
        }

        final int length = slotLength[slot];
        stats.qlen--;
        stats.backlog -= length;
        batch.addOwned(this, baseAddress + (long)slot * slotStride, length, slotPriority[slot], slot, slotTag[slot],
            slotTrace[slot]);
        return length;
    }

    private int firstNonEmptyBand()
    {
        for (int band = 0; band < dequeueBands; band++)
        {
            if (bandCount[band] > 0)
            {
                return band;
            }
        }
        return -1;
    }

    /** Insert at position {@code index} from the head, shifting the {@code index} entries before it one left. */
    private void requeueAt(final int index, final int slot)
    {
        requeueHead--;
        for (int i = 0; i < index; i++)
        {
            requeueRing[(requeueHead + i) & requeueMask] = requeueRing[(requeueHead + i + 1) & requeueMask];
        }
        requeueRing[(requeueHead + index) & requeueMask] = slot;
        requeueCount++;
        stats.requeues++;
        stats.qlen++;
        stats.backlog += slotLength[slot];
    }

    private int copyIntoSlot(final DirectBuffer src, final int offset, final int length, final int priority,
        final int tag, final long trace)
    {
        // Check the source before taking a slot, so a bad source leaves the free list whole.
        src.boundsCheck(offset, length);
        final int slot = freeSlots[--freeCount];
        storage.putBytes(slot * slotStride, src, offset, length);
        slotLength[slot] = length;
        slotPriority[slot] = priority;
        slotTag[slot] = tag;
        slotTrace[slot] = trace;
        return slot;
    }

    private void checkOwner(final DescriptorBatch batch)
    {
        final Qdisc owner = batch.owner();
        if (null != owner && this != owner)
        {
            throw new IllegalArgumentException(
                "batch holds slots of " + owner + ", not of this qdisc (" + this + ")");
        }
    }

    private void countBypassed(final int length)
    {
        stats.packets++;
        stats.bytes += length;
    }

    private boolean fitsSlot(final int length)
    {
        return length >= 0 && length <= slotSize;
    }

    private int ringIndex(final int band, final int position)
    {
        return band * (bandMask + 1) + (position & bandMask);
    }

    private void freeAllSlots()
    {
        freeCount = 0;
        for (int slot = slotCount - 1; slot >= 0; slot--)
        {
            freeSlots[freeCount++] = slot;
        }
    }

    private static int powerOfTwoAtLeast(final int value)
    {
        return value <= 1 ? 1 : Integer.highestOneBit(value - 1) << 1;
    }

    @Override
    public String toString()
    {
        return "PfifoFast{bands=[" + bandCount[0] + ", " + bandCount[1] + ", " + bandCount[2] + "], requeued=" +
            requeueCount + ", " + stats + "}";
    }
}
