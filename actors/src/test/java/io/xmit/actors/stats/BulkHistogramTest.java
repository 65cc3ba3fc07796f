package io.xmit.actors.stats;

import java.nio.file.Path;

import io.xmit.pipeline.AllocationMeter;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BulkHistogramTest
{
    private static final CounterScope SCOPE = CounterScope.txq(0, 3);

    @TempDir
    Path directory;

    private CountersFile file;
    private CountersView view;

    @BeforeEach
    void setUp()
    {
        file = CountersFile.create("bulk", directory, 64);
    }

    @AfterEach
    void tearDown()
    {
        if (null != view)
        {
            view.close();
        }
        file.close();
    }

    @Test
    void recordsEachBurstSizeInItsPowerOfTwoBucket()
    {
        final BulkHistogram histogram = new BulkHistogram(file, SCOPE);
        final int[] sizes = {1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000, Integer.MAX_VALUE, 0, -1,
            Integer.MIN_VALUE};
        for (final int size : sizes)
        {
            histogram.record(size);
        }

        view = CountersFile.open(file.path());
        assertEquals(1, bucket(CounterType.QDISC_BULK_1));
        assertEquals(2, bucket(CounterType.QDISC_BULK_2_3));
        assertEquals(2, bucket(CounterType.QDISC_BULK_4_7));
        assertEquals(2, bucket(CounterType.QDISC_BULK_8_15));
        assertEquals(2, bucket(CounterType.QDISC_BULK_16_31));
        assertEquals(2, bucket(CounterType.QDISC_BULK_32_63));
        assertEquals(3, bucket(CounterType.QDISC_BULK_64_PLUS));
    }

    @Test
    void recordAndCounterIncrementsAllocateNothing()
    {
        final BulkHistogram histogram = new BulkHistogram(file, SCOPE);
        final AtomicCounter packets = file.allocate(CounterType.QDISC_PACKETS, SCOPE);
        final AtomicCounter bypassed = file.allocate(CounterType.QDISC_BYPASSED, SCOPE);

        final AllocationMeter.Measurement measurement = AllocationMeter.measure(
            (operations) ->
            {
                for (int i = 0; i < operations; i++)
                {
                    histogram.record(i & 127);
                    packets.incrementRelease();
                    bypassed.getAndAddRelease(2);
                }
                return packets.get();
            },
            100_000,
            1_000_000);

        assertEquals(0, measurement.allocatedBytes());
        assertEquals(100_000L + 1_000_000L * measurement.rounds(), measurement.result());
        assertEquals(2 * measurement.result(), bypassed.get());
    }

    @Test
    void closeReturnsTheBucketsToTheFile()
    {
        try (CountersFile exact = CountersFile.create("exact", directory, 7))
        {
            final BulkHistogram first = new BulkHistogram(exact, SCOPE);
            first.close();
            first.close();

            final BulkHistogram second = new BulkHistogram(exact, CounterScope.txq(1, 0));
            second.record(5);
            try (CountersView exactView = CountersFile.open(exact.path()))
            {
                assertEquals(-1, exactView.value(CounterType.QDISC_BULK_4_7, SCOPE));
                assertEquals(1, exactView.value(CounterType.QDISC_BULK_4_7, CounterScope.txq(1, 0)));
            }
        }
    }

    @Test
    void fileFillingPartWayReleasesTheBucketsTaken()
    {
        try (CountersFile small = CountersFile.create("small", directory, 5))
        {
            assertThrows(IllegalStateException.class, () -> new BulkHistogram(small, SCOPE));
            try (CountersView smallView = CountersFile.open(small.path()))
            {
                final int[] allocated = {0};
                smallView.forEach((counterId, typeId, scope, label, value) -> allocated[0]++);
                assertEquals(0, allocated[0]);
            }
        }
    }

    private long bucket(final CounterType type)
    {
        return view.value(type, SCOPE);
    }
}
