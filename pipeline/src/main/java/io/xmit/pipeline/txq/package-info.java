/**
 * The per-TX-queue state the driver side owns: the DRV_XOFF / STACK_XOFF / FROZEN bits and the last transmit
 * start time ({@link io.xmit.pipeline.txq.TxQueueState}), and byte queue limits
 * ({@link io.xmit.pipeline.txq.DynamicQueueLimits}, bound to a queue by
 * {@link io.xmit.pipeline.txq.ByteQueueLimits}). Time is always read through an injectable
 * {@link io.xmit.pipeline.txq.NanoClock} so that the rules of kernel-semantics §7 can be tested step by step.
 */
package io.xmit.pipeline.txq;
