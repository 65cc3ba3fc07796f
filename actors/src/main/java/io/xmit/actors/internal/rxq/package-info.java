/**
 * RX queues: NAPI-style polling of the device, RSS steering into the socket table, delivery to sockets' rings.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.rxq;
