/*
 * Device spec parsing: "backend" or "backend:key=value,key=value...". Strict on purpose: a spec is written by
 * a person in a configuration file, so anything odd (an unknown or repeated key, an empty value, a number
 * that does not fit) is refused with a message naming it and what would be accepted, never guessed at.
 */
#include <errno.h>
#include <string.h>

#include "shim.h"

/* Far longer than any sensible spec; bounds how much of a caller's string is ever read. */
#define SPEC_MAX 1024
/* How much of a bad value a message quotes. */
#define QUOTE_MAX 40

#define PPS_MAX 1000000000ull     /* 1000Mpps */
#define BPS_MAX 1000000000000ull  /* 1000Gbit */

/* Every refusal is -EINVAL with a message; `err` and `err_len` are in scope wherever this is used. */
#define INVALID(...) report(-EINVAL, err, err_len, __VA_ARGS__)

#define RATE_ALLOWED                                                                                   \
    "allowed 0 (unlimited) or one or two terms joined by '+', each a number with unit pps, kpps, Mpps, " \
    "bps, kbit, Mbit or Gbit (a bare number is pps), at most one packet rate (1pps..1000Mpps) and one "  \
    "bit rate (1bps..1000Gbit)"

enum key { KEY_TX, KEY_RX, KEY_RING, KEY_RATE, KEY_FRAME, KEY_IF, KEY_QUEUES, KEYS };

static const char *const key_names[KEYS] = {"tx", "rx", "ring", "rate", "frame", "if", "queues"};

/* The range of each key that takes a plain count (all but rate and if). */
static const struct {
    uint32_t min;
    uint32_t max;
} ranges[KEYS] = {
    [KEY_TX] = {1, XMIT_NIC_MAX_QUEUES},
    [KEY_RX] = {1, XMIT_NIC_MAX_QUEUES},
    [KEY_RING] = {XMIT_NIC_MIN_RING, XMIT_NIC_MAX_RING},
    [KEY_FRAME] = {XMIT_NIC_MIN_FRAME, XMIT_NIC_MAX_FRAME},
    [KEY_QUEUES] = {1, XMIT_NIC_MAX_QUEUES},
};

struct syntax {
    const char *name;
    uint32_t backend;
    unsigned keys;          /* a bit per enum key */
    const char *key_list;   /* the same, for messages */
};

static const struct syntax syntaxes[] = {
    {"null", XMIT_NIC_BACKEND_NULL, 1u << KEY_TX | 1u << KEY_RX | 1u << KEY_RING | 1u << KEY_FRAME,
     "tx, rx, ring, frame"},
    {"loop", XMIT_NIC_BACKEND_LOOP, 1u << KEY_TX | 1u << KEY_RX | 1u << KEY_RING | 1u << KEY_RATE | 1u << KEY_FRAME,
     "tx, rx, ring, rate, frame"},
    {"afpacket", XMIT_NIC_BACKEND_AFPACKET, 1u << KEY_IF | 1u << KEY_QUEUES | 1u << KEY_RING | 1u << KEY_FRAME,
     "if, queues, ring, frame"},
};

struct unit {
    const char *name;
    uint64_t multiplier;
    bool bits;
};

static const struct unit units[] = {
    {"", 1, false},   {"pps", 1, false},     {"kpps", 1000, false},    {"Mpps", 1000000, false},
    {"bps", 1, true}, {"kbit", 1000, true},  {"Mbit", 1000000, true},  {"Gbit", 1000000000, true},
};

/* A piece of the spec; never NUL-terminated. */
struct text {
    const char *at;
    size_t length;
};

/* printf arguments that quote a piece, long ones cut short: "%.*s%s". */
#define QUOTE(t) (int)((t).length < QUOTE_MAX ? (t).length : QUOTE_MAX), (t).at, ((t).length > QUOTE_MAX ? "..." : "")

static bool text_is(struct text t, const char *word)
{
    return strlen(word) == t.length && memcmp(t.at, word, t.length) == 0;
}

/* Splits t at the first `c` into head (before it) and t (after it); without a `c`, head is all of t. */
static bool split(struct text *t, char c, struct text *head)
{
    const char *at = memchr(t->at, c, t->length);
    if (at == NULL) {
        *head = *t;
        return false;
    }
    head->at = t->at;
    head->length = (size_t)(at - t->at);
    t->length -= head->length + 1;
    t->at = at + 1;
    return true;
}

/* The value of t's leading decimal digits and how many there are; false if the value overflows. */
static bool leading_number(struct text t, uint64_t *value, size_t *digits)
{
    uint64_t v = 0;
    bool fits = true;
    size_t i = 0;
    for (; i < t.length && t.at[i] >= '0' && t.at[i] <= '9'; i++) {
        const uint64_t d = (uint64_t)(t.at[i] - '0');
        fits = fits && v <= (UINT64_MAX - d) / 10;
        v = v * 10 + d;
    }
    *value = v;
    *digits = i;
    return fits;
}

static int32_t parse_count(const struct syntax *s, struct text value, enum key k, uint32_t *out, char *err,
                           uint32_t err_len)
{
    const uint32_t min = ranges[k].min, max = ranges[k].max;
    if (value.length == 0)
        return INVALID("%s spec: %s= has an empty value; allowed %u..%u", s->name, key_names[k], min, max);
    uint64_t v;
    size_t digits;
    const bool fits = leading_number(value, &v, &digits);
    if (digits != value.length)
        return INVALID("%s spec: %s=%.*s%s is not a number; allowed %u..%u", s->name, key_names[k], QUOTE(value),
                       min, max);
    if (!fits || v < min || v > max)
        return INVALID("%s spec: %s=%.*s%s is out of range; allowed %u..%u", s->name, key_names[k], QUOTE(value),
                       min, max);
    *out = (uint32_t)v;
    return 0;
}

/*
 * if: an interface name as the kernel accepts one (dev_valid_name): 1..IFNAMSIZ-1 bytes, not "." or "..", no
 * '/', ':' or white space. A ',' or '=' could not have reached here: they end the entry or its key.
 */
static int32_t parse_interface(const struct syntax *s, struct text value, struct nic_config *config, char *err,
                               uint32_t err_len)
{
    const size_t max = sizeof config->interface - 1;
    if (value.length == 0 || value.length > max)
        return INVALID("%s spec: if=%.*s%s: an interface name has 1..%zu characters", s->name, QUOTE(value), max);
    if (text_is(value, ".") || text_is(value, ".."))
        return INVALID("%s spec: if=%.*s%s is not an interface name", s->name, QUOTE(value));
    for (size_t i = 0; i < value.length; i++) {
        const char c = value.at[i];
        if (c == '/' || c == ':' || c == ' ' || (c >= '\t' && c <= '\r'))
            return INVALID("%s spec: if=%.*s%s: an interface name has no '/', ':' or white space", s->name,
                           QUOTE(value));
    }
    memcpy(config->interface, value.at, value.length);
    config->interface[value.length] = '\0';
    return 0;
}

/* rate: 0, or one or two terms joined by '+', each a number and a unit; at most one of each kind. */
static int32_t parse_rate(const struct syntax *s, struct text value, struct nic_config *config, char *err,
                          uint32_t err_len)
{
    uint64_t v;
    size_t digits;
    if (value.length == 0)
        return INVALID("%s spec: rate= has an empty value; " RATE_ALLOWED, s->name);
    if (leading_number(value, &v, &digits) && digits == value.length && v == 0)
        return 0; /* unlimited, as the defaults already say */
    struct text rest = value, term;
    if (split(&rest, '+', &term) && memchr(rest.at, '+', rest.length) != NULL)
        return INVALID("%s spec: rate=%.*s%s has more than two terms; " RATE_ALLOWED, s->name, QUOTE(value));
    rest = value;
    bool more = true;
    while (more) {
        more = split(&rest, '+', &term);
        if (term.length == 0)
            return INVALID("%s spec: rate=%.*s%s has an empty term; " RATE_ALLOWED, s->name, QUOTE(value));
        const bool fits = leading_number(term, &v, &digits);
        if (digits == 0)
            return INVALID("%s spec: rate=%.*s%s: '%.*s%s' does not start with a number; " RATE_ALLOWED, s->name,
                           QUOTE(value), QUOTE(term));
        const struct text unit_name = {term.at + digits, term.length - digits};
        const struct unit *unit = NULL;
        for (size_t i = 0; i < sizeof units / sizeof units[0] && unit == NULL; i++) {
            if (text_is(unit_name, units[i].name))
                unit = &units[i];
        }
        if (unit == NULL)
            return INVALID("%s spec: rate=%.*s%s has unknown unit '%.*s%s'; " RATE_ALLOWED, s->name, QUOTE(value),
                           QUOTE(unit_name));
        uint64_t *rate = unit->bits ? &config->rate_bps : &config->rate_pps;
        if (*rate != 0)
            return INVALID("%s spec: rate=%.*s%s has two %s rates; " RATE_ALLOWED, s->name, QUOTE(value),
                           unit->bits ? "bit" : "packet");
        if (!fits || v == 0 || v > (unit->bits ? BPS_MAX : PPS_MAX) / unit->multiplier)
            return INVALID("%s spec: rate=%.*s%s: '%.*s%s' is out of range; " RATE_ALLOWED, s->name, QUOTE(value),
                           QUOTE(term));
        *rate = v * unit->multiplier;
    }
    return 0;
}

int32_t spec_parse(const char *spec, struct nic_config *config, char *err, uint32_t err_len)
{
    const size_t length = strnlen(spec, SPEC_MAX + 1);
    if (length > SPEC_MAX)
        return INVALID("spec is longer than %d characters", SPEC_MAX);
    const struct text whole = {spec, length};
    struct text rest = whole, name;
    const bool has_keys = split(&rest, ':', &name);
    const struct syntax *s = NULL;
    for (size_t i = 0; i < sizeof syntaxes / sizeof syntaxes[0] && s == NULL; i++) {
        if (text_is(name, syntaxes[i].name))
            s = &syntaxes[i];
    }
    if (s == NULL)
        return INVALID("spec '%.*s%s': unknown backend '%.*s%s'; known backends: null, loop, afpacket", QUOTE(whole),
                       QUOTE(name));

    *config = (struct nic_config){
        .backend = s->backend,
        .tx_queues = 1,
        .rx_queues = 1,
        .ring = 1024,
        .max_frame = XMIT_NIC_DEFAULT_FRAME,
    };
    uint32_t *const counted[KEYS] = {
        [KEY_TX] = &config->tx_queues,
        [KEY_RX] = &config->rx_queues,
        [KEY_RING] = &config->ring,
        [KEY_FRAME] = &config->max_frame,
        [KEY_QUEUES] = &config->tx_queues,
    };
    unsigned seen = 0;
    bool more = has_keys;
    while (more) {
        struct text item, key;
        more = split(&rest, ',', &item);
        if (item.length == 0)
            return INVALID("%s spec: an empty entry (a ',' too many, or nothing after ':'); expected key=value "
                           "pairs with keys %s", s->name, s->key_list);
        if (!split(&item, '=', &key))
            return INVALID("%s spec: '%.*s%s' has no '='; expected key=value with keys %s", s->name, QUOTE(item),
                           s->key_list);
        unsigned k = 0;
        while (k < KEYS && !text_is(key, key_names[k]))
            k++;
        if (k == KEYS || (s->keys & 1u << k) == 0)
            return INVALID("%s spec: key '%.*s%s' is unknown; known keys: %s", s->name, QUOTE(key), s->key_list);
        if (seen & 1u << k)
            return INVALID("%s spec: key '%s' is given twice", s->name, key_names[k]);
        seen |= 1u << k;
        const int32_t rc = k == KEY_RATE ? parse_rate(s, item, config, err, err_len)
                           : k == KEY_IF ? parse_interface(s, item, config, err, err_len)
                                         : parse_count(s, item, (enum key)k, counted[k], err, err_len);
        if (rc != 0)
            return rc;
    }
    if (s->backend == XMIT_NIC_BACKEND_AFPACKET) {
        if ((seen & 1u << KEY_IF) == 0)
            return INVALID("%s spec: key 'if' is missing; name the interface, e.g. afpacket:if=eth1,queues=4",
                           s->name);
        config->rx_queues = config->tx_queues;  /* queues= counts both */
    }
    return 0;
}
