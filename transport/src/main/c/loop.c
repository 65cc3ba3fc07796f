/*
 * The loop backend: two ports back to back, like a veth pair. What port A transmits port B receives, and the
 * other way round.
 *
 * A frame's life: tx_burst puts it in a slot of a TX ring. The wire takes it from there when the port's token
 * bucket allows, serving the port's TX queues round robin and each in order, and delivers it to the peer's RX
 * queue that RSS picks. From then it is a completion, but like on a real NIC its TX slot stays occupied until
 * tx_reclaim hands the completion back to the driver; so rings really fill when nobody reclaims. On the
 * receiving side a frame occupies its RX slot from arrival through rx_burst until rx_release.
 *
 * Without a rate every frame leaves in the call that sends it, so it goes from the caller's buffer straight
 * into the peer's RX ring: its TX slot is taken, but never written, since nothing could read it. Only a rate
 * or a stalled queue makes frames wait in TX slots, and only then are their bytes copied there.
 *
 * There is no thread: the wire moves inside the calls (tx_burst, tx_reclaim, the peer's rx_burst, fault,
 * and irq_wait while frames wait), reading the clock once per call, and only when a rate is set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "shim.h"

/*
 * Builds under AddressSanitizer (the C tests) end every slot with a poisoned redzone, so that a copy longer
 * than the largest frame is reported rather than spilling silently into the next slot of the same mapping.
 * The redzone is poisoned whenever its slot is written: poisoning every slot at open would cost the shadow
 * of the whole mapping, most of which a large ring never touches.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SLOT_REDZONE 64
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOT_REDZONE 64
#endif
#endif
#ifdef SLOT_REDZONE
#include <sanitizer/asan_interface.h>
#else
#define SLOT_REDZONE 0
#define ASAN_POISON_MEMORY_REGION(address, size) ((void)(address), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(address, size) ((void)(address), (void)(size))
#endif

/* Frames the wire carries between two rounds of RX queue locking. */
#define WIRE_BATCH 64
#define BATCH_END UINT8_MAX
_Static_assert(WIRE_BATCH < BATCH_END, "batch indexes fit a byte");

struct loop_txq {
    uint8_t *slots;
    uint32_t *lengths;   /* per slot, of frames that wait in it */
    uint32_t head;       /* the slot the next accepted frame takes */
    uint32_t wire;       /* the slot that leaves next */
    uint32_t waiting;    /* accepted, not yet left */
    uint32_t completed;  /* left, not yet reclaimed: the slots just before `wire` */
    struct tx_faults faults;
    uint64_t packets;    /* completed, since open */
    uint64_t bytes;
    uint64_t errors;
    uint64_t reclaimed_bytes;  /* `bytes` at the last reclaim */
};

struct rx_slot {
    uint32_t length;
    uint32_t hash;
};

struct loop_rxq {
    _Alignas(64) pthread_mutex_t lock;  /* each queue has its own consumer thread, so its own cache lines */
    uint8_t *slots;
    struct rx_slot *meta;
    uint32_t tail;   /* the slot the next arriving frame takes */
    uint32_t next;   /* the slot rx_burst hands out next */
    uint32_t ready;  /* arrived, not handed out */
    uint32_t out;    /* handed out, not released: the slots just before `next` */
    struct rx_faults faults;
    struct rx_counters counters;
};

/*
 * A token bucket in billionths of a packet or bit, so that a rate in units/s adds `rate` per nanosecond. The
 * depth (the burst an idle wire may send at once) is small; but while frames wait, the wire is busy all the
 * time, so a gap between two calls is credited in full then, not cut to the depth.
 */
struct bucket {
    uint64_t rate;
    uint64_t depth;
    uint64_t tokens;
};

struct loop_port {
    struct nic_port *port;
    struct loop_port *peer;
    struct loop_txq *txq;
    struct loop_rxq *rxq;
    uint32_t tx_queues;
    uint32_t rx_queues;
    uint32_t ring;
    uint32_t max_frame;
    size_t stride;       /* bytes per slot */
    uint8_t *memory;     /* every slot of the port, one mapping */
    size_t memory_size;
    uint32_t *tx_lengths;
    struct rx_slot *rx_meta;
    /*
     * TX queues with frames waiting that may leave; written under tx_lock (only when it changes), read by
     * every rx_burst of the peer, so on a line of its own, apart from the wire's state that every advance
     * writes.
     */
    _Alignas(64) _Atomic uint64_t active;
    _Alignas(64) uint32_t cursor;  /* the TX queue served next */
    bool rated;
    bool backlogged;     /* frames were waiting when the wire last moved */
    uint64_t last_ns;
    struct bucket packets;
    struct bucket bits;
};

/* A frame leaving the wire on its way to an RX queue. */
struct departure {
    const uint8_t *data;
    uint32_t length;
    uint32_t hash;
    uint8_t next;  /* the next frame of the batch for the same RX queue */
};

/* What a descriptor that turned invalid after validation sends instead of the caller's bytes. */
static const uint8_t blank_frame[XMIT_NIC_MIN_FRAME];

/*
 * Reads a caller's TX descriptor exactly once, when its frame is copied. nic.c has validated it, but only
 * from the caller's memory, which a caller racing its own descriptors may have changed since; so what is
 * read here is checked again, and a frame that is no longer valid leaves as XMIT_NIC_MIN_FRAME zero bytes.
 * A copy therefore never exceeds a slot nor reads address 0, and the counters add up what really left.
 */
static struct departure take_frame(const struct loop_port *lp, const xmit_nic_desc *d)
{
    const uint64_t address = __atomic_load_n(&d->address, __ATOMIC_RELAXED);
    const uint32_t length = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
    if (address == 0 || address + length < address || length == 0 || length > lp->max_frame)
        return (struct departure){.data = blank_frame, .length = sizeof blank_frame};
    return (struct departure){.data = (const uint8_t *)(uintptr_t)address, .length = length};
}

static uint64_t wire_clock(const struct loop_port *lp)
{
    return lp->rated ? clock_ns() : 0;
}

static uint8_t *slot_at(const struct loop_port *lp, uint8_t *slots, uint32_t index)
{
    return slots + (size_t)index * lp->stride;
}

/* A slot about to receive a frame, its redzone (if any) poisoned. */
static uint8_t *slot_to_write(const struct loop_port *lp, uint8_t *slots, uint32_t index)
{
    uint8_t *slot = slot_at(lp, slots, index);
    ASAN_POISON_MEMORY_REGION(slot + lp->max_frame, lp->stride - lp->max_frame);
    return slot;
}

static uint32_t advance(const struct loop_port *lp, uint32_t index, uint32_t by)
{
    index += by;
    return index >= lp->ring ? index - lp->ring : index;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Depth: about a millisecond of the rate, so bursts stay short, but never less than `least`. */
static void bucket_init(struct bucket *b, uint64_t rate, uint64_t least)
{
    if (rate == 0)
        return;
    b->rate = rate;
    b->depth = max_u64(rate * (NS_PER_S / 1000), least);
    b->tokens = b->depth;
}

static void bucket_refill(struct bucket *b, uint64_t elapsed_ns, bool backlogged)
{
    uint64_t added, tokens;
    if (__builtin_mul_overflow(elapsed_ns, b->rate, &added) || __builtin_add_overflow(b->tokens, added, &tokens))
        tokens = UINT64_MAX;
    b->tokens = backlogged || tokens < b->depth ? tokens : b->depth;
}

/* Credit left once the backlog is gone is idle time, of which the bucket keeps only its depth. */
static void bucket_cap(struct bucket *b)
{
    if (b->tokens > b->depth)
        b->tokens = b->depth;
}

/* What a frame of `length` bytes costs the bits bucket. */
static uint64_t frame_bits(uint32_t length)
{
    return ((uint64_t)length + XMIT_NIC_WIRE_OVERHEAD) * 8 * NS_PER_S;
}

/* Takes what a frame of `length` bytes costs, if both buckets hold enough. */
static bool wire_admits(struct loop_port *lp, uint32_t length)
{
    const uint64_t bits = frame_bits(length);
    if (lp->packets.rate != 0 && lp->packets.tokens < NS_PER_S)
        return false;
    if (lp->bits.rate != 0 && lp->bits.tokens < bits)
        return false;
    if (lp->packets.rate != 0)
        lp->packets.tokens -= NS_PER_S;
    if (lp->bits.rate != 0)
        lp->bits.tokens -= bits;
    return true;
}

/* Nanoseconds until a bucket holds `cost`; 0 for a bucket without a rate. */
static uint64_t shortfall(const struct bucket *b, uint64_t cost)
{
    return b->rate == 0 || b->tokens >= cost ? 0 : (cost - b->tokens + b->rate - 1) / b->rate;
}

/* Recomputes whether TX queue q has frames that may leave; tx_lock held. */
static void update_active(struct loop_port *lp, uint32_t q)
{
    const struct loop_txq *tq = &lp->txq[q];
    const uint64_t before = atomic_load_explicit(&lp->active, memory_order_relaxed);
    const uint64_t active = tq->waiting != 0 && !tq->faults.stalled ? before | 1ull << q : before & ~(1ull << q);
    if (active != before)
        atomic_store_explicit(&lp->active, active, memory_order_relaxed);
}

/*
 * Places one RX queue's frames of a batch (the list from `i` on), in order; the queue's lock held. Returns
 * whether any found room.
 */
static bool arrive(struct loop_port *to, struct loop_rxq *rq, const struct departure *batch, uint32_t i)
{
    const bool faults = rx_faults_armed(&rq->faults);
    uint32_t room = to->ring - rq->ready - rq->out;
    uint32_t tail = rq->tail;
    uint32_t placed = 0;
    uint64_t bytes = 0;
    for (; i != BATCH_END; i = batch[i].next) {
        uint32_t length = batch[i].length;
        if (faults) {
            bool truncate;
            if (rx_faults_drop(&rq->faults, &truncate)) {
                rq->counters.dropped++;
                continue;
            }
            if (truncate && room != 0) {
                length = rx_truncated_length(length);
                rq->counters.truncated++;
            }
        }
        if (room == 0) {
            rq->counters.missed++;
            continue;
        }
        memcpy(slot_to_write(to, rq->slots, tail), batch[i].data, length);
        rq->meta[tail] = (struct rx_slot){.length = length, .hash = batch[i].hash};
        tail = advance(to, tail, 1);
        room--;
        placed++;
        bytes += length;
    }
    rq->tail = tail;
    rq->ready += placed;
    rq->counters.packets += placed;
    rq->counters.bytes += bytes;
    return placed != 0;
}

/*
 * Hands a batch of frames to the receiving port: RSS picks each one's queue, the batch is threaded into one
 * list per queue, and each queue is locked once for all of its frames. Returns the queues that received any.
 * The sender's tx_lock is held, which is what keeps the receiver's RSS settings still.
 */
static uint64_t deliver(struct loop_port *to, struct departure *batch, uint32_t count)
{
    const struct nic_rss *rss = &to->port->rss;
    uint8_t first[XMIT_NIC_MAX_QUEUES], last[XMIT_NIC_MAX_QUEUES];
    uint64_t queues = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct departure *frame = &batch[i];
        frame->hash = rss_hash(rss, frame->data, frame->length);
        const uint32_t q = rss_queue(rss, frame->hash);
        frame->next = BATCH_END;
        if (queues & 1ull << q)
            batch[last[q]].next = (uint8_t)i;
        else
            first[q] = (uint8_t)i;
        last[q] = (uint8_t)i;
        queues |= 1ull << q;
    }
    uint64_t received = 0;
    for (; queues != 0; queues &= queues - 1) {
        const uint32_t q = (uint32_t)__builtin_ctzll(queues);
        struct loop_rxq *rq = &to->rxq[q];
        pthread_mutex_lock(&rq->lock);
        const bool any = arrive(to, rq, batch, first[q]);
        pthread_mutex_unlock(&rq->lock);
        if (any)
            received |= 1ull << q;
    }
    return received;
}

/* The TX queue the round robin serves next among `active`. */
static uint32_t next_queue(uint64_t active, uint32_t cursor)
{
    const uint64_t from_cursor = active & (~0ull << cursor);
    return (uint32_t)__builtin_ctzll(from_cursor != 0 ? from_cursor : active);
}

/*
 * Lets waiting frames leave the TX rings as the buckets allow and delivers them to the peer; tx_lock held.
 * `now` is the caller's clock reading (unused without a rate). Returns the peer's RX queues that received
 * frames, to be signalled once the lock is dropped.
 */
static uint64_t wire_advance(struct loop_port *lp, uint64_t now)
{
    const uint64_t before = atomic_load_explicit(&lp->active, memory_order_relaxed);
    uint64_t active = before;
    if (lp->rated && now > lp->last_ns) {
        /* A caller that read the clock before another one took the lock may bring an older reading. */
        const uint64_t elapsed = now - lp->last_ns;
        lp->last_ns = now;
        if (lp->packets.rate != 0)
            bucket_refill(&lp->packets, elapsed, lp->backlogged);
        if (lp->bits.rate != 0)
            bucket_refill(&lp->bits, elapsed, lp->backlogged);
    }
    struct departure batch[WIRE_BATCH];
    uint32_t count = 0;
    uint64_t received = 0;
    while (active != 0) {
        const uint32_t q = next_queue(active, lp->cursor);
        struct loop_txq *tq = &lp->txq[q];
        const uint32_t length = tq->lengths[tq->wire];
        if (lp->rated && !wire_admits(lp, length))
            break;
        batch[count++] = (struct departure){.data = slot_at(lp, tq->slots, tq->wire), .length = length};
        tq->wire = advance(lp, tq->wire, 1);
        tq->waiting--;
        tq->completed++;
        tq->packets++;
        tq->bytes += length;
        if (tq->waiting == 0)
            active &= ~(1ull << q);
        lp->cursor = q + 1 == lp->tx_queues ? 0 : q + 1;
        if (count == WIRE_BATCH) {
            received |= deliver(lp->peer, batch, count);
            count = 0;
        }
    }
    if (count != 0)
        received |= deliver(lp->peer, batch, count);
    if (active != before)
        atomic_store_explicit(&lp->active, active, memory_order_relaxed);
    if (lp->rated) {
        bucket_cap(&lp->packets);
        bucket_cap(&lp->bits);
        lp->backlogged = active != 0;
    }
    return received;
}

/*
 * Nanoseconds from the wire's last move until the next waiting frame may leave, UINT64_MAX if none waits;
 * tx_lock held. Right after wire_advance, that frame is one the buckets did not admit.
 */
static uint64_t wire_due(const struct loop_port *lp)
{
    const uint64_t active = atomic_load_explicit(&lp->active, memory_order_relaxed);
    if (!lp->rated || active == 0)
        return UINT64_MAX;
    const struct loop_txq *tq = &lp->txq[next_queue(active, lp->cursor)];
    return max_u64(shortfall(&lp->packets, NS_PER_S), shortfall(&lp->bits, frame_bits(tq->lengths[tq->wire])));
}

/* Frames that leave at once, from the caller's buffers; the queue has none waiting. tx_lock held. */
static uint64_t send_through(struct loop_port *lp, struct loop_txq *tq, const xmit_nic_desc *descs, uint32_t count)
{
    struct departure batch[WIRE_BATCH];
    uint64_t received = 0;
    for (uint32_t sent = 0; sent < count;) {
        const uint32_t n = count - sent < WIRE_BATCH ? count - sent : WIRE_BATCH;
        for (uint32_t i = 0; i < n; i++) {
            batch[i] = take_frame(lp, &descs[sent + i]);
            tq->bytes += batch[i].length;
        }
        received |= deliver(lp->peer, batch, n);
        sent += n;
    }
    tq->head = advance(lp, tq->head, count);
    tq->wire = tq->head;
    tq->completed += count;
    tq->packets += count;
    return received;
}

/* Frames that must wait for the wire: copied into their TX slots. tx_lock held. */
static void enqueue(struct loop_port *lp, struct loop_txq *tq, const xmit_nic_desc *descs, uint32_t count)
{
    uint32_t head = tq->head;
    for (uint32_t i = 0; i < count; i++) {
        const struct departure frame = take_frame(lp, &descs[i]);
        memcpy(slot_to_write(lp, tq->slots, head), frame.data, frame.length);
        tq->lengths[head] = frame.length;
        head = advance(lp, head, 1);
    }
    tq->head = head;
    tq->waiting += count;
}

static int32_t loop_tx_burst(struct nic_port *port, uint32_t q, const xmit_nic_desc *descs, uint32_t n,
                             uint64_t bytes)
{
    (void)bytes; /* the wire counts bytes as frames leave, and not all n may be accepted */
    struct loop_port *lp = port->backend;
    struct loop_txq *tq = &lp->txq[q];
    const uint64_t now = wire_clock(lp);
    pthread_mutex_lock(&port->tx_lock);
    if (tx_faults_fail(&tq->faults)) {
        tq->errors += n;
        pthread_mutex_unlock(&port->tx_lock);
        return -EIO;
    }
    const uint32_t room = lp->ring - tq->waiting - tq->completed;
    const uint32_t offered = tx_faults_room(&tq->faults, n);
    const uint32_t accepted = offered < room ? offered : room;
    const bool was_backlogged = lp->backlogged;
    uint64_t received;
    if (!lp->rated && !tq->faults.stalled) {
        received = send_through(lp, tq, descs, accepted);
    } else {
        enqueue(lp, tq, descs, accepted);
        update_active(lp, q);
        received = wire_advance(lp, now);
    }
    const bool backlog_began = lp->backlogged && !was_backlogged;
    pthread_mutex_unlock(&port->tx_lock);
    irq_raise(port->peer, received);
    if (backlog_began)
        irq_wire_backlogged(port->device);
    return (int32_t)accepted;
}

static void loop_tx_reclaim(struct nic_port *port, uint32_t q, xmit_nic_completion *out)
{
    struct loop_port *lp = port->backend;
    struct loop_txq *tq = &lp->txq[q];
    const uint64_t now = wire_clock(lp);
    pthread_mutex_lock(&port->tx_lock);
    const uint64_t received = lp->rated ? wire_advance(lp, now) : 0;
    const xmit_nic_completion done = {.packets = tq->completed, .bytes = tq->bytes - tq->reclaimed_bytes};
    tq->completed = 0;
    tq->reclaimed_bytes = tq->bytes;
    pthread_mutex_unlock(&port->tx_lock);
    irq_raise(port->peer, received);
    *out = done;
}

static uint32_t loop_rx_burst(struct nic_port *port, uint32_t q, xmit_nic_desc *descs, uint32_t n)
{
    struct loop_port *lp = port->backend;
    struct loop_port *sender = lp->peer;
    /*
     * Without a rate the sender's wire is never behind: its frames leave in the call that sends them. With
     * one, a poller does not queue for the sender's lock on every poll: whoever holds it is mostly moving the
     * wire itself (statistics and RSS calls hold it briefly without), so this poll takes what has arrived
     * and the next one tries again.
     */
    if (sender->rated && atomic_load_explicit(&sender->active, memory_order_relaxed) != 0) {
        const uint64_t now = clock_ns();
        if (pthread_mutex_trylock(&sender->port->tx_lock) == 0) {
            const uint64_t received = wire_advance(sender, now);
            pthread_mutex_unlock(&sender->port->tx_lock);
            irq_raise(port, received);
        }
    }
    struct loop_rxq *rq = &lp->rxq[q];
    pthread_mutex_lock(&rq->lock);
    const uint32_t count = n < rq->ready ? n : rq->ready;
    uint32_t next = rq->next;
    for (uint32_t i = 0; i < count; i++) {
        descs[i] = (xmit_nic_desc){
            .address = (uint64_t)(uintptr_t)slot_at(lp, rq->slots, next),
            .length = rq->meta[next].length,
            .flags = rq->meta[next].hash,
        };
        next = advance(lp, next, 1);
    }
    rq->next = next;
    rq->ready -= count;
    rq->out += count;
    pthread_mutex_unlock(&rq->lock);
    return count;
}

static int32_t loop_rx_release(struct nic_port *port, uint32_t q, uint32_t n)
{
    struct loop_port *lp = port->backend;
    struct loop_rxq *rq = &lp->rxq[q];
    pthread_mutex_lock(&rq->lock);
    const bool enough = rq->out >= n;
    if (enough)
        rq->out -= n; /* the oldest handed-out slots, furthest before `next`, become free */
    pthread_mutex_unlock(&rq->lock);
    return enough ? 0 : -EINVAL;
}

static void loop_stats(struct nic_port *port, uint32_t q, xmit_nic_queue_stats *out)
{
    struct loop_port *lp = port->backend;
    xmit_nic_queue_stats s = {0};
    if (q < lp->tx_queues) {
        const struct loop_txq *tq = &lp->txq[q];
        pthread_mutex_lock(&port->tx_lock);
        s.tx_packets = tq->packets;
        s.tx_bytes = tq->bytes;
        s.tx_errors = tq->errors;
        s.tx_ring_used = (uint64_t)tq->waiting + tq->completed;
        pthread_mutex_unlock(&port->tx_lock);
    }
    if (q < lp->rx_queues) {
        struct loop_rxq *rq = &lp->rxq[q];
        pthread_mutex_lock(&rq->lock);
        rx_counters_report(&rq->counters, &s);
        pthread_mutex_unlock(&rq->lock);
    }
    *out = s;
}

static void set_rx_fault(struct loop_rxq *rq, uint32_t kind, uint64_t value)
{
    pthread_mutex_lock(&rq->lock);
    rx_faults_set(&rq->faults, kind, value);
    pthread_mutex_unlock(&rq->lock);
}

static void loop_fault(struct nic_port *port, uint32_t kind, uint32_t queue, uint64_t value)
{
    struct loop_port *lp = port->backend;
    if (kind == XMIT_NIC_FAULT_RX_DROP_EVERY || kind == XMIT_NIC_FAULT_RX_TRUNCATE_EVERY) {
        set_rx_fault(&lp->rxq[queue], kind, value);
        return;
    }
    const uint64_t now = wire_clock(lp);
    pthread_mutex_lock(&port->tx_lock);
    const bool was_backlogged = lp->backlogged;
    for (uint32_t q = 0; q < lp->tx_queues; q++) {
        if (kind != XMIT_NIC_FAULT_CLEAR && q != queue)
            continue;
        tx_faults_set(&lp->txq[q].faults, kind, value);
        update_active(lp, q);
    }
    /* A released queue's frames leave now, not at the next send (without a rate, nothing else would wait). */
    const uint64_t received = wire_advance(lp, now);
    const bool backlog_began = lp->backlogged && !was_backlogged;
    pthread_mutex_unlock(&port->tx_lock);
    irq_raise(port->peer, received);
    if (backlog_began)
        irq_wire_backlogged(port->device);
    if (kind == XMIT_NIC_FAULT_CLEAR) {
        for (uint32_t q = 0; q < lp->rx_queues; q++)
            set_rx_fault(&lp->rxq[q], kind, 0);
    }
}

/*
 * A poll that does not wait for the lock: whoever holds it may leave frames waiting, so irq_wait looks
 * again after WIRE_RETRY_NS.
 */
#define WIRE_RETRY_NS NS_PER_MS

static uint64_t loop_wire_poll(struct nic_port *port)
{
    struct loop_port *lp = port->backend;
    if (!lp->rated)
        return UINT64_MAX;
    const uint64_t now = clock_ns();
    if (pthread_mutex_trylock(&port->tx_lock) != 0)
        return WIRE_RETRY_NS;
    const uint64_t received = wire_advance(lp, now);
    const uint64_t due = wire_due(lp);
    pthread_mutex_unlock(&port->tx_lock);
    irq_raise(port->peer, received);
    return due;
}

static void loop_close(struct nic_device *device)
{
    for (uint32_t p = 0; p < device->ports; p++) {
        struct loop_port *lp = device->port[p].backend;
        if (lp == NULL)
            continue;
        if (lp->memory != NULL) {
            /* Whatever maps these addresses next must not inherit the redzones. */
            ASAN_UNPOISON_MEMORY_REGION(lp->memory, lp->memory_size);
            munmap(lp->memory, lp->memory_size);
        }
        if (lp->rxq != NULL) {
            for (uint32_t q = 0; q < lp->rx_queues; q++)
                pthread_mutex_destroy(&lp->rxq[q].lock);
        }
        free(lp->rx_meta);
        free(lp->tx_lengths);
        free(lp->rxq);
        free(lp->txq);
        free(lp);
        device->port[p].backend = NULL;
    }
}

static int32_t open_port(struct nic_device *device, struct nic_port *port)
{
    const struct nic_config *c = &device->config;
    struct loop_port *lp = aligned_alloc(_Alignof(struct loop_port), sizeof *lp);
    if (lp == NULL)
        return -ENOMEM;
    memset(lp, 0, sizeof *lp);
    port->backend = lp;
    lp->port = port;
    lp->tx_queues = c->tx_queues;
    lp->ring = c->ring;
    lp->max_frame = c->max_frame;
    /* Whole cache lines per slot: frames never share one, and copies start aligned. */
    lp->stride = ((size_t)c->max_frame + 63) / 64 * 64 + SLOT_REDZONE;
    lp->txq = calloc(c->tx_queues, sizeof *lp->txq);
    lp->rxq = aligned_alloc(_Alignof(struct loop_rxq), c->rx_queues * sizeof *lp->rxq);
    lp->tx_lengths = calloc((size_t)c->tx_queues * c->ring, sizeof *lp->tx_lengths);
    lp->rx_meta = calloc((size_t)c->rx_queues * c->ring, sizeof *lp->rx_meta);
    if (lp->txq == NULL || lp->rxq == NULL || lp->tx_lengths == NULL || lp->rx_meta == NULL)
        return -ENOMEM;
    memset(lp->rxq, 0, c->rx_queues * sizeof *lp->rxq);
    lp->rx_queues = c->rx_queues;
    for (uint32_t q = 0; q < c->rx_queues; q++)
        pthread_mutex_init(&lp->rxq[q].lock, NULL);
    /* Reserve no swap: large rings cost only the pages that frames actually touch. */
    const size_t ring_size = (size_t)c->ring * lp->stride;
    lp->memory_size = (c->tx_queues + c->rx_queues) * ring_size;
    void *memory = mmap(NULL, lp->memory_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (memory == MAP_FAILED)
        return -ENOMEM;
    lp->memory = memory;
    for (uint32_t q = 0; q < c->tx_queues; q++) {
        lp->txq[q].slots = lp->memory + q * ring_size;
        lp->txq[q].lengths = lp->tx_lengths + (size_t)q * c->ring;
    }
    for (uint32_t q = 0; q < c->rx_queues; q++) {
        lp->rxq[q].slots = lp->memory + (c->tx_queues + q) * ring_size;
        lp->rxq[q].meta = lp->rx_meta + (size_t)q * c->ring;
    }
    lp->rated = c->rate_pps != 0 || c->rate_bps != 0;
    bucket_init(&lp->packets, c->rate_pps, NS_PER_S);
    bucket_init(&lp->bits, c->rate_bps, ((uint64_t)c->max_frame + XMIT_NIC_WIRE_OVERHEAD) * 8 * NS_PER_S);
    lp->last_ns = clock_ns();
    return 0;
}

static int32_t loop_open(struct nic_device *device)
{
    for (uint32_t p = 0; p < device->ports; p++) {
        const int32_t rc = open_port(device, &device->port[p]);
        if (rc != 0)
            return rc;
    }
    for (uint32_t p = 0; p < device->ports; p++) {
        struct loop_port *lp = device->port[p].backend;
        lp->peer = device->port[p].peer->backend;
    }
    return 0;
}

const struct nic_backend loop_backend = {
    .ports = 2,
    .open = loop_open,
    .close = loop_close,
    .tx_burst = loop_tx_burst,
    .tx_reclaim = loop_tx_reclaim,
    .rx_burst = loop_rx_burst,
    .rx_release = loop_rx_release,
    .stats = loop_stats,
    .fault = loop_fault,
    .wire_poll = loop_wire_poll,
};
