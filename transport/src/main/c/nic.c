/*
 * The entry points: the device table behind the handles, opening and closing devices, and the argument
 * checks every call makes before a backend sees it.
 *
 * A handle is generation << 9 | slot << 1 | port. Generations come from one counter that never repeats, so
 * a handle of a closed device never matches whatever opens in its slot later. A lookup is two loads and a
 * compare, no lock: open publishes a device before its generation (release), a lookup reads the generation
 * first (acquire). Close clears the generation before it frees anything; the ABI rules out calls with the
 * closed device's own handles running meanwhile, and any other handle finds a generation that differs.
 *
 * Checks come in one order everywhere, so an argument list with several faults answers predictably: the
 * handle (-EBADF), then the numbers (queue index, count, size, kind, value: -EINVAL), then the pointers
 * (-EFAULT), then what they point to.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define PORT_BITS 1
#define SLOT_BITS 8
#define GENERATION_SHIFT (PORT_BITS + SLOT_BITS)
/* Keeps handles positive. */
#define GENERATION_MAX ((1ull << (63 - GENERATION_SHIFT)) - 1)

_Static_assert(XMIT_NIC_MAX_PORTS <= 1 << PORT_BITS, "a handle's port field holds every port");
_Static_assert(XMIT_NIC_MAX_DEVICES <= 1 << SLOT_BITS, "a handle's slot field holds every slot");

struct slot {
    _Atomic uint64_t generation;  /* of the device open in it; 0 while none is */
    _Atomic(struct nic_device *) device;
};

static struct slot slots[XMIT_NIC_MAX_DEVICES];
/* The rest is only touched under table_lock, by open and close. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static bool taken[XMIT_NIC_MAX_DEVICES];  /* from the start of an open until its close */
static uint64_t next_generation = 1;

static const struct nic_backend *const backends[] = {
    [XMIT_NIC_BACKEND_NULL] = &null_backend,
    [XMIT_NIC_BACKEND_LOOP] = &loop_backend,
    [XMIT_NIC_BACKEND_AFPACKET] = &afpacket_backend,
};

static bool bad_pointer(const void *p, uintptr_t alignment)
{
    return p == NULL || ((uintptr_t)p & (alignment - 1)) != 0;
}

static struct nic_port *port_of(int64_t handle)
{
    if (handle <= 0)
        return NULL;
    const uint64_t h = (uint64_t)handle;
    const uint64_t generation = h >> GENERATION_SHIFT;
    struct slot *slot = &slots[(h >> PORT_BITS) & ((1u << SLOT_BITS) - 1)];
    if (generation == 0 || atomic_load_explicit(&slot->generation, memory_order_acquire) != generation)
        return NULL;
    struct nic_device *device = atomic_load_explicit(&slot->device, memory_order_relaxed);
    const uint32_t port = (uint32_t)(h & ((1u << PORT_BITS) - 1));
    return port < device->ports ? &device->port[port] : NULL;
}

int32_t report(int32_t rc, char *err, uint32_t err_len, const char *format, ...)
{
    if (err != NULL && err_len > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(err, err_len, format, args);
        va_end(args);
    }
    return rc;
}

static void device_destroy(struct nic_device *device)
{
    device->backend->close(device);
    irq_close(device);
    for (uint32_t p = 0; p < device->ports; p++)
        pthread_mutex_destroy(&device->port[p].tx_lock);
    free(device);
}

/* A failed open's own message, if its backend wrote one, goes to err. */
static int32_t device_create(const struct nic_config *config, struct nic_device **out, char *err, uint32_t err_len)
{
    struct nic_device *device = aligned_alloc(_Alignof(struct nic_device), sizeof *device);
    if (device == NULL)
        return -ENOMEM;
    memset(device, 0, sizeof *device);
    device->backend = backends[config->backend];
    device->config = *config;
    device->ports = device->backend->ports;
    for (uint32_t p = 0; p < device->ports; p++) {
        struct nic_port *port = &device->port[p];
        port->device = device;
        port->index = p;
        port->peer = &device->port[device->ports - 1 - p];
        pthread_mutex_init(&port->tx_lock, NULL);
        rss_init(&port->rss, config->rx_queues);
    }
    int32_t rc = irq_open(device);
    if (rc == 0)
        rc = device->backend->open(device);
    if (rc != 0) {
        if (device->error[0] != '\0')
            report(rc, err, err_len, "%s", device->error);
        device_destroy(device);
        return rc;
    }
    *out = device;
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_abi_version(void)
{
    return XMIT_NIC_ABI_VERSION;
}

XMIT_NIC_API int32_t xmit_nic_open(const char *spec, int64_t *ports_out, uint32_t capacity, char *err,
                                   uint32_t err_len)
{
    if (err != NULL && err_len > 0)
        err[0] = '\0';
    if (capacity == 0)
        return report(-EINVAL, err, err_len, "capacity is 0: there is no room for a port handle");
    if (spec == NULL)
        return report(-EFAULT, err, err_len, "spec is NULL");
    if (bad_pointer(ports_out, _Alignof(int64_t)))
        return report(-EFAULT, err, err_len, "ports_out is NULL or not 8-byte aligned");
    struct nic_config config;
    const int32_t parsed = spec_parse(spec, &config, err, err_len);
    if (parsed != 0)
        return parsed;

    pthread_mutex_lock(&table_lock);
    uint32_t s = 0;
    while (s < XMIT_NIC_MAX_DEVICES && taken[s])
        s++;
    const bool full = s == XMIT_NIC_MAX_DEVICES || next_generation > GENERATION_MAX;
    uint64_t generation = 0;
    if (!full) {
        taken[s] = true;
        generation = next_generation++;
    }
    pthread_mutex_unlock(&table_lock);
    if (full)
        return report(-EMFILE, err, err_len, "too many open devices: at most %d", XMIT_NIC_MAX_DEVICES);

    /* The rings are allocated outside the table lock: other opens and closes need not wait for them. */
    struct nic_device *device = NULL;
    const int32_t rc = device_create(&config, &device, err, err_len);
    if (rc != 0) {
        pthread_mutex_lock(&table_lock);
        taken[s] = false;
        pthread_mutex_unlock(&table_lock);
        if (err != NULL && err_len > 0 && err[0] != '\0')
            return rc;
        if (rc == -ENOMEM)
            return report(rc, err, err_len, "out of memory for the device '%.200s'", spec);
        if (rc == -ENFILE)
            return report(rc, err, err_len,
                          "out of file descriptors for the interrupt eventfds and epoll set (the process's "
                          "or the system's limit)");
        return report(rc, err, err_len, "could not create the interrupt eventfds and epoll set (errno %d)", -rc);
    }
    atomic_store_explicit(&slots[s].device, device, memory_order_relaxed);
    atomic_store_explicit(&slots[s].generation, generation, memory_order_release);
    const uint32_t ports = device->ports;
    for (uint32_t p = 0; p < ports && p < capacity; p++)
        ports_out[p] = (int64_t)(generation << GENERATION_SHIFT | (uint64_t)s << PORT_BITS | p);
    return (int32_t)ports;
}

XMIT_NIC_API int32_t xmit_nic_close(int64_t handle)
{
    pthread_mutex_lock(&table_lock);
    struct nic_port *port = port_of(handle);
    if (port == NULL) {
        pthread_mutex_unlock(&table_lock);
        return -EBADF;
    }
    const uint32_t s = (uint32_t)(((uint64_t)handle >> PORT_BITS) & ((1u << SLOT_BITS) - 1));
    atomic_store_explicit(&slots[s].generation, 0, memory_order_release);
    atomic_store_explicit(&slots[s].device, NULL, memory_order_relaxed);
    taken[s] = false;
    pthread_mutex_unlock(&table_lock);
    device_destroy(port->device);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_info_get(int64_t handle, xmit_nic_info *out)
{
    const struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (bad_pointer(out, _Alignof(xmit_nic_info)))
        return -EFAULT;
    const struct nic_device *device = port->device;
    const struct nic_config *c = &device->config;
    *out = (xmit_nic_info){
        .abi_version = XMIT_NIC_ABI_VERSION,
        .backend = c->backend,
        .ports = device->ports,
        .port = port->index,
        .tx_queues = c->tx_queues,
        .rx_queues = c->rx_queues,
        .ring_size = c->ring,
        .max_frame = c->max_frame,
        .rate_pps = c->rate_pps,
        .rate_bps = c->rate_bps,
    };
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_port_link(int64_t handle, uint8_t *mac, uint32_t *mtu)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (port->device->backend->link == NULL)
        return -EOPNOTSUPP;
    if (mac == NULL || bad_pointer(mtu, _Alignof(uint32_t)))
        return -EFAULT;
    return port->device->backend->link(port, mac, mtu);
}

/*
 * One pass that only notices whether anything is wrong, so a good burst costs a few instructions per frame; a
 * second pass finds the first bad descriptor and, within it, checks the address before the length and flags.
 * address - 1 >= UINT64_MAX - length holds exactly when the address is 0 or address + length overflows.
 * A caller changing its descriptors meanwhile may make the second pass find nothing wrong: the burst is still
 * refused, as the first pass saw it. The backends read each descriptor again and cannot trust this check, so
 * they re-check what they read (loop.c).
 */
static int32_t check_descs(const xmit_nic_desc *descs, uint32_t n, uint32_t max_frame, uint64_t *bytes)
{
    uint64_t sum = 0;
    uint32_t flags = 0;
    bool bad = false;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t length = descs[i].length;
        bad |= (descs[i].address - 1 >= UINT64_MAX - length) | (length - 1 >= max_frame);
        flags |= descs[i].flags;
        sum += length;
    }
    if (!bad && flags == 0) {
        *bytes = sum;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t address = descs[i].address;
        const uint32_t length = descs[i].length;
        if (address == 0 || address + length < address)
            return -EFAULT;
        if (length == 0 || length > max_frame || descs[i].flags != 0)
            return -EINVAL;
    }
    return -EINVAL;
}

XMIT_NIC_API int32_t xmit_nic_tx_burst(int64_t handle, uint32_t q, const xmit_nic_desc *descs, uint32_t n)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    const struct nic_config *c = &port->device->config;
    if (q >= c->tx_queues || n > c->ring)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (bad_pointer(descs, _Alignof(xmit_nic_desc)))
        return -EFAULT;
    uint64_t bytes;
    const int32_t rc = check_descs(descs, n, c->max_frame, &bytes);
    if (rc != 0)
        return rc;
    return port->device->backend->tx_burst(port, q, descs, n, bytes);
}

XMIT_NIC_API int32_t xmit_nic_tx_reclaim(int64_t handle, uint32_t q, xmit_nic_completion *out)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (q >= port->device->config.tx_queues)
        return -EINVAL;
    if (bad_pointer(out, _Alignof(xmit_nic_completion)))
        return -EFAULT;
    port->device->backend->tx_reclaim(port, q, out);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_rx_burst(int64_t handle, uint32_t q, xmit_nic_desc *descs, uint32_t n)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    const struct nic_config *c = &port->device->config;
    if (q >= c->rx_queues || n > c->ring)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (bad_pointer(descs, _Alignof(xmit_nic_desc)))
        return -EFAULT;
    return (int32_t)port->device->backend->rx_burst(port, q, descs, n);
}

XMIT_NIC_API int32_t xmit_nic_rx_release(int64_t handle, uint32_t q, uint32_t n)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    const struct nic_config *c = &port->device->config;
    if (q >= c->rx_queues || n > c->ring)
        return -EINVAL;
    if (n == 0)
        return 0;
    return port->device->backend->rx_release(port, q, n);
}

XMIT_NIC_API int32_t xmit_nic_stats(int64_t handle, uint32_t q, xmit_nic_queue_stats *out)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    const struct nic_config *c = &port->device->config;
    if (q >= c->tx_queues && q >= c->rx_queues)
        return -EINVAL;
    if (bad_pointer(out, _Alignof(xmit_nic_queue_stats)))
        return -EFAULT;
    port->device->backend->stats(port, q, out);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_fault(int64_t handle, uint32_t kind, uint32_t queue, uint64_t value)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    const struct nic_config *c = &port->device->config;
    switch (kind) {
    case XMIT_NIC_FAULT_CLEAR:
        break;
    case XMIT_NIC_FAULT_TX_FAIL_EVERY:
    case XMIT_NIC_FAULT_TX_BUSY_EVERY:
        if (queue >= c->tx_queues)
            return -EINVAL;
        break;
    case XMIT_NIC_FAULT_TX_STALL:
        if (queue >= c->tx_queues || value > 1)
            return -EINVAL;
        break;
    case XMIT_NIC_FAULT_RX_DROP_EVERY:
    case XMIT_NIC_FAULT_RX_TRUNCATE_EVERY:
        if (queue >= c->rx_queues)
            return -EINVAL;
        break;
    default:
        return -EINVAL;
    }
    port->device->backend->fault(port, kind, queue, value);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_tx_reset(int64_t handle, uint32_t q)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (q >= port->device->config.tx_queues)
        return -EINVAL;
    /* What a reset does to an emulated queue is what releasing its hang does: every backend implements it. */
    port->device->backend->fault(port, XMIT_NIC_FAULT_TX_STALL, q, 0);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_rss_key(int64_t handle, const uint8_t *key, uint32_t length)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (length != XMIT_NIC_RSS_KEY_LENGTH)
        return -EINVAL;
    if (key == NULL)
        return -EFAULT;
    uint8_t copy[XMIT_NIC_RSS_KEY_LENGTH];
    memcpy(copy, key, sizeof copy);
    /* The sending port's wire reads these settings under its tx_lock. */
    pthread_mutex_lock(&port->peer->tx_lock);
    rss_set_key(&port->rss, copy);
    pthread_mutex_unlock(&port->peer->tx_lock);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_rss_reta(int64_t handle, const uint32_t *table, uint32_t entries)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (entries != XMIT_NIC_RETA_SIZE)
        return -EINVAL;
    if (bad_pointer(table, _Alignof(uint32_t)))
        return -EFAULT;
    /* Checked on a copy, so a caller changing its table meanwhile cannot slip a bad entry in. */
    uint32_t copy[XMIT_NIC_RETA_SIZE];
    memcpy(copy, table, sizeof copy);
    for (uint32_t i = 0; i < XMIT_NIC_RETA_SIZE; i++) {
        if (copy[i] >= port->device->config.rx_queues)
            return -EINVAL;
    }
    pthread_mutex_lock(&port->peer->tx_lock);
    memcpy(port->rss.reta, copy, sizeof copy);
    pthread_mutex_unlock(&port->peer->tx_lock);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_rx_arm(int64_t handle, uint32_t q, uint32_t armed)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (q >= port->device->config.rx_queues || armed > 1)
        return -EINVAL;
    irq_arm(port, q, armed != 0);
    return 0;
}

XMIT_NIC_API int32_t xmit_nic_irq_wait(int64_t handle, uint32_t *out, uint32_t capacity, int32_t timeout_ms)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    if (capacity == 0 || timeout_ms < -1)
        return -EINVAL;
    if (bad_pointer(out, _Alignof(uint32_t)))
        return -EFAULT;
    return irq_wait(port->device, out, capacity, timeout_ms);
}

XMIT_NIC_API int32_t xmit_nic_irq_shutdown(int64_t handle)
{
    struct nic_port *port = port_of(handle);
    if (port == NULL)
        return -EBADF;
    irq_shutdown(port->device);
    return 0;
}
