/**
 * Flow identity and flow hashes: the reusable 5-tuple {@link io.xmit.pipeline.flow.FlowKey}, the keyed,
 * direction-independent software flow hash the TX path spreads by ({@link io.xmit.pipeline.flow.FlowHasher},
 * kernel-semantics §3.4), the Toeplitz RSS hash the simulated NIC steers RX queues by, and the small
 * arithmetic the kernel uses to turn a hash into an index ({@link io.xmit.pipeline.flow.Hashing}).
 */
package io.xmit.pipeline.flow;
