/**
 * The data plane's pure logic, with no Akka and no Aeron: frame flyweights and codec ({@code frame}), flow
 * keys and hashes ({@code flow}), XPS maps and TX queue selection ({@code xps}), pfifo_fast and its descriptor
 * batches ({@code qdisc}), BQL and TX queue state ({@code txq}), ARP, neighbour resolution and ICMP for a
 * host ({@code host}). Everything here can be tested and benchmarked on its own; the hot paths allocate
 * nothing.
 */
package io.xmit.pipeline;
