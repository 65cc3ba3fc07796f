/**
 * Channels: an RX queue and its TX queue's completions, run under one run token by their actors or by a socket
 * busy-polling them (kernel-semantics §9).
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.channel;
