package io.xmit.actors.stats;

/**
 * The kinds of counter the pipeline publishes. The type id and label are part of the counters file's contract
 * with readers in other processes, so they are written out rather than derived from the constant's name, and
 * never reused for a different meaning.
 * <p>
 * Type ids start at 1000 so they never clash with Aeron's system counters (which sit below 1000) when both are
 * shown by one tool. Each group has a block of 100 so a kind can be added to a group without renumbering.
 */
public enum CounterType
{
    RX_PACKETS(1000, "rx_packets", false),
    RX_BYTES(1001, "rx_bytes", false),
    RX_DELIVERED(1002, "rx_delivered", false),
    RX_DROP_NO_SOCKET(1003, "rx_drop_no_socket", false),
    RX_DROP_MALFORMED(1004, "rx_drop_malformed", false),
    RX_DROP_SOCKET_RING_FULL(1005, "rx_drop_socket_ring_full", false),
    RX_DROP_UNSUPPORTED(1006, "rx_drop_unsupported", false),
    RX_POLLS(1007, "rx_polls", false),
    RX_INTERRUPTS(1008, "rx_interrupts", false),
    RX_DRIVER_ERRORS(1009, "rx_driver_errors", false),
    /** Frames whose own delivery threw (the RX queue's actor restarted and went on after them). */
    RX_DROP_FAILED(1010, "rx_drop_failed", false),
    /** Frames left in the device's RX ring or a half-delivered burst when a graceful stop took the queue over. */
    RX_DROP_SHUTDOWN(1011, "rx_drop_shutdown", false),
    /**
     * Frames for a member on another node whose ring to that node refused them for any reason but back-pressure:
     * the node is gone (its ring no longer connected, or closed under the lookup).
     */
    RX_DROP_NODE_DOWN(1012, "rx_drop_node_down", false),

    QDISC_PACKETS(1100, "qdisc_packets", false),
    QDISC_BYTES(1101, "qdisc_bytes", false),
    QDISC_BYPASSED(1102, "qdisc_bypassed", false),
    QDISC_ENQUEUED(1103, "qdisc_enqueued", false),
    QDISC_REQUEUES(1104, "qdisc_requeues", false),
    QDISC_DROP_OVERFLOW(1105, "qdisc_drop_overflow", false),
    QDISC_DROP_OVERSIZE(1106, "qdisc_drop_oversize", false),
    QDISC_BACKLOG_PACKETS(1108, "qdisc_backlog_packets", true),
    QDISC_BULKS(1109, "qdisc_bulks", false),
    QDISC_BULK_1(1110, "qdisc_bulk_1", false),
    QDISC_BULK_2_3(1111, "qdisc_bulk_2_3", false),
    QDISC_BULK_4_7(1112, "qdisc_bulk_4_7", false),
    QDISC_BULK_8_15(1113, "qdisc_bulk_8_15", false),
    QDISC_BULK_16_31(1114, "qdisc_bulk_16_31", false),
    QDISC_BULK_32_63(1115, "qdisc_bulk_32_63", false),
    QDISC_BULK_64_PLUS(1116, "qdisc_bulk_64_plus", false),
    /** Frames the qdisc took from its ring: each one was sent, is in the backlog, or was dropped under a reason. */
    QDISC_RING_TAKEN(1117, "qdisc_ring_taken", false),
    /** Packets a graceful stop could not send by its deadline (left in the ring, the backlog or the driver). */
    QDISC_DROP_SHUTDOWN(1118, "qdisc_drop_shutdown", false),
    /** Packets of a {@code tx_burst} that failed (a negative errno): the driver consumed them (§4.5). */
    QDISC_DROP_DRIVER_ERROR(1119, "qdisc_drop_driver_error", false),
    /** Turns of the qdisc run by a sender in its own context, not by the qdisc's actor (kernel-semantics §4.4). */
    QDISC_SENDER_RUNS(1120, "qdisc_sender_runs", false),
    /**
     * Packets a sender handed to the qdisc directly, never through its ring (kernel-semantics §4.4a): each one was
     * sent, is in the backlog, or was dropped under a reason, as a frame taken from the ring.
     */
    QDISC_DIRECT(1121, "qdisc_direct", false),

    TXQ_COMPLETED_PACKETS(1200, "txq_completed_packets", false),
    TXQ_COMPLETED_BYTES(1201, "txq_completed_bytes", false),
    TXQ_STOPS(1202, "txq_stops", false),
    TXQ_WAKES(1203, "txq_wakes", false),
    TXQ_DRIVER_ERRORS(1204, "txq_driver_errors", false),
    TXQ_BQL_LIMIT(1205, "txq_bql_limit", true),
    TXQ_INFLIGHT_BYTES(1206, "txq_inflight_bytes", true),
    /** Times the TX watchdog found the queue stopped too long and reset it (kernel-semantics §8). */
    TXQ_WATCHDOG_RESETS(1207, "txq_watchdog_resets", false),
    /** Packets still in the driver's ring, not completed, when a graceful stop's deadline came. */
    TXQ_DROP_SHUTDOWN(1208, "txq_drop_shutdown", false),
    /** 1 while the TX queue is stopped (driver ring full or BQL), as of the TX watchdog's last look. */
    TXQ_STOPPED(1209, "txq_stopped", true),
    /**
     * Reaps of the TX queue's completions a sender ran in its own context after its burst, the channel's token won
     * (kernel-semantics §7.7).
     */
    TXQ_SENDER_REAPS(1210, "txq_sender_reaps", false),

    SOCKET_SENT(1300, "socket_sent", false),
    SOCKET_SEND_BACKPRESSURED(1301, "socket_send_backpressured", false),
    SOCKET_SEND_REFUSED(1302, "socket_send_refused", false),
    SOCKET_RECEIVED(1303, "socket_received", false),
    SOCKET_DELIVERED(1304, "socket_delivered", false),
    /** Per port: what the sockets closed so far had sent (their own counters are gone), for the accounting. */
    SOCKET_SENT_RETIRED(1305, "socket_sent_retired", false),
    /** Datagrams whose handler threw (each still counts as delivered: the application had it). */
    SOCKET_HANDLER_FAILED(1306, "socket_handler_failed", false),
    /** Per port: what the sockets closed so far had delivered (their own counters are gone), for the accounting. */
    SOCKET_DELIVERED_RETIRED(1307, "socket_delivered_retired", false),
    /** Per port: datagrams left unread in a socket's receive ring when it closed or the pipeline stopped. */
    SOCKET_DROP_CLOSED(1308, "socket_drop_closed", false),

    /** Restarts of one pipeline actor by its supervisor, labelled with the actor ({@code stage=qdisc}, …). */
    STAGE_RESTARTS(1400, "stage_restarts", false),

    /** Per port: frames the host actor took from its ring (ARP, ICMP, UDP to a closed port, frames to hold). */
    HOST_RX(1500, "host_rx", false),
    /** Per port: frames not handed to the host actor because its ring was full. */
    HOST_DROP_RING_FULL(1501, "host_drop_ring_full", false),
    /** Per TX queue: frames the host actor put into the queue's ring (its answers and released held frames). */
    HOST_TX(1502, "host_tx", false),
    /** Per port: frames the host actor could not put into a TX queue's ring (full). */
    HOST_TX_DROP_RING_FULL(1503, "host_tx_drop_ring_full", false),
    HOST_ARP_REPLIES(1504, "host_arp_replies", false),
    HOST_ARP_REQUESTS(1505, "host_arp_requests", false),
    HOST_ICMP_ECHO_REPLIES(1506, "host_icmp_echo_replies", false),
    HOST_ICMP_PORT_UNREACHABLE(1507, "host_icmp_port_unreachable", false),
    /** Port unreachable errors the ICMP rate limit suppressed. */
    HOST_ICMP_RATE_LIMITED(1508, "host_icmp_rate_limited", false),
    /** Frames the host actor took and did not answer: malformed, not for the port's address, or not asking. */
    HOST_IGNORED(1509, "host_ignored", false),
    /** Frames held in the neighbour table while their next hop resolved. */
    NEIGH_HELD(1510, "neigh_held", false),
    NEIGH_DROP_HOLD_FULL(1511, "neigh_drop_hold_full", false),
    NEIGH_DROP_UNRESOLVED(1512, "neigh_drop_unresolved", false),
    NEIGH_DROP_TABLE_FULL(1513, "neigh_drop_table_full", false),
    NEIGH_DROP_BAD_LENGTH(1514, "neigh_drop_bad_length", false),
    /** Datagrams held for a next hop's resolution, or handed to the host to hold, when the pipeline stopped. */
    NEIGH_DROP_SHUTDOWN(1515, "neigh_drop_shutdown", false),
    /** Datagrams handed to the host to hold whose handling threw (the host actor restarted): never sent. */
    NEIGH_DROP_FAILED(1516, "neigh_drop_failed", false),
    /** Received frames whose handling threw (the host actor restarted): not answered. */
    HOST_DROP_FAILED(1517, "host_drop_failed", false),
    /** Per port: received frames the RX queues put into the host ring (ARP, ICMP, UDP to a closed port). */
    HOST_RX_QUEUED(1518, "host_rx_queued", false),
    /** Per port: received frames the host actor took from its ring, or a stop emptied from it ({@code host_rx}
     *  also counts the frames senders hand over to hold). */
    HOST_RX_FRAMES(1519, "host_rx_frames", false),


    /** Trace events written into the trace ring. */
    TRACE_EVENTS(1600, "trace_events", false),
    /** Trace events dropped because the trace ring was full (the packets themselves go on). */
    TRACE_DROPPED(1601, "trace_dropped", false),
    /** Packets traced per queue: on an RX queue as they arrive, on a TX queue as a socket sends them. */
    TRACE_PACKETS(1602, "trace_packets", false),

    /** Per RX queue, the device's own count (mirrored): frames it placed in the queue's RX ring. */
    NIC_RX_PACKETS(1700, "nic_rx_packets", false),
    /** Per RX queue, the device's own count (mirrored): frames that found the RX ring full. */
    NIC_RX_MISSED(1701, "nic_rx_missed", false),
    /** Per RX queue, the device's own count (mirrored): frames removed by fault injection. */
    NIC_RX_DROPPED(1702, "nic_rx_dropped", false),

    /** Per RX queue (its channel): loops of sockets busy-polling it (kernel-semantics §9.2). */
    BUSY_POLL_LOOPS(1800, "busy_poll_loops", false),
    /** Per RX queue: polls a busy-polling socket made of it, each up to the busy-poll budget. */
    BUSY_POLL_POLLS(1801, "busy_poll_polls", false),
    /** Per RX queue: frames the busy pollers took and handed on (a share of {@code rx_packets}). */
    BUSY_POLL_PACKETS(1802, "busy_poll_packets", false),
    /** Per RX queue: channels handed back by busy pollers, with the interrupt armed or, preferring busy polling, off. */
    BUSY_POLL_HANDBACKS(1803, "busy_poll_handbacks", false);

    private final int typeId;
    private final String label;
    private final boolean gauge;

    CounterType(final int typeId, final String label, final boolean gauge)
    {
        this.typeId = typeId;
        this.label = label;
        this.gauge = gauge;
    }

    /**
     * @return the id stored with each counter of this kind, stable across releases.
     */
    public int typeId()
    {
        return typeId;
    }

    /**
     * @return the snake-case prefix of each counter label of this kind, stable across releases.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return true when the value is a level that goes up and down (a reader shows it as is), false when it only
     * grows (a reader shows its rate).
     */
    public boolean isGauge()
    {
        return gauge;
    }
}
