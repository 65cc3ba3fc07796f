/*
 * NAPI-style receive interrupts. Each RX queue has an eventfd and an armed flag; the consumer arms a queue
 * when it goes idle, and the first frame to arrive afterwards disarms it and signals the eventfd, so every
 * arming yields exactly one signal. One thread per device sleeps in epoll over all of them, plus a shutdown
 * eventfd that, once written, keeps the epoll set ready so every later wait returns at once.
 *
 * A rated loop wire moves only inside calls, so frames waiting for tokens would never arrive, nor signal,
 * while the only thread about is asleep here. So the waiter moves the wires itself: before every sleep it
 * gives each port's wire a turn and sleeps no longer than until the next waiting frame is due. A wire that
 * gets frames waiting after its turn writes the device's wire eventfd (irq_wire_backlogged), which wakes
 * the waiter to take another look. No such wakeup is lost: the waiter publishes `waiting` before it takes a
 * wire's tx_lock for its turn, and a sender finds its backlog beginning under that same lock, so either
 * the turn sees the backlog or the sender sees `waiting`. A turn that finds the lock taken looks again soon.
 *
 * A backend with RX file descriptors of its own (afpacket's sockets) has no eventfds: arming puts the
 * queue's socket in the epoll set as EPOLLONESHOT, so the socket's first readiness disarms it and reports the
 * queue once, and disarming takes it out again (a socket left in the set, even with no events asked for,
 * would still report errors, on every wait). A socket is level-triggered, though: arming one that already
 * holds frames signals at once, where an eventfd queue signals only for later arrivals. Under NAPI's rule
 * (arm, then poll once more) that is one harmless extra wakeup, never a lost one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "shim.h"

/* epoll data of the shutdown and wire eventfds; queue signals carry port << 16 | queue, which never reaches
 * them. */
#define SHUTDOWN_TOKEN UINT64_MAX
#define WIRE_TOKEN (UINT64_MAX - 1)

/* The most events one wait can return: every RX queue of every port, plus shutdown and wire. */
#define EVENTS_MAX (XMIT_NIC_MAX_PORTS * XMIT_NIC_MAX_QUEUES + 2)

/*
 * The shortest sleep for a waiting frame: epoll counts in milliseconds, and a frame a little late is better
 * than a waiter spinning through the last fraction of one.
 */
#define WIRE_SLEEP_MIN_NS NS_PER_MS

/*
 * The error of a failed epoll_create1 or eventfd. Running out of descriptors, the process's limit (EMFILE)
 * or the system's (ENFILE), is reported as -ENFILE, so that it never reads as the shim's own -EMFILE, too
 * many open devices.
 */
static int32_t fd_error(void)
{
    return errno == EMFILE || errno == ENFILE ? -ENFILE : -errno;
}

static int32_t watch(int epoll_fd, int fd, uint64_t token)
{
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = token};
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : -errno;
}

int32_t irq_open(struct nic_device *device)
{
    const uint32_t queues = device->config.rx_queues;
    device->epoll_fd = -1;
    device->shutdown_fd = -1;
    device->wire_fd = -1;
    for (uint32_t p = 0; p < device->ports; p++) {
        struct nic_irq *irq = aligned_alloc(_Alignof(struct nic_irq), queues * sizeof *irq);
        if (irq == NULL)
            return -ENOMEM;
        memset(irq, 0, queues * sizeof *irq);
        for (uint32_t q = 0; q < queues; q++)
            irq[q].fd = -1;
        device->port[p].irq = irq;
    }
    device->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (device->epoll_fd < 0)
        return fd_error();
    device->shutdown_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (device->shutdown_fd < 0)
        return fd_error();
    device->wire_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (device->wire_fd < 0)
        return fd_error();
    int32_t rc = watch(device->epoll_fd, device->shutdown_fd, SHUTDOWN_TOKEN);
    if (rc == 0)
        rc = watch(device->epoll_fd, device->wire_fd, WIRE_TOKEN);
    for (uint32_t p = 0; p < device->ports && rc == 0 && !device->backend->rx_fd_irqs; p++) {
        for (uint32_t q = 0; q < queues && rc == 0; q++) {
            struct nic_irq *irq = &device->port[p].irq[q];
            irq->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            rc = irq->fd < 0 ? fd_error() : watch(device->epoll_fd, irq->fd, (uint64_t)p << 16 | q);
        }
    }
    return rc;
}

void irq_close(struct nic_device *device)
{
    for (uint32_t p = 0; p < device->ports; p++) {
        struct nic_irq *irq = device->port[p].irq;
        if (irq == NULL)
            continue;
        for (uint32_t q = 0; q < device->config.rx_queues && !device->backend->rx_fd_irqs; q++) {
            if (irq[q].fd >= 0)
                close(irq[q].fd);
        }
        free(irq);
        device->port[p].irq = NULL;
    }
    if (device->shutdown_fd >= 0)
        close(device->shutdown_fd);
    if (device->wire_fd >= 0)
        close(device->wire_fd);
    if (device->epoll_fd >= 0)
        close(device->epoll_fd);
}

void irq_raise(struct nic_port *port, uint64_t queues)
{
    for (; queues != 0; queues &= queues - 1) {
        struct nic_irq *irq = &port->irq[__builtin_ctzll(queues)];
        /*
         * No wakeup is lost: the frames were placed under the queue's lock, and a consumer arms before it
         * re-polls under that lock, so either its re-poll sees them or this load sees it armed. The plain load
         * keeps the common case, nobody waiting, free of a locked instruction.
         */
        if (atomic_load_explicit(&irq->armed, memory_order_relaxed) != 0 && atomic_exchange(&irq->armed, 0) != 0)
            (void)eventfd_write(irq->fd, 1); /* only a counter overflow could fail, and that leaves it readable */
    }
}

/*
 * Arms or disarms a queue that signals through its own descriptor. Arming re-enables the descriptor if a
 * signal has disabled it, or adds it; the epoll calls that fail here (the descriptor already in or out of
 * the set) only mean that another call got there first.
 */
static void arm_fd(struct nic_port *port, int fd, uint64_t token, bool armed)
{
    const int epoll_fd = port->device->epoll_fd;
    if (!armed) {
        (void)epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        return;
    }
    struct epoll_event event = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = token};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event) != 0 && errno == ENOENT &&
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0 && errno == EEXIST)
        (void)epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
}

void irq_arm(struct nic_port *port, uint32_t q, bool armed)
{
    if (port->device->backend->rx_fd_irqs)
        arm_fd(port, port->irq[q].fd, (uint64_t)port->index << 16 | q, armed);
    else
        atomic_store(&port->irq[q].armed, armed ? 1u : 0u);
}

void irq_wire_backlogged(struct nic_device *device)
{
    /* The plain load keeps the common case, nobody waiting, free of a locked instruction. */
    if (atomic_load_explicit(&device->waiting, memory_order_relaxed) && atomic_exchange(&device->waiting, false))
        (void)eventfd_write(device->wire_fd, 1); /* only a counter overflow could fail, and that leaves it readable */
}

/* epoll's timeout for a sleep of `ns`: rounded up, so that it never ends before what it waits for. */
static int timeout_of(uint64_t ns)
{
    if (ns == UINT64_MAX)
        return -1;
    const uint64_t ms = ns / NS_PER_MS + (ns % NS_PER_MS != 0);
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

int32_t irq_wait(struct nic_device *device, uint32_t *out, uint32_t capacity, int32_t timeout_ms)
{
    const uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : clock_ns() + (uint64_t)timeout_ms * NS_PER_MS;
    struct epoll_event events[EVENTS_MAX];
    const int max = (int)(capacity < EVENTS_MAX ? capacity : EVENTS_MAX);
    for (;;) {
        if (atomic_load(&device->shut_down))
            return -ECANCELED;
        atomic_store(&device->waiting, true);
        uint64_t due = UINT64_MAX;
        for (uint32_t p = 0; p < device->ports; p++) {
            const uint64_t next = device->backend->wire_poll(&device->port[p]);
            due = next < due ? next : due;
        }
        const uint64_t now = clock_ns();
        const uint64_t for_frame = due > WIRE_SLEEP_MIN_NS ? due : WIRE_SLEEP_MIN_NS;
        const uint64_t left = deadline == UINT64_MAX ? UINT64_MAX : deadline > now ? deadline - now : 0;
        const bool for_wire = due != UINT64_MAX && for_frame < left;
        const int ready = epoll_wait(device->epoll_fd, events, max, timeout_of(for_wire ? for_frame : left));
        atomic_store(&device->waiting, false);
        if (ready < 0)
            return errno == EINTR ? 0 : -errno;
        uint32_t count = 0;
        for (int i = 0; i < ready; i++) {
            const uint64_t token = events[i].data.u64;
            eventfd_t signals;
            if (token == SHUTDOWN_TOKEN)
                return -ECANCELED;
            if (token == WIRE_TOKEN) {
                (void)eventfd_read(device->wire_fd, &signals); /* only a look at the wires was asked for */
                continue;
            }
            const uint32_t port = (uint32_t)(token >> 16);
            const uint32_t q = (uint32_t)(token & 0xffff);
            /*
             * Reading consumes the signal; only a second waiter, which the ABI rules out, could find it gone. A
             * socket's frames are the rx_burst's to read: EPOLLONESHOT has already consumed its signal.
             */
            if (device->backend->rx_fd_irqs || eventfd_read(device->port[port].irq[q].fd, &signals) == 0)
                out[count++] = (uint32_t)token;
        }
        /* A sleep cut short for a wire, or a wakeup only to look at the wires, goes round again. */
        if (count != 0 || (ready == 0 && !for_wire) || clock_ns() >= deadline)
            return (int32_t)count;
    }
}

void irq_shutdown(struct nic_device *device)
{
    atomic_store(&device->shut_down, true);
    /* Never read, so it stays ready; a write could only fail on overflow, which leaves it ready too. */
    (void)eventfd_write(device->shutdown_fd, 1);
}
