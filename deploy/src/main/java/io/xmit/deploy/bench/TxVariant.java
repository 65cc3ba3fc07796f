package io.xmit.deploy.bench;

/**
 * One way of moving 64-byte frames from two producer threads to a NIC driver's two TX queues, measured in steady
 * state. A variant owns its threads and its device: {@link #start()} opens them and starts traffic, {@link #close()}
 * stops the traffic before it closes the device.
 */
public interface TxVariant extends AutoCloseable
{
    /** The name a bench selects the variant by. */
    String name();

    /** Opens the device, starts the pipeline's threads and starts sending. */
    void start();

    /**
     * Waits {@code nanos} while traffic flows and reports what happened in that window only.
     *
     * @return packets that reached the driver in the window and bytes the pipeline's threads allocated meanwhile.
     */
    Result runFor(long nanos);

    /** What the last {@link #runFor} saw inside the variant, for the bench's log line; empty if nothing. */
    default String detail()
    {
        return "";
    }

    /** Packets that reached the driver since {@link #start()}. */
    long delivered();

    /** Stops the pipeline's threads, waiting a bounded time for them, then closes the device. Idempotent. */
    @Override
    void close();

    /**
     * One measured window.
     *
     * @param packets        packets that reached the driver during the window.
     * @param nanos          the window's measured length.
     * @param allocatedBytes bytes allocated on the pipeline's threads during the window.
     */
    record Result(long packets, long nanos, long allocatedBytes)
    {
        /** Millions of packets per second. */
        public double mpps()
        {
            return nanos > 0 ? packets * 1_000.0 / nanos : 0.0;
        }

        /** Bytes allocated per packet delivered; NaN if none was. */
        public double bytesPerPacket()
        {
            return packets > 0 ? (double)allocatedBytes / packets : Double.NaN;
        }
    }
}
