/*
 * Receive-side scaling: the Toeplitz hash over the fields a NIC picks out of a frame, and the indirection
 * table that turns the hash into an RX queue. Agrees bit for bit with the Java Toeplitz in pipeline
 * (io.xmit.pipeline.flow.Toeplitz) and with the published verification vectors (design/rss-vectors.md).
 */
#include <string.h>

#include "shim.h"

/* The Microsoft default key, the one the verification vectors use. */
static const uint8_t default_key[XMIT_NIC_RSS_KEY_LENGTH] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Input offsets in the Toeplitz input: addresses first, then the two ports. */
#define IPV4_PORTS 8
#define IPV6_PORTS 32

#define ETH_HEADER 14
#define VLAN_TAG 4
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define IPV4_HEADER_MIN 20
#define IPV4_FRAGMENT 0x3fff /* the MF flag and the fragment offset */
#define IPV6_HEADER 40
#define PROTO_TCP 6
#define PROTO_UDP 17

void rss_init(struct nic_rss *rss, uint32_t rx_queues)
{
    rss_set_key(rss, default_key);
    for (uint32_t i = 0; i < XMIT_NIC_RETA_SIZE; i++)
        rss->reta[i] = i % rx_queues;
}

/* The 32 key bits starting at key bit `bit`, counting from the top bit of key[0]. */
static uint32_t window(const uint8_t *key, uint32_t bit)
{
    const uint32_t at = bit / 8;
    uint64_t forty = 0;
    for (uint32_t i = 0; i < 5; i++)
        forty = forty << 8 | key[at + i];
    return (uint32_t)(forty >> (8 - bit % 8));
}

void rss_set_key(struct nic_rss *rss, const uint8_t *key)
{
    memcpy(rss->key, key, XMIT_NIC_RSS_KEY_LENGTH);
    for (uint32_t position = 0; position < RSS_INPUT_MAX; position++) {
        uint32_t *row = rss->table[position];
        uint32_t windows[8];
        for (uint32_t bit = 0; bit < 8; bit++)
            windows[bit] = window(key, position * 8 + bit);
        /* Byte b's entry is the entry of b without its lowest set bit, plus that bit's window. */
        row[0] = 0;
        for (uint32_t b = 1; b < 256; b++)
            row[b] = row[b & (b - 1)] ^ windows[7 - (uint32_t)__builtin_ctz(b)];
    }
}

/* Inlined with a constant count and unrolled: the loads are independent, and this halves the hash's cost. */
static inline __attribute__((always_inline)) uint32_t toeplitz(const struct nic_rss *rss, uint32_t position,
                                                               const uint8_t *bytes, uint32_t count)
{
    uint32_t h = 0;
#pragma GCC unroll 32
    for (uint32_t i = 0; i < count; i++)
        h ^= rss->table[position + i][bytes[i]];
    return h;
}

static uint32_t be16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

/*
 * Ports are hashed only for TCP and UDP that is not a fragment (a fragment other than the first has no ports,
 * and all fragments of a packet must land on one queue); for IPv6 only when TCP or UDP is the first next
 * header, as simple NICs do. A frame cut off before its ports hashes its addresses; one cut off before its
 * addresses is not IP as far as RSS can tell.
 */
uint32_t rss_hash(const struct nic_rss *rss, const uint8_t *frame, uint32_t length)
{
    if (length < ETH_HEADER)
        return 0;
    uint32_t l3 = ETH_HEADER;
    uint32_t type = be16(frame + 12);
    if (type == ETHERTYPE_VLAN) {
        if (length < ETH_HEADER + VLAN_TAG)
            return 0;
        type = be16(frame + 16);
        l3 += VLAN_TAG;
    }
    const uint8_t *ip = frame + l3;
    if (type == ETHERTYPE_IPV4) {
        if (length < l3 + IPV4_HEADER_MIN || ip[0] >> 4 != 4)
            return 0;
        const uint32_t header = (ip[0] & 0xfu) * 4;
        if (header < IPV4_HEADER_MIN)
            return 0;
        uint32_t h = toeplitz(rss, 0, ip + 12, 8);
        if ((be16(ip + 6) & IPV4_FRAGMENT) == 0 && (ip[9] == PROTO_TCP || ip[9] == PROTO_UDP) &&
            length >= l3 + header + 4)
            h ^= toeplitz(rss, IPV4_PORTS, ip + header, 4);
        return h;
    }
    if (type == ETHERTYPE_IPV6) {
        if (length < l3 + IPV6_HEADER || ip[0] >> 4 != 6)
            return 0;
        uint32_t h = toeplitz(rss, 0, ip + 8, 32);
        if ((ip[6] == PROTO_TCP || ip[6] == PROTO_UDP) && length >= l3 + IPV6_HEADER + 4)
            h ^= toeplitz(rss, IPV6_PORTS, ip + IPV6_HEADER, 4);
        return h;
    }
    return 0;
}
