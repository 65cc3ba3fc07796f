package io.xmit.actors;

import io.xmit.actors.internal.stage.Supervision;

/**
 * The kinds of pipeline actor that move packets, as named by {@link Pipeline#injectCrash} (and in logs): each runs
 * under the restart-with-backoff supervision that {@link Supervision} writes down.
 */
public enum Stage
{
    /** An RX queue's NAPI poller: index = the RX queue. */
    RX_QUEUE,
    /** A socket's receive side: index = the socket's id. */
    SOCKET,
    /** A TX queue's lockless qdisc: index = the TX queue. */
    QDISC,
    /** A TX queue's completion side: index = the TX queue. */
    TX_QUEUE,
    /** A port's host (ARP, ICMP, frames held for a next hop), on ports with an IPv4 address: index = 0. */
    HOST
}
