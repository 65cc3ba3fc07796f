/*
 * The null backend: one port that accepts every frame, counts it and lets it go. Benchmarks of everything
 * above the driver run on it, so a burst costs the validation in nic.c plus one lock and a few additions
 * here. Each TX queue has its own lock rather than sharing the port's: there is no wire to share, and
 * queues driven from different threads then never meet.
 *
 * Frames complete the moment they are accepted (tx_packets and tx_bytes count them then) and the ring never
 * fills. A stalled queue still accepts but holds its completions back until it is released, which is what a
 * driver above sees of a hung NIC queue. Nothing ever arrives, so receive faults have nothing to act on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct null_txq {
    _Alignas(64) pthread_mutex_t lock;
    struct tx_faults faults;
    uint64_t packets;  /* accepted, since open */
    uint64_t bytes;
    uint64_t errors;
    uint64_t reclaimed_packets;  /* `packets` and `bytes` at the last reclaim that returned them */
    uint64_t reclaimed_bytes;
};

static struct null_txq *queues_of(struct nic_port *port)
{
    return port->backend;
}

static int32_t null_tx_burst(struct nic_port *port, uint32_t q, const xmit_nic_desc *descs, uint32_t n,
                             uint64_t bytes)
{
    struct null_txq *tq = &queues_of(port)[q];
    pthread_mutex_lock(&tq->lock);
    const bool fail = tx_faults_fail(&tq->faults);
    const uint32_t accepted = fail ? 0 : tx_faults_room(&tq->faults, n);
    if (fail) {
        tq->errors += n;
    } else if (accepted == n) {
        tq->packets += n;
        tq->bytes += bytes;
    } else {
        /* Nothing is sent, so only a busy burst's lengths are read past the validation. */
        for (uint32_t i = 0; i < accepted; i++)
            tq->bytes += __atomic_load_n(&descs[i].length, __ATOMIC_RELAXED);
        tq->packets += accepted;
    }
    pthread_mutex_unlock(&tq->lock);
    return fail ? -EIO : (int32_t)accepted;
}

static void null_tx_reclaim(struct nic_port *port, uint32_t q, xmit_nic_completion *out)
{
    struct null_txq *tq = &queues_of(port)[q];
    xmit_nic_completion done = {0};
    pthread_mutex_lock(&tq->lock);
    if (!tq->faults.stalled) {
        done.packets = tq->packets - tq->reclaimed_packets;
        done.bytes = tq->bytes - tq->reclaimed_bytes;
        tq->reclaimed_packets = tq->packets;
        tq->reclaimed_bytes = tq->bytes;
    }
    pthread_mutex_unlock(&tq->lock);
    *out = done;
}

static uint32_t null_rx_burst(struct nic_port *port, uint32_t q, xmit_nic_desc *descs, uint32_t n)
{
    (void)port, (void)q, (void)descs, (void)n;
    return 0;
}

static int32_t null_rx_release(struct nic_port *port, uint32_t q, uint32_t n)
{
    (void)port, (void)q, (void)n;
    return -EINVAL; /* nothing was ever handed out, and n is at least 1 */
}

static void null_stats(struct nic_port *port, uint32_t q, xmit_nic_queue_stats *out)
{
    xmit_nic_queue_stats s = {0};
    if (q < port->device->config.tx_queues) {
        struct null_txq *tq = &queues_of(port)[q];
        pthread_mutex_lock(&tq->lock);
        s.tx_packets = tq->packets;
        s.tx_bytes = tq->bytes;
        s.tx_errors = tq->errors;
        pthread_mutex_unlock(&tq->lock);
    }
    *out = s;
}

static void null_fault(struct nic_port *port, uint32_t kind, uint32_t queue, uint64_t value)
{
    if (kind == XMIT_NIC_FAULT_RX_DROP_EVERY || kind == XMIT_NIC_FAULT_RX_TRUNCATE_EVERY)
        return;
    for (uint32_t q = 0; q < port->device->config.tx_queues; q++) {
        if (kind != XMIT_NIC_FAULT_CLEAR && q != queue)
            continue;
        struct null_txq *tq = &queues_of(port)[q];
        pthread_mutex_lock(&tq->lock);
        tx_faults_set(&tq->faults, kind, value);
        pthread_mutex_unlock(&tq->lock);
    }
}

static uint64_t null_wire_poll(struct nic_port *port)
{
    (void)port;
    return UINT64_MAX; /* no wire: frames complete as they are accepted, and nothing arrives */
}

static int32_t null_open(struct nic_device *device)
{
    const uint32_t count = device->config.tx_queues;
    struct null_txq *queues = aligned_alloc(_Alignof(struct null_txq), count * sizeof *queues);
    if (queues == NULL)
        return -ENOMEM;
    memset(queues, 0, count * sizeof *queues);
    for (uint32_t q = 0; q < count; q++)
        pthread_mutex_init(&queues[q].lock, NULL);
    device->port[0].backend = queues;
    return 0;
}

static void null_close(struct nic_device *device)
{
    struct null_txq *queues = device->port[0].backend;
    if (queues == NULL)
        return;
    for (uint32_t q = 0; q < device->config.tx_queues; q++)
        pthread_mutex_destroy(&queues[q].lock);
    free(queues);
    device->port[0].backend = NULL;
}

const struct nic_backend null_backend = {
    .ports = 1,
    .open = null_open,
    .close = null_close,
    .tx_burst = null_tx_burst,
    .tx_reclaim = null_tx_reclaim,
    .rx_burst = null_rx_burst,
    .rx_release = null_rx_release,
    .stats = null_stats,
    .fault = null_fault,
    .wire_poll = null_wire_poll,
};
