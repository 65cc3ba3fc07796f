/**
 * The device side of a TX queue: completions, the in-flight FIFO that returns each packet to its socket, and the
 * TX watchdog.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.txq;
