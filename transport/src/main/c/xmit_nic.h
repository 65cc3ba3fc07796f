/*
 * xmit NIC driver shim: a burst ABI in the spirit of a DPDK poll-mode driver, called from Java through FFM.
 *
 * Handles. xmit_nic_open() opens a device and returns one handle per port (the loop backend has two ports,
 * A and B, back to back; null and afpacket have one). A handle is an opaque positive int64 (slot, port,
 * generation), not a pointer, so every entry point can check it and answer -EBADF for a stale or forged one.
 *
 * Errors are negative errno values; nothing is touched that the caller did not hand over:
 *   -EBADF   unknown, closed or forged handle
 *   -EINVAL  bad queue index, burst size (n <= ring size; n = 0 is an empty burst that returns 0 and reads
 *            no pointer), frame length (1 .. max frame), option or spec
 *   -EFAULT  NULL or misaligned pointer, descriptor address 0, or address + length overflowing
 *   -ENOMEM  allocation failed in open
 *   -EMFILE  too many open devices (XMIT_NIC_MAX_DEVICES)
 *   -ENFILE  open ran out of file descriptors for the device's eventfds and epoll set: the process's limit
 *            (RLIMIT_NOFILE) or the system's. Open passes any other error of epoll or eventfd on as it is
 *            (e.g. -ENOSPC at the epoll watch limit).
 *   -EIO     injected tx_burst failure (XMIT_NIC_FAULT_TX_FAIL_EVERY)
 *   -ENODEV  afpacket: no interface of that name in the caller's network namespace
 *   -EPERM   afpacket: the caller may not open packet sockets (it lacks CAP_NET_RAW)
 *   -EOPNOTSUPP  xmit_nic_port_link on a backend without a real interface (loop, null)
 *   -ECANCELED  xmit_nic_irq_wait woken by xmit_nic_irq_shutdown
 * Arguments are checked in one order, so a call with several bad ones answers predictably: the handle, then
 * the numbers (queue, count, size, kind, value: -EINVAL), then the pointers (-EFAULT), then what they point
 * to. In a TX burst the first bad descriptor decides; within one, the address (-EFAULT) comes before the
 * length and flags (-EINVAL).
 *
 * Threads. Every entry point may be called from any thread, and calls on different queues (and tx_burst and
 * tx_reclaim on the same queue) may overlap: the shim serialises what it must (a lock per port's transmit
 * side, one per RX queue). rx_burst/rx_release on one RX queue must come from one thread at a time.
 * xmit_nic_close racing any other call on the same device is undefined behaviour (that call may still be
 * using what close frees), and the caller must rule it out; calls that start after close has returned get
 * -EBADF.
 */
#ifndef XMIT_NIC_H
#define XMIT_NIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: only the entry points below are exported. */
#define XMIT_NIC_API __attribute__((visibility("default")))

#define XMIT_NIC_ABI_VERSION 1
#define XMIT_NIC_MAX_DEVICES 256
#define XMIT_NIC_MAX_PORTS 2
#define XMIT_NIC_MAX_QUEUES 64
#define XMIT_NIC_MIN_RING 2
#define XMIT_NIC_MAX_RING 65536
#define XMIT_NIC_MIN_FRAME 64
#define XMIT_NIC_MAX_FRAME 16384
#define XMIT_NIC_DEFAULT_FRAME 2048
#define XMIT_NIC_RSS_KEY_LENGTH 40
#define XMIT_NIC_RETA_SIZE 128
/* Ethernet wire overhead per frame counted by a bits/s rate: preamble+SFD 8, FCS 4, inter-frame gap 12. */
#define XMIT_NIC_WIRE_OVERHEAD 24

/*
 * A burst descriptor, 16 bytes, in arrays the caller allocates (8-byte aligned at least).
 * TX: address and length of a frame the caller owns; the shim copies the bytes before tx_burst returns.
 *     flags must be 0 (reserved). The caller must leave descriptors and frames alone during the call; one
 *     that changes them anyway gets garbage frames, never a shim write out of bounds or a read of address 0:
 *     the shim re-checks each descriptor when it copies the frame and sends one that has turned invalid as
 *     XMIT_NIC_MIN_FRAME zero bytes (the validation before, done on the same memory, may then have passed).
 * RX: filled by rx_burst; address points into a shim-owned buffer valid until rx_release; flags holds the
 *     frame's 32-bit Toeplitz RSS hash (0 for frames that are not IPv4/IPv6), as a NIC reports it.
 */
typedef struct xmit_nic_desc {
    uint64_t address;
    uint32_t length;
    uint32_t flags;
} xmit_nic_desc;

typedef struct xmit_nic_info {
    uint32_t abi_version;   /* XMIT_NIC_ABI_VERSION */
    uint32_t backend;       /* XMIT_NIC_BACKEND_* */
    uint32_t ports;         /* ports of the device this handle belongs to */
    uint32_t port;          /* this handle's port index (0 = A, 1 = B) */
    uint32_t tx_queues;
    uint32_t rx_queues;
    uint32_t ring_size;     /* descriptors per TX ring and per RX ring */
    uint32_t max_frame;     /* the largest frame length accepted, in bytes */
    uint64_t rate_pps;      /* wire rate in packets/s, 0 = unlimited */
    uint64_t rate_bps;      /* wire rate in bits/s (with XMIT_NIC_WIRE_OVERHEAD), 0 = unlimited */
} xmit_nic_info;

#define XMIT_NIC_BACKEND_NULL 0
#define XMIT_NIC_BACKEND_LOOP 1
#define XMIT_NIC_BACKEND_AFPACKET 2

/* Completions since the previous xmit_nic_tx_reclaim on that queue. */
typedef struct xmit_nic_completion {
    uint64_t packets;
    uint64_t bytes;
} xmit_nic_completion;

/*
 * Per-queue counters since open, monotonic. TX fields are 0 for q >= tx_queues, RX fields for q >= rx_queues.
 * tx_packets/tx_bytes count frames that left on the wire (completed); tx_errors counts the packets of bursts
 * refused by an injected failure; tx_ring_used is the TX descriptors occupied now (waiting for the wire or
 * for reclaim). rx_packets/rx_bytes count frames placed in the RX ring; rx_missed frames that found it full;
 * rx_dropped frames removed by fault injection; rx_truncated frames shortened by fault injection (also
 * counted in rx_packets). The null backend counts tx_packets/tx_bytes when it accepts a burst; its ring
 * never fills, so its tx_ring_used is always 0.
 */
typedef struct xmit_nic_queue_stats {
    uint64_t tx_packets;
    uint64_t tx_bytes;
    uint64_t tx_errors;
    uint64_t tx_ring_used;
    uint64_t rx_packets;
    uint64_t rx_bytes;
    uint64_t rx_missed;
    uint64_t rx_dropped;
    uint64_t rx_truncated;
} xmit_nic_queue_stats;

/* Fault kinds for xmit_nic_fault; value 0 turns a fault off. */
#define XMIT_NIC_FAULT_CLEAR 0             /* queue ignored, value ignored: every fault off on this port */
#define XMIT_NIC_FAULT_TX_FAIL_EVERY 1     /* every value-th tx_burst on TX queue `queue` returns -EIO */
#define XMIT_NIC_FAULT_TX_STALL 2          /* value 1: TX queue `queue` sends nothing and completes nothing; 0: release */
#define XMIT_NIC_FAULT_RX_DROP_EVERY 3     /* every value-th frame arriving on RX queue `queue` is dropped */
#define XMIT_NIC_FAULT_RX_TRUNCATE_EVERY 4 /* every value-th frame arriving on RX queue `queue` keeps half its length (at least 1 byte) */
#define XMIT_NIC_FAULT_TX_BUSY_EVERY 5     /* every value-th tx_burst on TX queue `queue` accepts only the first half (busy) */

XMIT_NIC_API int32_t xmit_nic_abi_version(void);

/*
 * Opens a device from a spec:
 *   "null:tx=4,rx=4,ring=1024,frame=2048"                         one port, accepts and counts
 *   "loop:tx=4,rx=4,ring=1024,rate=0,frame=2048"                  two ports back to back
 *   "afpacket:if=eth1,queues=4,ring=1024,frame=2048"              one port on a kernel interface
 * Every key is optional (defaults: tx=1, rx=1, ring=1024, rate=0, frame=2048) but afpacket's if, the name of
 * an interface in the caller's network namespace (1..15 characters, none of them '/', ':' or a space);
 * afpacket takes queues (the count of both TX and RX queues) instead of tx and rx, and no rate. rate is 0
 * (unlimited) or one or two terms joined by '+': a number with unit pps, kpps, Mpps, bps, kbit, Mbit or Gbit
 * (a bare number is packets/s), e.g. "rate=1Mpps", "rate=100Mbit", "rate=1Mpps+1Gbit". Queue counts
 * 1..XMIT_NIC_MAX_QUEUES, ring XMIT_NIC_MIN_RING..XMIT_NIC_MAX_RING, frame XMIT_NIC_MIN_FRAME..XMIT_NIC_MAX_FRAME.
 * Writes up to `capacity` port handles to ports_out and returns the number of ports, or a negative errno;
 * on -EINVAL a message naming the bad key or value goes to err (NUL-terminated, truncated to err_len) if
 * err is not NULL.
 * afpacket opens one AF_PACKET socket per queue (details in afpacket.c); it fails with -ENODEV for a missing
 * interface and -EPERM without CAP_NET_RAW, each with a message in err saying how to fix it.
 * Clarifications: capacity 0 is -EINVAL (a device nobody holds a handle to could never be closed). Every
 * failure writes a message to err, every success leaves it empty. Specs are strict: numbers are plain
 * decimal digits, no spaces, no key twice, a spec longer than 1024 characters is refused, and null takes
 * no rate. The wire's token bucket holds about 1 ms of the rate (at least one frame): that is the burst an
 * idle wire sends at once; while frames wait, the wire sends at the rate however rarely it is called.
 */
XMIT_NIC_API int32_t xmit_nic_open(const char *spec, int64_t *ports_out, uint32_t capacity, char *err, uint32_t err_len);

/* Closes the whole device that `port` belongs to: every handle of it becomes invalid. */
XMIT_NIC_API int32_t xmit_nic_close(int64_t port);

XMIT_NIC_API int32_t xmit_nic_info_get(int64_t port, xmit_nic_info *out);

/*
 * The kernel interface behind an afpacket port: writes its 6-byte MAC address to mac and its MTU to mtu, as
 * they were when the device opened. -EOPNOTSUPP for loop and null, whose ports have no interface.
 */
XMIT_NIC_API int32_t xmit_nic_port_link(int64_t port, uint8_t *mac, uint32_t *mtu);

/*
 * Copies up to n frames into TX queue q's ring and returns how many it accepted (0..n; fewer when the ring
 * has fewer free descriptors), or a negative errno with nothing accepted. Every descriptor is validated
 * before any is accepted. The loop backend then advances its wire: frames leave the ring for the peer port's
 * RX queues as the token bucket allows (all of them at once at rate 0).
 */
XMIT_NIC_API int32_t xmit_nic_tx_burst(int64_t port, uint32_t q, const xmit_nic_desc *descs, uint32_t n);

/* Advances the wire, then writes the packets and bytes completed on TX queue q since the previous call and
 * frees their descriptors. Returns 0 or a negative errno. */
XMIT_NIC_API int32_t xmit_nic_tx_reclaim(int64_t port, uint32_t q, xmit_nic_completion *out);

/*
 * Advances the peer's wire (unless another call is busy with it just then: a poll never waits for the
 * sender), then hands out up to n received frames of RX queue q, oldest first, as descriptors into shim
 * buffers; returns how many (0..n) or a negative errno. Handed-out frames still occupy the ring until
 * xmit_nic_rx_release.
 */
XMIT_NIC_API int32_t xmit_nic_rx_burst(int64_t port, uint32_t q, xmit_nic_desc *descs, uint32_t n);

/* Returns the n oldest handed-out frames of RX queue q to the ring. -EINVAL if fewer than n are out; n = 0
 * releases nothing and returns 0, so a poller can release whatever its last burst returned. */
XMIT_NIC_API int32_t xmit_nic_rx_release(int64_t port, uint32_t q, uint32_t n);

/* Copies queue q's counters (q < max(tx_queues, rx_queues)). */
XMIT_NIC_API int32_t xmit_nic_stats(int64_t port, uint32_t q, xmit_nic_queue_stats *out);

/*
 * Sets a fault on this port (see XMIT_NIC_FAULT_*); queue must be a valid TX or RX queue for the kind.
 * Setting a fault restarts its count. Only bursts that pass the argument checks count towards
 * TX_FAIL_EVERY; both RX faults count every arrival, whatever becomes of it (dropped, missed or placed).
 * Frames that completed before a stall are still reclaimed; a released queue's waiting frames leave at once.
 * null backend: TX_STALL holds completions back (tx_reclaim returns none) until released; the RX kinds are
 * accepted and have nothing to act on.
 */
XMIT_NIC_API int32_t xmit_nic_fault(int64_t port, uint32_t kind, uint32_t queue, uint64_t value);

/*
 * Resets TX queue q, as a driver's ndo_tx_timeout does when the TX watchdog finds the queue stopped too long
 * (kernel-semantics §8.2): a hung queue (XMIT_NIC_FAULT_TX_STALL) runs again, and the frames waiting in its
 * ring leave at once, in order (the emulated NIC re-posts its ring; nothing accepted is lost). Other injected
 * faults stay. 0, or -EBADF / -EINVAL for a bad handle or queue.
 */
XMIT_NIC_API int32_t xmit_nic_tx_reset(int64_t port, uint32_t q);

/* Receive-side scaling of this port: a 40-byte Toeplitz key and a 128-entry indirection table of RX queue
 * indexes (what `ethtool -X` sets). Defaults: the Microsoft key and entry i = i % rx_queues. The queue of a
 * frame is reta[hash % 128]; frames that are not IPv4/IPv6 hash to 0. Ports are hashed for UDP and TCP when
 * the packet is not a fragment; otherwise addresses only. One 802.1Q tag is skipped.
 * Clarifications: for IPv6, ports only when TCP/UDP is the first next header; a frame cut off before its
 * ports hashes its addresses, one cut off before its addresses (or with a bad IP version) hashes to 0. */
XMIT_NIC_API int32_t xmit_nic_rss_key(int64_t port, const uint8_t *key, uint32_t length);
XMIT_NIC_API int32_t xmit_nic_rss_reta(int64_t port, const uint32_t *table, uint32_t entries);

/*
 * NAPI interrupts. Each RX queue has an eventfd. An armed queue that receives a frame disarms itself and
 * signals its eventfd once. xmit_nic_irq_wait blocks up to timeout_ms (-1: forever) on all of the device's
 * RX eventfds with epoll, consumes the signals and writes each signalled queue as (port << 16 | queue) into
 * out; returns how many (0 on timeout or EINTR), -ECANCELED once xmit_nic_irq_shutdown has been called, or
 * a negative errno. Only one thread may wait on a device at a time.
 * A rated loop wire moves only inside calls; so while frames wait on one of the device's wires, the wait
 * moves it too, waking as each is due (to the millisecond, rounded up), and they arrive and signal even if
 * no other call is made meanwhile.
 */

/*
 * Arms (1) or disarms (0) RX queue q's interrupt. Only frames that arrive after the arming signal, so a
 * consumer that finds its queue empty must arm it and then poll it once more before it sleeps: a frame that
 * arrived between its last poll and the arming raises no signal, and only that last poll finds it. If the
 * last poll finds frames, the consumer goes on polling (the queue stays armed, and the next frame signals,
 * harmlessly, once).
 */
XMIT_NIC_API int32_t xmit_nic_rx_arm(int64_t port, uint32_t q, uint32_t armed);
XMIT_NIC_API int32_t xmit_nic_irq_wait(int64_t port, uint32_t *out, uint32_t capacity, int32_t timeout_ms);
XMIT_NIC_API int32_t xmit_nic_irq_shutdown(int64_t port);

#ifdef __cplusplus
}
#endif

#endif
