/**
 * TX queue selection (kernel-semantics §1–§3): XPS masks in their sysfs form, the immutable {@code QueueMap}
 * snapshot with its derived per-CPU and per-RX-queue maps, the per-socket cached TX queue, recorded RX queue
 * and in-flight count, and {@code TxQueueSelector.pickTx}, which chooses a packet's TX queue without
 * allocating.
 */
package io.xmit.pipeline.xps;
