/**
 * Queueing disciplines for one TX queue: the small {@link io.xmit.pipeline.qdisc.Qdisc} ops table, the default
 * {@link io.xmit.pipeline.qdisc.PfifoFast} with its off-heap backlog, and the reusable
 * {@link io.xmit.pipeline.qdisc.DescriptorBatch} that carries packets to the driver in bulk and brings the ones it
 * did not accept back for requeueing (kernel-semantics §4, §5, §6). Single writer, no locks, no allocation per
 * packet.
 */
package io.xmit.pipeline.qdisc;
