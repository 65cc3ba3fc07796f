/*
 * The afpacket backend: one port on a kernel network interface, through AF_PACKET sockets, so that the
 * pipeline drives a real (or veth) interface with everything above the shim unchanged.
 *
 * Queue q is one SOCK_RAW socket bound to the interface for every protocol (ETH_P_ALL), used by TX queue q and
 * RX queue q. It transmits with PACKET_QDISC_BYPASS: xmit's qdisc has already decided what leaves, and the
 * kernel's would only queue a second time; frames go straight to the driver, on the device TX queue the kernel
 * picks for the sending CPU (a packet socket cannot name one). The sockets receive as one PACKET_FANOUT group
 * in hash mode, so the kernel spreads flows over them as RSS spreads them over a NIC's RX queues, by its own
 * flow hash (the port's Toeplitz key and table only set the hash handed out in each descriptor, which is
 * loop's, bit for bit). PACKET_IGNORE_OUTGOING keeps the port's own transmissions out of its RX queues.
 *
 * Transmit is one sendmmsg per burst (per BATCH_MAX frames), not a PACKET_TX_RING with one kick: sendmmsg
 * copies each frame into its own skb before it returns, which is exactly the ABI's promise, and what the
 * kernel accepted is then with the driver, so it completes at once, with no ring of slots whose status words
 * must be watched for completions that come later. A frame the kernel refuses for good (longer than the MTU,
 * the interface down) counts as a TX error and still completes, as a driver frees a frame it cannot send, so
 * the in-flight accounting above never waits for it. When the kernel is out of room (EAGAIN, ENOBUFS: the
 * socket's buffer or the driver's queue is full) the burst ends there and the caller requeues the rest.
 *
 * Receive is one recvmmsg per burst into the RX queue's ring of slots, where frames stay from rx_burst until
 * rx_release as in the loop backend; until a burst asks for them, frames wait in the socket's buffer, and what
 * the kernel drops because that buffer is full (PACKET_STATISTICS) is the queue's rx_missed. Frames longer
 * than the largest frame are dropped and counted in rx_dropped, as a NIC drops oversized frames. Interrupts
 * are the sockets themselves in the device's epoll set (irq.c).
 *
 * Faults: TX_FAIL_EVERY and the RX kinds act as on loop; a stalled TX queue accepts nothing (the kernel keeps
 * no ring of ours to hold frames in), and what completed before the stall is still reclaimed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shim.h"

/* UIO_MAXIOV: the most messages one sendmmsg or recvmmsg takes (the kernel silently caps more). */
#define BATCH_MAX 1024u
/* The most the socket buffer of a queue is asked to hold; the kernel doubles it for its bookkeeping. */
#define RCVBUF_MAX (64 << 20)

struct afp_txq {
    _Alignas(64) pthread_mutex_t lock;
    int fd;
    struct tx_faults faults;
    uint64_t packets;  /* sent, since open */
    uint64_t bytes;
    uint64_t errors;
    uint64_t done_packets;  /* completed since the last reclaim: sent or refused for good */
    uint64_t done_bytes;
    struct mmsghdr *msgs;
    struct iovec *iov;
};

struct afp_rxq {
    _Alignas(64) pthread_mutex_t lock;
    int fd;
    uint8_t *slots;
    uint32_t *lengths;
    uint32_t tail;   /* the slot the next received frame takes */
    uint32_t next;   /* the slot rx_burst hands out next */
    uint32_t ready;  /* received, not handed out */
    uint32_t out;    /* handed out, not released: the slots just before `next` */
    struct rx_faults faults;
    struct rx_counters counters;
    struct mmsghdr *msgs;
    struct iovec *iov;
};

struct afp_port {
    struct afp_txq *txq;
    struct afp_rxq *rxq;
    int *fds;         /* one socket per queue, -1 until opened */
    uint32_t queues;  /* how many of txq, rxq and fds are set up, for close */
    uint32_t ring;
    uint32_t batch;   /* messages per sendmmsg or recvmmsg */
    uint32_t max_frame;
    size_t stride;    /* bytes per RX slot */
    uint8_t *memory;  /* every RX slot of the port, one mapping */
    size_t memory_size;
    uint8_t mac[6];
    uint32_t mtu;
};

/* What a descriptor that turned invalid after validation sends instead of the caller's bytes. */
static const uint8_t blank_frame[XMIT_NIC_MIN_FRAME];

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint32_t advance(const struct afp_port *ap, uint32_t index, uint32_t by)
{
    index += by;
    return index >= ap->ring ? index - ap->ring : index;
}

static uint8_t *slot_at(const struct afp_port *ap, const struct afp_rxq *rq, uint32_t index)
{
    return rq->slots + (size_t)index * ap->stride;
}

/*
 * Reads a caller's TX descriptor once, as loop's take_frame does, and checks it again: nic.c validated it in
 * the caller's memory, which a caller racing its own descriptors may have changed since.
 */
static struct iovec take_frame(const struct afp_port *ap, const xmit_nic_desc *d)
{
    const uint64_t address = __atomic_load_n(&d->address, __ATOMIC_RELAXED);
    const uint32_t length = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
    if (address == 0 || address + length < address || length == 0 || length > ap->max_frame)
        return (struct iovec){.iov_base = (void *)blank_frame, .iov_len = sizeof blank_frame};
    return (struct iovec){.iov_base = (void *)(uintptr_t)address, .iov_len = length};
}

static bool would_block(int error)
{
    return error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS;
}

/* Errors that will refuse every frame after this one too: the interface has gone down or away. */
static bool interface_gone(int error)
{
    return error == ENETDOWN || error == ENXIO || error == ENODEV;
}

/* Sends up to n frames; returns how many the kernel took or refused for good. The queue's lock held. */
static uint32_t transmit(const struct afp_port *ap, struct afp_txq *tq, const xmit_nic_desc *descs, uint32_t n)
{
    uint32_t done = 0;
    while (done < n) {
        const uint32_t count = min_u32(n - done, ap->batch);
        for (uint32_t i = 0; i < count; i++) {
            tq->iov[i] = take_frame(ap, &descs[done + i]);
            tq->msgs[i].msg_hdr = (struct msghdr){.msg_iov = &tq->iov[i], .msg_iovlen = 1};
        }
        const int sent = sendmmsg(tq->fd, tq->msgs, count, MSG_DONTWAIT);
        if (sent > 0) {
            for (int i = 0; i < sent; i++)
                tq->bytes += tq->iov[i].iov_len;
            tq->packets += (uint32_t)sent;
            done += (uint32_t)sent;
            continue;
        }
        const int error = sent < 0 ? errno : EAGAIN;
        if (error == EINTR)
            continue;
        if (would_block(error))
            break;
        const uint32_t refused = interface_gone(error) ? count : 1;
        for (uint32_t i = 0; i < refused; i++)
            tq->done_bytes += tq->iov[i].iov_len;
        tq->errors += refused;
        tq->done_packets += refused;
        done += refused;
    }
    return done;
}

static int32_t afp_tx_burst(struct nic_port *port, uint32_t q, const xmit_nic_desc *descs, uint32_t n,
                            uint64_t bytes)
{
    (void)bytes; /* counted as frames leave: not all n may */
    struct afp_port *ap = port->backend;
    struct afp_txq *tq = &ap->txq[q];
    pthread_mutex_lock(&tq->lock);
    if (tx_faults_fail(&tq->faults)) {
        tq->errors += n;
        pthread_mutex_unlock(&tq->lock);
        return -EIO;
    }
    const uint64_t packets = tq->packets, sent_bytes = tq->bytes;
    const uint32_t offered = tx_faults_room(&tq->faults, n);
    const uint32_t accepted = tq->faults.stalled ? 0 : transmit(ap, tq, descs, offered);
    tq->done_packets += tq->packets - packets;
    tq->done_bytes += tq->bytes - sent_bytes;
    pthread_mutex_unlock(&tq->lock);
    return (int32_t)accepted;
}

static void afp_tx_reclaim(struct nic_port *port, uint32_t q, xmit_nic_completion *out)
{
    struct afp_port *ap = port->backend;
    struct afp_txq *tq = &ap->txq[q];
    pthread_mutex_lock(&tq->lock);
    const xmit_nic_completion done = {.packets = tq->done_packets, .bytes = tq->done_bytes};
    tq->done_packets = 0;
    tq->done_bytes = 0;
    pthread_mutex_unlock(&tq->lock);
    *out = done;
}

/*
 * Moves up to `want` frames from the socket into free slots, applying the RX faults as loop's arrive does;
 * the queue's lock held. A dropped frame's slot is filled by moving the later ones down, which costs a copy
 * only while a fault or an oversized frame is about.
 */
static void receive(const struct afp_port *ap, struct afp_rxq *rq, uint32_t want)
{
    const uint32_t count = min_u32(min_u32(want, ap->ring - rq->ready - rq->out), ap->batch);
    if (count == 0)
        return;
    uint32_t slot = rq->tail;
    for (uint32_t i = 0; i < count; i++) {
        rq->iov[i] = (struct iovec){.iov_base = slot_at(ap, rq, slot), .iov_len = ap->max_frame};
        rq->msgs[i].msg_hdr = (struct msghdr){.msg_iov = &rq->iov[i], .msg_iovlen = 1};
        slot = advance(ap, slot, 1);
    }
    int got;
    do {
        got = recvmmsg(rq->fd, rq->msgs, count, MSG_DONTWAIT, NULL);
    } while (got < 0 && errno == EINTR);
    /* Nothing waits (EAGAIN), or a socket error such as ENETDOWN, which reading has now cleared. */
    if (got <= 0)
        return;
    uint32_t kept = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < (uint32_t)got; i++) {
        uint32_t length = rq->msgs[i].msg_len;
        bool truncate;
        const bool drop = rx_faults_drop(&rq->faults, &truncate);
        if (drop || (rq->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0) {
            rq->counters.dropped++;
            continue;
        }
        if (truncate) {
            length = rx_truncated_length(length);
            rq->counters.truncated++;
        }
        const uint32_t to = advance(ap, rq->tail, kept);
        if (kept != i)
            memcpy(slot_at(ap, rq, to), rq->iov[i].iov_base, length);
        rq->lengths[to] = length;
        kept++;
        bytes += length;
    }
    rq->tail = advance(ap, rq->tail, kept);
    rq->ready += kept;
    rq->counters.packets += kept;
    rq->counters.bytes += bytes;
}

static uint32_t afp_rx_burst(struct nic_port *port, uint32_t q, xmit_nic_desc *descs, uint32_t n)
{
    struct afp_port *ap = port->backend;
    struct afp_rxq *rq = &ap->rxq[q];
    pthread_mutex_lock(&rq->lock);
    if (rq->ready < n)
        receive(ap, rq, n - rq->ready);
    const uint32_t count = min_u32(n, rq->ready);
    const uint32_t first = rq->next;
    rq->next = advance(ap, first, count);
    rq->ready -= count;
    rq->out += count;
    pthread_mutex_unlock(&rq->lock);
    if (count == 0)
        return 0;
    /*
     * The handed-out slots and their lengths are this thread's until it releases them (one thread per RX
     * queue), so they are read without the queue's lock; the RSS settings are read under the port's tx_lock,
     * which a queue's lock is never held with.
     */
    pthread_mutex_lock(&port->tx_lock);
    uint32_t slot = first;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *frame = slot_at(ap, rq, slot);
        const uint32_t length = rq->lengths[slot];
        descs[i] = (xmit_nic_desc){
            .address = (uint64_t)(uintptr_t)frame,
            .length = length,
            .flags = rss_hash(&port->rss, frame, length),
        };
        slot = advance(ap, slot, 1);
    }
    pthread_mutex_unlock(&port->tx_lock);
    return count;
}

static int32_t afp_rx_release(struct nic_port *port, uint32_t q, uint32_t n)
{
    struct afp_port *ap = port->backend;
    struct afp_rxq *rq = &ap->rxq[q];
    pthread_mutex_lock(&rq->lock);
    const bool enough = rq->out >= n;
    if (enough)
        rq->out -= n;
    pthread_mutex_unlock(&rq->lock);
    return enough ? 0 : -EINVAL;
}

static void afp_stats(struct nic_port *port, uint32_t q, xmit_nic_queue_stats *out)
{
    struct afp_port *ap = port->backend;
    xmit_nic_queue_stats s = {0};
    struct afp_txq *tq = &ap->txq[q];
    pthread_mutex_lock(&tq->lock);
    s.tx_packets = tq->packets;
    s.tx_bytes = tq->bytes;
    s.tx_errors = tq->errors;
    pthread_mutex_unlock(&tq->lock);
    struct afp_rxq *rq = &ap->rxq[q];
    pthread_mutex_lock(&rq->lock);
    /* The kernel's counters restart at every read, so the drops are added up here. */
    struct tpacket_stats kernel = {0};
    socklen_t length = sizeof kernel;
    if (getsockopt(rq->fd, SOL_PACKET, PACKET_STATISTICS, &kernel, &length) == 0)
        rq->counters.missed += kernel.tp_drops;
    rx_counters_report(&rq->counters, &s);
    pthread_mutex_unlock(&rq->lock);
    *out = s;
}

static void set_rx_fault(struct afp_rxq *rq, uint32_t kind, uint64_t value)
{
    pthread_mutex_lock(&rq->lock);
    rx_faults_set(&rq->faults, kind, value);
    pthread_mutex_unlock(&rq->lock);
}

static void set_tx_fault(struct afp_txq *tq, uint32_t kind, uint64_t value)
{
    pthread_mutex_lock(&tq->lock);
    tx_faults_set(&tq->faults, kind, value);
    pthread_mutex_unlock(&tq->lock);
}

static void afp_fault(struct nic_port *port, uint32_t kind, uint32_t queue, uint64_t value)
{
    struct afp_port *ap = port->backend;
    if (kind == XMIT_NIC_FAULT_CLEAR) {
        for (uint32_t q = 0; q < ap->queues; q++) {
            set_tx_fault(&ap->txq[q], kind, 0);
            set_rx_fault(&ap->rxq[q], kind, 0);
        }
    } else if (kind == XMIT_NIC_FAULT_TX_FAIL_EVERY || kind == XMIT_NIC_FAULT_TX_BUSY_EVERY ||
               kind == XMIT_NIC_FAULT_TX_STALL) {
        set_tx_fault(&ap->txq[queue], kind, value);
    } else {
        set_rx_fault(&ap->rxq[queue], kind, value);
    }
}

static uint64_t afp_wire_poll(struct nic_port *port)
{
    (void)port;
    return UINT64_MAX; /* the kernel is the wire: nothing here waits for a call to move it */
}

static int32_t afp_link(struct nic_port *port, uint8_t *mac, uint32_t *mtu)
{
    const struct afp_port *ap = port->backend;
    memcpy(mac, ap->mac, sizeof ap->mac);
    *mtu = ap->mtu;
    return 0;
}

static void afp_close(struct nic_device *device)
{
    struct afp_port *ap = device->port[0].backend;
    if (ap == NULL)
        return;
    for (uint32_t q = 0; q < ap->queues; q++) {
        if (ap->fds[q] >= 0)
            close(ap->fds[q]);
        pthread_mutex_destroy(&ap->txq[q].lock);
        pthread_mutex_destroy(&ap->rxq[q].lock);
        free(ap->txq[q].msgs);
        free(ap->txq[q].iov);
        free(ap->rxq[q].msgs);
        free(ap->rxq[q].iov);
        free(ap->rxq[q].lengths);
    }
    if (ap->memory != NULL)
        munmap(ap->memory, ap->memory_size);
    free(ap->rxq);
    free(ap->txq);
    free(ap->fds);
    free(ap);
    device->port[0].backend = NULL;
}

/* Fails the open with a message that says what is wrong and how to fix it; close then frees what is open. */
#define REFUSE(rc, ...) report(rc, device->error, sizeof device->error, __VA_ARGS__)

/* Fails the open with what `doing` to the configured interface met: errno and its text. */
static int32_t refuse_errno(struct nic_device *device, const char *doing)
{
    const int error = errno;
    return REFUSE(-error, "%s '%s': %s", doing, device->config.interface, strerror(error));
}

/* Interface flags, MAC and MTU, through the first queue's socket. */
static int32_t read_interface(struct nic_device *device, struct afp_port *ap, int fd)
{
    const char *name = device->config.interface;
    struct ifreq request = {0};
    memcpy(request.ifr_name, name, sizeof device->config.interface);
    if (ioctl(fd, SIOCGIFFLAGS, &request) != 0)
        return refuse_errno(device, "afpacket: cannot read the flags of interface");
    if ((request.ifr_flags & IFF_UP) == 0)
        return REFUSE(-ENETDOWN, "afpacket: interface '%s' is down; bring it up first (ip link set %s up)", name,
                      name);
    if (ioctl(fd, SIOCGIFMTU, &request) != 0)
        return refuse_errno(device, "afpacket: cannot read the MTU of interface");
    ap->mtu = (uint32_t)request.ifr_mtu;
    if (ioctl(fd, SIOCGIFHWADDR, &request) != 0)
        return refuse_errno(device, "afpacket: cannot read the MAC address of interface");
    /* Loopback frames carry Ethernet headers too. */
    if (request.ifr_hwaddr.sa_family != ARPHRD_ETHER && request.ifr_hwaddr.sa_family != ARPHRD_LOOPBACK)
        return REFUSE(-EINVAL, "afpacket: interface '%s' is not an Ethernet interface (hardware type %d)", name,
                      request.ifr_hwaddr.sa_family);
    memcpy(ap->mac, request.ifr_hwaddr.sa_data, sizeof ap->mac);
    return 0;
}

static int32_t set_option(struct nic_device *device, int fd, int level, int option, int value, const char *what)
{
    if (setsockopt(fd, level, option, &value, sizeof value) == 0)
        return 0;
    const int error = errno;
    return REFUSE(-error, "afpacket: setting %s on a packet socket of '%s' failed: %s (the kernel may be too old)",
                  what, device->config.interface, strerror(error));
}

/*
 * Opens queue q's socket: created without a protocol so that it sees no frame before it is bound to the
 * interface, then set up, bound and added to the fanout group (which the first queue creates, with an id the
 * kernel picks unique in the namespace, and the others join).
 */
static int32_t open_socket(struct nic_device *device, struct afp_port *ap, uint32_t q, unsigned ifindex,
                           uint32_t *group)
{
    const int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        if (errno == EPERM || errno == EACCES)
            return REFUSE(-EPERM, "afpacket: opening a packet socket needs CAP_NET_RAW: run as root, or grant it "
                                  "with `setcap cap_net_raw+ep` on the java binary");
        if (errno == EMFILE || errno == ENFILE)
            return REFUSE(-ENFILE, "afpacket: out of file descriptors for the queues' packet sockets (the "
                                   "process's or the system's limit)");
        if (errno == EAFNOSUPPORT)
            return REFUSE(-EAFNOSUPPORT, "afpacket: this kernel has no packet sockets (CONFIG_PACKET)");
        return refuse_errno(device, "afpacket: cannot open a packet socket for");
    }
    ap->fds[q] = fd;
    ap->txq[q].fd = fd;
    ap->rxq[q].fd = fd;
    device->port[0].irq[q].fd = fd;
    if (q == 0) {
        const int32_t rc = read_interface(device, ap, fd);
        if (rc != 0)
            return rc;
    }
    int32_t rc = set_option(device, fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS");
    if (rc == 0)
        rc = set_option(device, fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING");
    if (rc != 0)
        return rc;
    /* About a ring of frames; beyond rmem_max only with CAP_NET_ADMIN, else as much as rmem_max allows. */
    const size_t wanted = (size_t)ap->ring * ap->stride;
    const int rcvbuf = wanted < RCVBUF_MAX ? (int)wanted : RCVBUF_MAX;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    const struct sockaddr_ll address = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(ETH_P_ALL),
        .sll_ifindex = (int)ifindex,
    };
    if (bind(fd, (const struct sockaddr *)&address, sizeof address) != 0)
        return refuse_errno(device, "afpacket: cannot bind a packet socket to");
    const int fanout = q == 0 ? (PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID) << 16
                              : (int)(*group | PACKET_FANOUT_HASH << 16);
    rc = set_option(device, fd, SOL_PACKET, PACKET_FANOUT, fanout, "PACKET_FANOUT");
    if (rc != 0 || q != 0)
        return rc;
    int joined = 0;
    socklen_t length = sizeof joined;
    if (getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &joined, &length) != 0)
        return refuse_errno(device, "afpacket: cannot read the fanout group of");
    *group = (uint32_t)joined & 0xffff;
    return 0;
}

static int32_t open_queue(struct afp_port *ap, uint32_t q)
{
    struct afp_txq *tq = &ap->txq[q];
    struct afp_rxq *rq = &ap->rxq[q];
    pthread_mutex_init(&tq->lock, NULL);
    pthread_mutex_init(&rq->lock, NULL);
    tq->fd = -1;
    rq->fd = -1;
    ap->fds[q] = -1;
    ap->queues = q + 1;
    tq->msgs = calloc(ap->batch, sizeof *tq->msgs);
    tq->iov = calloc(ap->batch, sizeof *tq->iov);
    rq->msgs = calloc(ap->batch, sizeof *rq->msgs);
    rq->iov = calloc(ap->batch, sizeof *rq->iov);
    return tq->msgs == NULL || tq->iov == NULL || rq->msgs == NULL || rq->iov == NULL ? -ENOMEM : 0;
}

static int32_t afp_open(struct nic_device *device)
{
    const struct nic_config *c = &device->config;
    struct afp_port *ap = calloc(1, sizeof *ap);
    if (ap == NULL)
        return -ENOMEM;
    device->port[0].backend = ap;
    ap->ring = c->ring;
    ap->batch = min_u32(c->ring, BATCH_MAX);
    ap->max_frame = c->max_frame;
    ap->stride = ((size_t)c->max_frame + 63) / 64 * 64;
    const uint32_t queues = c->tx_queues;
    ap->txq = aligned_alloc(_Alignof(struct afp_txq), queues * sizeof *ap->txq);
    ap->rxq = aligned_alloc(_Alignof(struct afp_rxq), queues * sizeof *ap->rxq);
    ap->fds = calloc(queues, sizeof *ap->fds);
    if (ap->txq == NULL || ap->rxq == NULL || ap->fds == NULL)
        return -ENOMEM;
    memset(ap->txq, 0, queues * sizeof *ap->txq);
    memset(ap->rxq, 0, queues * sizeof *ap->rxq);
    for (uint32_t q = 0; q < queues; q++) {
        const int32_t rc = open_queue(ap, q);
        if (rc != 0)
            return rc;
    }
    const size_t ring_size = (size_t)c->ring * ap->stride;
    ap->memory_size = queues * ring_size;
    void *memory = mmap(NULL, ap->memory_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (memory == MAP_FAILED)
        return -ENOMEM;
    ap->memory = memory;
    for (uint32_t q = 0; q < queues; q++) {
        ap->rxq[q].slots = ap->memory + q * ring_size;
        ap->rxq[q].lengths = calloc(c->ring, sizeof *ap->rxq[q].lengths);
        if (ap->rxq[q].lengths == NULL)
            return -ENOMEM;
    }
    const unsigned ifindex = if_nametoindex(c->interface);
    if (ifindex == 0) {
        if (errno == ENODEV || errno == ENXIO)
            return REFUSE(-ENODEV, "afpacket: no interface '%s' in this network namespace (ip link show lists them)",
                          c->interface);
        return refuse_errno(device, "afpacket: cannot look up interface");
    }
    uint32_t group = 0;
    for (uint32_t q = 0; q < queues; q++) {
        const int32_t rc = open_socket(device, ap, q, ifindex, &group);
        if (rc != 0)
            return rc;
    }
    return 0;
}

const struct nic_backend afpacket_backend = {
    .ports = 1,
    .rx_fd_irqs = true,
    .link = afp_link,
    .open = afp_open,
    .close = afp_close,
    .tx_burst = afp_tx_burst,
    .tx_reclaim = afp_tx_reclaim,
    .rx_burst = afp_rx_burst,
    .rx_release = afp_rx_release,
    .stats = afp_stats,
    .fault = afp_fault,
    .wire_poll = afp_wire_poll,
};
