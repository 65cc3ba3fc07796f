/**
 * The frame codec: flyweights over Agrona buffers for Ethernet (with one 802.1Q tag), ARP, IPv4, IPv6, UDP, TCP
 * and ICMP, a {@link io.xmit.pipeline.frame.FrameParser} that classifies a frame into a reusable
 * {@link io.xmit.pipeline.frame.ParsedFrame} and a {@link io.xmit.pipeline.flow.FlowKey} or names why it
 * was dropped, the UDP frame writer with its checksums, and the {@link io.xmit.pipeline.frame.RingFrameHeader}
 * that precedes every Ethernet frame in an xmit ring. Parsing and writing allocate nothing and never throw.
 */
package io.xmit.pipeline.frame;
