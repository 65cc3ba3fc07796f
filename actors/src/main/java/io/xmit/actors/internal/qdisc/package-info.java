/**
 * The lockless qdisc of each TX queue: a single-writer engine that drains its band rings in bulk into pfifo_fast,
 * takes the bypass when the qdisc is idle, and hands bursts bounded by BQL to the driver, one call per burst.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.qdisc;
