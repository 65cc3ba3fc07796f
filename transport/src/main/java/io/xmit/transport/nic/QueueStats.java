package io.xmit.transport.nic;

/**
 * One queue's counters since the device opened (xmit_nic_queue_stats). TX fields are 0 for a queue index past
 * the TX queues, RX fields past the RX queues.
 *
 * @param txPackets   frames that left on the wire (completed).
 * @param txBytes     their bytes.
 * @param txErrors    packets of bursts refused by an injected failure.
 * @param txRingUsed  TX descriptors occupied now (waiting for the wire or for reclaim).
 * @param rxPackets   frames placed in the RX ring (truncated ones included).
 * @param rxBytes     their bytes.
 * @param rxMissed    frames that found the RX ring full.
 * @param rxDropped   frames removed by fault injection.
 * @param rxTruncated frames shortened by fault injection.
 */
public record QueueStats(long txPackets, long txBytes, long txErrors, long txRingUsed, long rxPackets,
    long rxBytes, long rxMissed, long rxDropped, long rxTruncated)
{
    static final int NATIVE_LENGTH = 9 * Long.BYTES;
}
