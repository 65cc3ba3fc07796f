package io.xmit.actors.internal.rxq;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.QueueStats;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The receive counters one device port keeps itself (frames placed in its RX rings, missed because a ring was full,
 * removed by fault injection), for the receive books, mirrored into the counters file ({@code nic_rx_packets},
 * {@code nic_rx_missed}, {@code nic_rx_dropped} per RX queue) so that a reader in another process sees them too. A
 * control path: reading the device's counters allocates. Thread-safe.
 */
public final class DeviceRxCounters
{
    /** One port's sums over its RX queues. */
    public record Totals(long placed, long missed, long dropped)
    {
    }

    private final NicDriver driver;
    private final AtomicCounter[] placed;
    private final AtomicCounter[] missed;
    private final AtomicCounter[] dropped;

    public DeviceRxCounters(final NicDriver driver, final CountersFile counters)
    {
        this.driver = driver;
        final int rxCount = driver.rxQueueCount();
        placed = new AtomicCounter[rxCount];
        missed = new AtomicCounter[rxCount];
        dropped = new AtomicCounter[rxCount];
        for (int q = 0; q < rxCount; q++)
        {
            final CounterScope scope = CounterScope.rxq(driver.port(), q);
            placed[q] = counters.allocate(CounterType.NIC_RX_PACKETS, scope);
            missed[q] = counters.allocate(CounterType.NIC_RX_MISSED, scope);
            dropped[q] = counters.allocate(CounterType.NIC_RX_DROPPED, scope);
        }
    }

    /** Reads the device's counters now, mirrors them, and returns their sums over the port's RX queues. */
    public synchronized Totals refresh()
    {
        long placedSum = 0;
        long missedSum = 0;
        long droppedSum = 0;
        for (int q = 0; q < placed.length; q++)
        {
            final QueueStats stats = driver.stats(q);
            placed[q].setRelease(stats.rxPackets());
            missed[q].setRelease(stats.rxMissed());
            dropped[q].setRelease(stats.rxDropped());
            placedSum += stats.rxPackets();
            missedSum += stats.rxMissed();
            droppedSum += stats.rxDropped();
        }
        return new Totals(placedSum, missedSum, droppedSum);
    }

    /** What the port's device transmitted ({@code tx_packets}) over its TX queues, now. */
    public long transmitted()
    {
        long sent = 0;
        for (int q = 0; q < driver.txQueueCount(); q++)
        {
            sent += driver.stats(q).txPackets();
        }
        return sent;
    }
}
