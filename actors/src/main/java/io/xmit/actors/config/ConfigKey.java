package io.xmit.actors.config;

import io.xmit.actors.trace.TraceEvent;
import io.xmit.actors.trace.TraceSelector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Every key a pipeline reads under {@code xmit { … }}, each stated once: its path and, for a number or a duration,
 * the range it must be in and what the message says when it is not. The reader's list of known keys, the
 * configuration's range checks and their messages come from here; {@code reference.conf} and {@code docs/running.md}
 * list the same keys (deploy's {@code EveryKeyIsDocumentedTest} holds the three together). Defaults are
 * {@code PipelineConfig.defaults()}.
 *
 * <p>The order is the order of the messages that list keys, e.g. "xmit.qdisc knows quota, bulk-limit, …". A key of
 * the objects in a list ({@link #PORTS}, {@link #XPS_MAPS}) names its list; where a key's largest value is the
 * device's (a ring size, a port or queue count), its range here is open above and the check is given the device's.
 */
public enum ConfigKey
{
    NAME("name"),
    DEVICE("device"),
    CPUS("cpus", 1, 256),
    /** Each core of the list. */
    CORES("cores", 0, 8191),
    DISPATCHER_THROUGHPUT("dispatcher-throughput", 1, 10_000),
    QDISC_QUOTA("qdisc.quota", 1, 1 << 16),
    QDISC_BULK_LIMIT("qdisc.bulk-limit", 1, 1024),
    QDISC_BAND_LIMIT("qdisc.band-limit", 1, 1 << 20),
    QDISC_OVERFLOW("qdisc.overflow"),
    QDISC_BYPASS("qdisc.bypass"),
    QDISC_SENDER_BYPASS("qdisc.sender-bypass"),
    SPIN_POLLS("spin-polls", 0, 1 << 24),
    /** Checked in nanoseconds, as the configuration holds it. */
    SPIN_TIME("spin-time", 0, 1_000_000_000L, "ns is not in 0..1 s"),
    SOCKET_SPIN_POLLS("socket-spin-polls", 0, 1 << 24),
    /** kernel-semantics §9; the kernel's {@code net.core.busy_read} and {@code SO_BUSY_POLL} (µs); 0 turns it off. */
    BUSY_POLL("busy-poll", Duration.ZERO, Duration.ofSeconds(1)),
    /** The kernel's {@code BUSY_POLL_BUDGET} (8) and {@code SO_BUSY_POLL_BUDGET}. */
    BUSY_POLL_BUDGET("busy-poll-budget", 1, 1024),
    /** The kernel's {@code SO_PREFER_BUSY_POLL}. */
    PREFER_BUSY_POLL("prefer-busy-poll"),
    /** At most the device's ring size. */
    RX_BURST("rx.burst", 1, Long.MAX_VALUE),
    RINGS_QDISC_TERM_LENGTH("rings.qdisc-term-length"),
    RINGS_SOCKET_TERM_LENGTH("rings.socket-term-length"),
    PORTS("ports"),
    PORT_MAC(PORTS, "mac"),
    PORT_IPV4(PORTS, "ipv4"),
    PORT_IPV6(PORTS, "ipv6"),
    PORT_PEER_MAC(PORTS, "peer-mac"),
    PORT_PREFIX(PORTS, "prefix", 0, 32),
    PORT_GATEWAY(PORTS, "gateway"),
    PORT_ARP(PORTS, "arp"),
    PORT_ICMP(PORTS, "icmp"),
    XPS_PRESET("xps.preset"),
    XPS_MAPS("xps.maps"),
    /** A port of the device. */
    XPS_MAP_PORT(XPS_MAPS, "port", 0, Long.MAX_VALUE),
    /** A TX queue of the device. */
    XPS_MAP_TXQ(XPS_MAPS, "txq", 0, Long.MAX_VALUE),
    XPS_MAP_CPUS(XPS_MAPS, "cpus"),
    XPS_MAP_RXQS(XPS_MAPS, "rxqs"),
    /** kernel-semantics §1.6, the 6.19 sysctl {@code net.core.txq_reselection_ms} (default 1 s); 0 turns it off. */
    TXQ_RESELECTION("txq-reselection", Duration.ZERO, Duration.ofHours(1)),
    COUNTERS_DIRECTORY("counters.directory"),
    /** kernel-semantics §8; the kernel's default {@code watchdog_timeo} is 5 s. */
    TX_WATCHDOG_TIMEOUT("tx-watchdog.timeout", Duration.ofMillis(1), Duration.ofHours(1)),
    STOP_DEADLINE("stop.deadline", Duration.ZERO, Duration.ofHours(1)),
    TRACE_SAMPLE("trace.sample", 0, Long.MAX_VALUE,
        "is not 0 (every match of a filter, or off) or N for one packet in N"),
    TRACE_FLOW("trace.flow"),
    TRACE_SOCKET("trace.socket", TraceSelector.ANY_SOCKET, Long.MAX_VALUE, "is not a socket id (or -1 for any)"),
    TRACE_FILE("trace.file"),
    /** Also a power of two. */
    TRACE_RING_SIZE("trace.ring-size", 4096, 1 << 30, "is not a power of two in 4096..1 GiB"),
    TRACE_SNAP_LENGTH("trace.snap-length", 64, TraceEvent.MAX_SNAP_LENGTH);

    private final ConfigKey list;
    private final String path;
    private final long min;
    private final long max;
    private final String rule;

    ConfigKey(final String path)
    {
        this(null, path, Long.MIN_VALUE, Long.MAX_VALUE, null);
    }

    ConfigKey(final String path, final long min, final long max)
    {
        this(null, path, min, max, null);
    }

    ConfigKey(final String path, final long min, final long max, final String rule)
    {
        this(null, path, min, max, rule);
    }

    /** A duration, checked in nanoseconds; the message gives the range as HOCON writes durations ({@code 1ms..1h}). */
    ConfigKey(final String path, final Duration min, final Duration max)
    {
        this(null, path, min.toNanos(), max.toNanos(), "is not in " + ConfigValues.render(min) + ".." + ConfigValues.render(max));
    }

    ConfigKey(final ConfigKey list, final String path)
    {
        this(list, path, Long.MIN_VALUE, Long.MAX_VALUE, null);
    }

    ConfigKey(final ConfigKey list, final String path, final long min, final long max)
    {
        this(list, path, min, max, null);
    }

    ConfigKey(final ConfigKey list, final String path, final long min, final long max, final String rule)
    {
        this.list = list;
        this.path = path;
        this.min = min;
        this.max = max;
        this.rule = rule;
    }

    /** The paths of the keys directly under {@code xmit}, in the table's order. */
    public static List<String> keys()
    {
        return fieldsOf(null);
    }

    /** The keys of this list's objects, e.g. {@code mac, ipv4, …} of {@link #PORTS}; empty for a key not a list. */
    public List<String> fields()
    {
        return fieldsOf(this);
    }

    private static List<String> fieldsOf(final ConfigKey list)
    {
        final List<String> paths = new ArrayList<>();
        for (final ConfigKey key : values())
        {
            if (list == key.list)
            {
                paths.add(key.path);
            }
        }
        return List.copyOf(paths);
    }

    /** The path under {@code xmit}, or inside each object of a list: {@code qdisc.quota}, {@code prefix}. */
    public String path()
    {
        return path;
    }

    /** The key as messages name it: {@code xmit.qdisc.quota}. */
    public String key()
    {
        return "xmit." + path;
    }

    /** The key of this field in object {@code entry} of its list: {@code xmit.ports[1].prefix}. */
    public String key(final int entry)
    {
        return list.key() + "[" + entry + "]." + path;
    }

    /** @throws IllegalArgumentException naming the key, the value and the range when the value is not in it. */
    public void check(final long value)
    {
        check(key(), value, max);
    }

    /** {@link #check(long)} where the device allows at most {@code limit}. */
    public void check(final long value, final long limit)
    {
        check(key(), value, Math.min(max, limit));
    }

    /** {@link #check(long)} for this field of object {@code entry} of its list. */
    public void checkEntry(final int entry, final long value)
    {
        check(key(entry), value, max);
    }

    /** {@link #check(long, long)} for this field of object {@code entry} of its list. */
    public void checkEntry(final int entry, final long value, final long limit)
    {
        check(key(entry), value, Math.min(max, limit));
    }

    /** @throws IllegalArgumentException naming the key, the value and the range when the value is null or outside. */
    public void check(final Duration value)
    {
        if (null == value || value.compareTo(Duration.ofNanos(min)) < 0 || value.compareTo(Duration.ofNanos(max)) > 0)
        {
            throw refused(ConfigValues.render(value));
        }
    }

    /** The message for a value this key does not allow: {@code xmit.qdisc.quota = 0 is not in 1..65536}. */
    public IllegalArgumentException refused(final Object value)
    {
        return new IllegalArgumentException(key() + " = " + value + " " + rule(max));
    }

    private void check(final String key, final long value, final long upTo)
    {
        if (value < min || value > upTo)
        {
            throw new IllegalArgumentException(key + " = " + value + " " + rule(upTo));
        }
    }

    private String rule(final long upTo)
    {
        return null != rule && upTo == max ? rule : "is not in " + min + ".." + upTo;
    }
}
