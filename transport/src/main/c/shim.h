/*
 * The shim's insides, shared by its files: the device model every backend fills in, and the small interfaces
 * between the parts (spec parsing, RSS, interrupts, backends). Nothing here is exported from the library.
 *
 * Locks, always taken in this order and never the other way round (a thread holding a later one never waits
 * for an earlier one):
 *   1. the device table mutex (nic.c)        open and close only, never held while taking the others
 *   2. a port's tx_lock                      the port's TX rings, its wire, and the RSS settings of the port
 *                                            it sends to (the wire applies them)
 *   3. a receive queue's lock (loop.c)       that RX ring, its counters and its faults
 *   3'. a null TX queue's lock (null.c)      that queue's counters and faults; taken alone
 *   3''. an afpacket queue's TX or RX lock   that queue's socket side, counters and faults; taken alone
 * An afpacket port has no wire: its tx_lock only guards the RSS settings, which rx_burst reads holding it
 * alone, after it has dropped the RX queue's lock.
 * A loop wire holds its port's tx_lock while it takes the peer's RX queue locks one at a time; rx_burst
 * advances the peer's wire first (if it gets the peer's tx_lock without waiting) and takes its own RX queue
 * lock only after releasing the peer's tx_lock. irq_wait, too, only tries a tx_lock, never waits for one.
 */
#ifndef XMIT_SHIM_H
#define XMIT_SHIM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "xmit_nic.h"

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "the shim assumes a 64-bit target");
_Static_assert(XMIT_NIC_MAX_QUEUES <= 64, "queue sets are 64-bit masks");

#define NS_PER_S 1000000000ull
#define NS_PER_MS 1000000ull

static inline uint64_t clock_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * NS_PER_S + (uint64_t)now.tv_nsec;
}

/* What a spec string asks for. */
struct nic_config {
    uint32_t backend;   /* XMIT_NIC_BACKEND_* */
    uint32_t tx_queues;
    uint32_t rx_queues;
    uint32_t ring;
    uint32_t max_frame;
    uint64_t rate_pps;
    uint64_t rate_bps;
    char interface[16];  /* afpacket: the interface's name (IFNAMSIZ with its NUL) */
};

/* Writes a message to err (if any; truncated and terminated within err_len) and returns rc. */
int32_t report(int32_t rc, char *err, uint32_t err_len, const char *format, ...) __attribute__((format(printf, 4, 5)));

/* Parses a spec (grammar in xmit_nic.h); 0, or -EINVAL with a message in err. */
int32_t spec_parse(const char *spec, struct nic_config *config, char *err, uint32_t err_len);

/* --- Receive-side scaling (rss.c) --- */

/* The longest Toeplitz input: IPv6 source and destination addresses and the two ports. */
#define RSS_INPUT_MAX 36

struct nic_rss {
    uint8_t key[XMIT_NIC_RSS_KEY_LENGTH];
    uint32_t reta[XMIT_NIC_RETA_SIZE];
    /* Per input byte position and byte value, the XOR of the key windows its set bits select. */
    uint32_t table[RSS_INPUT_MAX][256];
};

void rss_init(struct nic_rss *rss, uint32_t rx_queues);
void rss_set_key(struct nic_rss *rss, const uint8_t *key);
/* The frame's Toeplitz hash as a NIC computes it; 0 for frames that are not IPv4/IPv6. */
uint32_t rss_hash(const struct nic_rss *rss, const uint8_t *frame, uint32_t length);

static inline uint32_t rss_queue(const struct nic_rss *rss, uint32_t hash)
{
    return rss->reta[hash % XMIT_NIC_RETA_SIZE];
}

/* --- Devices and ports --- */

struct nic_device;

/*
 * A receive queue's interrupt: its eventfd and whether the consumer asked to be woken. A line of its own:
 * each queue's consumer arms it, and the wire clears it, without disturbing the queues next to it.
 */
struct nic_irq {
    _Alignas(64) int fd;
    atomic_uint armed;
};

/*
 * Cache-line aligned, so the two ports of a device share no line; the TX lock, written by every send, has
 * its own, away from the fields every call on the port only reads.
 */
struct nic_port {
    _Alignas(64) struct nic_device *device;
    struct nic_port *peer;  /* the port that receives what this one sends: the other loop port, or itself */
    uint32_t index;
    struct nic_irq *irq;    /* one per RX queue */
    void *backend;          /* the backend's per-port state */
    _Alignas(64) pthread_mutex_t tx_lock;
    _Alignas(64) struct nic_rss rss;  /* how this port spreads what it receives; changed under peer->tx_lock */
};

/*
 * A backend's operations. nic.c has validated the handle, the queue index for the direction, the sizes and
 * the pointers (and every TX descriptor, whose lengths add up to `bytes`) before it calls one. The
 * descriptors are the caller's memory, though: a backend that reads one again must check it again.
 */
struct nic_backend {
    uint32_t ports;
    /*
     * The RX queues signal through file descriptors of their own (afpacket's sockets, which its open puts in
     * port->irq[q].fd and closes itself) rather than the eventfds irq.c creates and irq_raise writes.
     */
    bool rx_fd_irqs;
    /* The port's interface: MAC and MTU, or NULL for a backend without one. */
    int32_t (*link)(struct nic_port *port, uint8_t *mac, uint32_t *mtu);
    /* Sets up the backend's state of an allocated device; on failure nic.c still calls close. */
    int32_t (*open)(struct nic_device *device);
    void (*close)(struct nic_device *device);
    int32_t (*tx_burst)(struct nic_port *port, uint32_t q, const xmit_nic_desc *descs, uint32_t n,
                        uint64_t bytes);
    void (*tx_reclaim)(struct nic_port *port, uint32_t q, xmit_nic_completion *out);
    uint32_t (*rx_burst)(struct nic_port *port, uint32_t q, xmit_nic_desc *descs, uint32_t n);
    int32_t (*rx_release)(struct nic_port *port, uint32_t q, uint32_t n);
    void (*stats)(struct nic_port *port, uint32_t q, xmit_nic_queue_stats *out);
    void (*fault)(struct nic_port *port, uint32_t kind, uint32_t queue, uint64_t value);
    /*
     * irq_wait's turn at the port's wire: moves it if frames wait and no other call holds it, raising the
     * interrupts of what arrives, and returns the nanoseconds until the next waiting frame may leave
     * (UINT64_MAX when none waits), so that a receiver asleep in irq_wait still sees a rated wire deliver.
     */
    uint64_t (*wire_poll)(struct nic_port *port);
};

extern const struct nic_backend null_backend;
extern const struct nic_backend loop_backend;
extern const struct nic_backend afpacket_backend;

/* Room for a backend open's own message, which says better than an errno what is wrong and how to fix it. */
#define NIC_ERROR_MAX 256

struct nic_device {
    const struct nic_backend *backend;
    struct nic_config config;
    uint32_t ports;
    int epoll_fd;
    int shutdown_fd;
    int wire_fd;          /* in the epoll set: written when a wire gets frames waiting while a wait sleeps */
    atomic_bool waiting;  /* a thread is in irq_wait, between looking at the wires and waking */
    atomic_bool shut_down;
    char error[NIC_ERROR_MAX];  /* written by a backend's open that fails, if it can say more than an errno */
    struct nic_port port[XMIT_NIC_MAX_PORTS];
};

/* --- Interrupts (irq.c) --- */

/* Creates the eventfds and the epoll set of an opened device; 0 or a negative errno (-ENFILE when out of
 * file descriptors). */
int32_t irq_open(struct nic_device *device);
/* Closes whatever irq_open created, also after a partial irq_open. */
void irq_close(struct nic_device *device);
/* Signals each armed queue in `queues` (a mask of the port's RX queues that just received frames) once. */
void irq_raise(struct nic_port *port, uint64_t queues);
void irq_arm(struct nic_port *port, uint32_t q, bool armed);
/*
 * A wire of the device has just got frames waiting (under its tx_lock, now released): wakes a waiter that
 * looked at that wire before, so it times its sleep to the frames.
 */
void irq_wire_backlogged(struct nic_device *device);
int32_t irq_wait(struct nic_device *device, uint32_t *out, uint32_t capacity, int32_t timeout_ms);
void irq_shutdown(struct nic_device *device);

/* Every value-th event fires; a zero value never does. */
static inline bool every_nth(uint64_t value, uint64_t *count)
{
    return value != 0 && ++*count % value == 0;
}

/* --- Injected faults and receive counters, kept alike by every backend that has the queues --- */

/*
 * A TX queue's faults, under the queue's lock: every fail_every-th burst fails; every busy_every-th burst takes only
 * its first half, as a driver short of descriptors does; a stalled queue sends nothing.
 */
struct tx_faults {
    bool stalled;
    uint64_t fail_every;
    uint64_t fail_count;
    uint64_t busy_every;
    uint64_t busy_count;
};

/* Sets TX_FAIL_EVERY, TX_BUSY_EVERY or TX_STALL to `value`, or on CLEAR clears them all; the queue's lock held. */
static inline void tx_faults_set(struct tx_faults *faults, uint32_t kind, uint64_t value)
{
    if (kind == XMIT_NIC_FAULT_TX_FAIL_EVERY || kind == XMIT_NIC_FAULT_CLEAR) {
        faults->fail_every = kind == XMIT_NIC_FAULT_CLEAR ? 0 : value;
        faults->fail_count = 0;
    }
    if (kind == XMIT_NIC_FAULT_TX_BUSY_EVERY || kind == XMIT_NIC_FAULT_CLEAR) {
        faults->busy_every = kind == XMIT_NIC_FAULT_CLEAR ? 0 : value;
        faults->busy_count = 0;
    }
    if (kind == XMIT_NIC_FAULT_TX_STALL || kind == XMIT_NIC_FAULT_CLEAR)
        faults->stalled = kind == XMIT_NIC_FAULT_TX_STALL && value != 0;
}

/* Whether this burst is the one in fail_every that fails; counts the burst. */
static inline bool tx_faults_fail(struct tx_faults *faults)
{
    return every_nth(faults->fail_every, &faults->fail_count);
}

/* How many of a burst of n the queue takes: n, or n / 2 for the burst that busy_every makes busy; counts the burst. */
static inline uint32_t tx_faults_room(struct tx_faults *faults, uint32_t n)
{
    return every_nth(faults->busy_every, &faults->busy_count) ? n / 2 : n;
}

/*
 * An RX queue's faults, under the queue's lock: every drop_every-th arrival is dropped, every truncate_every-th
 * cut short.
 */
struct rx_faults {
    uint64_t drop_every;
    uint64_t drop_count;
    uint64_t truncate_every;
    uint64_t truncate_count;
};

/* Sets RX_DROP_EVERY or RX_TRUNCATE_EVERY to `value`, or on CLEAR clears both; the queue's lock held. */
static inline void rx_faults_set(struct rx_faults *faults, uint32_t kind, uint64_t value)
{
    if (kind == XMIT_NIC_FAULT_RX_DROP_EVERY || kind == XMIT_NIC_FAULT_CLEAR) {
        faults->drop_every = kind == XMIT_NIC_FAULT_CLEAR ? 0 : value;
        faults->drop_count = 0;
    }
    if (kind == XMIT_NIC_FAULT_RX_TRUNCATE_EVERY || kind == XMIT_NIC_FAULT_CLEAR) {
        faults->truncate_every = kind == XMIT_NIC_FAULT_CLEAR ? 0 : value;
        faults->truncate_count = 0;
    }
}

/* Whether either RX fault is set, so that an arrival has anything to count. */
static inline bool rx_faults_armed(const struct rx_faults *faults)
{
    return faults->drop_every != 0 || faults->truncate_every != 0;
}

/*
 * Counts one arrival against both RX faults (each counts every arrival, whatever becomes of it): returns
 * whether it is to be dropped, and sets *truncate to whether it is to be cut to rx_truncated_length.
 */
static inline bool rx_faults_drop(struct rx_faults *faults, bool *truncate)
{
    const bool drop = every_nth(faults->drop_every, &faults->drop_count);
    *truncate = every_nth(faults->truncate_every, &faults->truncate_count);
    return drop;
}

/* A truncated frame keeps half its bytes, at least one. */
static inline uint32_t rx_truncated_length(uint32_t length)
{
    return length / 2 > 0 ? length / 2 : 1;
}

/* What an RX queue counts for its statistics, under the queue's lock. */
struct rx_counters {
    uint64_t packets;
    uint64_t bytes;
    uint64_t missed;
    uint64_t dropped;
    uint64_t truncated;
};

static inline void rx_counters_report(const struct rx_counters *counters, xmit_nic_queue_stats *out)
{
    out->rx_packets = counters->packets;
    out->rx_bytes = counters->bytes;
    out->rx_missed = counters->missed;
    out->rx_dropped = counters->dropped;
    out->rx_truncated = counters->truncated;
}

#endif
