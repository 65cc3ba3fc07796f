package io.xmit.actors.stats;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * How many tx_burst calls of one qdisc fell into each power-of-two size bucket: 1, 2-3, 4-7, 8-15, 16-31, 32-63
 * and 64 or more. Written only by the thread that owns the qdisc, so each bucket is bumped with a release store
 * rather than an atomic add.
 */
public final class BulkHistogram implements AutoCloseable
{
    private static final CounterType[] BUCKET_TYPES =
    {
        CounterType.QDISC_BULK_1,
        CounterType.QDISC_BULK_2_3,
        CounterType.QDISC_BULK_4_7,
        CounterType.QDISC_BULK_8_15,
        CounterType.QDISC_BULK_16_31,
        CounterType.QDISC_BULK_32_63,
        CounterType.QDISC_BULK_64_PLUS,
    };

    private static final int LAST_BUCKET = BUCKET_TYPES.length - 1;

    private final CountersFile file;
    private final AtomicCounter[] buckets = new AtomicCounter[BUCKET_TYPES.length];

    /**
     * Allocates the seven bucket counters in {@code file}.
     *
     * @param file  where the counters live.
     * @param scope the qdisc, e.g. {@code CounterScope.txq(0, 3)}.
     */
    public BulkHistogram(final CountersFile file, final CounterScope scope)
    {
        this.file = file;
        try
        {
            for (int i = 0; i < BUCKET_TYPES.length; i++)
            {
                buckets[i] = file.allocate(BUCKET_TYPES[i], scope);
            }
        }
        catch (final RuntimeException ex)
        {
            // A file that fills part-way through must not keep the buckets already taken.
            close();
            throw ex;
        }
    }

    /**
     * Counts one tx_burst call of {@code burstSize} packets. Sizes below 1 are not bursts and are not counted.
     *
     * @param burstSize packets handed to the driver in one call.
     */
    public void record(final int burstSize)
    {
        if (burstSize > 0)
        {
            // floor(log2(size)) is the bucket, since bucket k holds [2^k, 2^(k+1)).
            final int log2 = 31 - Integer.numberOfLeadingZeros(burstSize);
            buckets[Math.min(log2, LAST_BUCKET)].incrementRelease();
        }
    }

    /**
     * Returns the bucket counters to the file, e.g. when the qdisc is replaced while the pipeline runs. The
     * owning thread must have stopped recording. Closing twice does nothing.
     */
    public void close()
    {
        for (final AtomicCounter bucket : buckets)
        {
            if (null != bucket)
            {
                file.free(bucket);
            }
        }
    }
}
