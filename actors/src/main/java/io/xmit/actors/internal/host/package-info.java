/**
 * The host of a port: ARP (the neighbour table, datagrams held while their next hop resolves) and ICMP echo.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.host;
