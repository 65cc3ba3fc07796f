/**
 * Host basics for a kernel peer: the ARP codec ({@link io.xmit.pipeline.host.ArpFrames}), the neighbour table
 * that resolves next hops and holds frames while it does ({@link io.xmit.pipeline.host.NeighbourTable}), ICMP
 * echo replies and port unreachable errors ({@link io.xmit.pipeline.host.IcmpFrames}) and the ICMP rate limit
 * ({@link io.xmit.pipeline.host.IcmpRateLimiter}). Pure logic over Agrona buffers: time is an argument, nothing
 * is read from a clock, and nothing allocates per packet after construction.
 */
package io.xmit.pipeline.host;
