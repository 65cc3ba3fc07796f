package io.xmit.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.xmit.actors.trace.FlowFilter;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.pipeline.xps.XpsMask;
import io.xmit.transport.nic.NicSpec;
import io.xmit.transport.ring.RingsConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Everything a pipeline is built from, validated: the device, the CPUs, the qdisc, the rings, the ports' addresses
 * and the XPS maps to start with. Read from HOCON under {@code xmit { … }} with {@link #fromConfig(Config)}, or built
 * in code from {@link #defaults()} and the {@code with…} methods.
 *
 * @param name           the pipeline's name: it names the ring and counters files (letters, digits, '.', '_', '-').
 * @param device         the NIC spec, e.g. {@code loop:tx=4,rx=4,ring=1024}.
 * @param cpus           how many xmit CPUs (single-thread dispatchers).
 * @param cores          the core each CPU is pinned to, or empty for no pinning.
 * @param throughput     the CPU dispatchers' {@code throughput}.
 * @param quota          packets a qdisc handles per turn before yielding to its mailbox (kernel: dev_tx_weight 64).
 * @param bulkLimit      the most packets in one {@code tx_burst}.
 * @param bandLimit      packets per pfifo_fast band (the kernel's {@code tx_queue_len}).
 * @param overflow       what a qdisc does with a full backlog.
 * @param qdiscBypass    whether a qdisc with an empty backlog hands ring frames straight to the driver (§4.4, the
 *                       kernel's TCQ_F_CAN_BYPASS); off, every packet is enqueued and dequeued, for comparison.
 * @param spinPolls      empty polls an RX queue, qdisc or TX queue spins through before going idle (0: idle at once).
 * @param spinNanos      the longest spin in wall time, for every ring consumer: where many actors share a CPU, a
 *                       spin counted in polls alone lasts far longer than meant.
 * @param socketSpinPolls the same for sockets' receive sides; 0 by default, because a pipeline may have thousands of
 *                       sockets sharing a CPU, and each one spinning after every datagram would starve the queues.
 * @param rxBurst        frames per {@code rx_burst}.
 * @param qdiscRingTerm  the term length of each TX queue's ring (bytes, power of two).
 * @param socketRingTerm the term length of each socket's receive ring.
 * @param ports          per device port: MAC, addresses, the next hop (static MAC, or ARP) and ICMP.
 * @param xpsPreset      the XPS maps to start with.
 * @param xps            explicit XPS masks, applied after the preset.
 * @param countersDir    where the counters file lives.
 * @param txWatchdogTimeout how long a TX queue may stay stopped before the TX watchdog resets it (kernel-semantics §8;
 *                       the kernel's default {@code watchdog_timeo} is 5 s).
 * @param stopDeadline   how long a graceful stop waits for the pipeline to drain before it drops (and counts) what
 *                       is left.
 * @param trace          message-level tracing: which packets, the pcapng file, the trace ring ({@link TraceConfig}).
 */
public record PipelineConfig(
    String name,
    String device,
    int cpus,
    List<Integer> cores,
    int throughput,
    int quota,
    int bulkLimit,
    int bandLimit,
    OverflowPolicy overflow,
    boolean qdiscBypass,
    int spinPolls,
    long spinNanos,
    int socketSpinPolls,
    int rxBurst,
    int qdiscRingTerm,
    int socketRingTerm,
    List<PortAddress> ports,
    XpsPreset xpsPreset,
    List<XpsEntry> xps,
    Path countersDir,
    Duration txWatchdogTimeout,
    Duration stopDeadline,
    TraceConfig trace)
{
    /** An empty poll is one self-sent Poll message: ~50–150 ns here (stack.md), so 256 of them are ≈ 25 µs. */
    public static final int DEFAULT_SPIN_POLLS = 256;
    /** The wall-time cap of a spin: ≈ 25 µs, what an actor alone on its CPU spends in 256 empty polls. */
    public static final long DEFAULT_SPIN_NANOS = 25_000;
    public static final int MAX_BULK = 1024;
    public static final Duration DEFAULT_TX_WATCHDOG_TIMEOUT = Duration.ofSeconds(5);
    /** Short enough for a stop on JVM shutdown to fit Akka's 5 s phase timeout, close included. */
    public static final Duration DEFAULT_STOP_DEADLINE = Duration.ofSeconds(3);

    /**
     * The keys under {@code xmit} a pipeline reads. {@code tx-watchdog.timeout} and {@code stop.deadline} are read by
     * the TX watchdog and graceful stop.
     */
    public static final List<String> KEYS = List.of("name", "device", "cpus", "cores", "dispatcher-throughput",
        "qdisc.quota", "qdisc.bulk-limit", "qdisc.band-limit", "qdisc.overflow", "qdisc.bypass", "spin-polls", "spin-time",
        "socket-spin-polls", "rx.burst", "rings.qdisc-term-length", "rings.socket-term-length", "ports", "xps.preset",
        "xps.maps", "counters.directory", "tx-watchdog.timeout", "stop.deadline", "trace.sample", "trace.flow",
        "trace.socket", "trace.file", "trace.ring-size", "trace.snap-length");
    private static final List<String> PORT_KEYS = List.of("mac", "ipv4", "ipv6", "peer-mac", "prefix", "gateway",
        "arp", "icmp");
    private static final List<String> XPS_MAP_KEYS = List.of("port", "txq", "cpus", "rxqs");
    /** An application may define the CPU dispatchers {@code xmit.cpu-i} itself (see {@code Cpus}). */
    private static final Pattern CPU_DISPATCHER = Pattern.compile("cpu-\\d+");

    /**
     * Addresses of one device port, and what it does as a host.
     *
     * @param mac     this port's MAC, as a 48-bit value, or {@link #LINK_MAC}: the kernel interface's (afpacket).
     * @param ipv4    this port's IPv4 address, network order.
     * @param ipv6    this port's IPv6 address, high and low 64 bits.
     * @param peerMac the MAC frames from this port are sent to when ARP is off, and IPv6 frames always (there is no
     *                IPv6 neighbour discovery yet).
     * @param prefix  the IPv4 prefix length of the port's subnet: destinations inside it are on-link (their own next
     *                hop), the others go to {@code gateway}.
     * @param gateway the IPv4 next hop for destinations off the subnet, or 0 for none (every destination on-link).
     * @param arp     answer ARP requests for {@code ipv4} and resolve IPv4 next hops by ARP (frames wait in the host
     *                actor's neighbour table while their next hop resolves) instead of sending to {@code peerMac}.
     * @param icmp    answer ICMP echo requests to {@code ipv4} and send (rate-limited) ICMP port unreachable for UDP
     *                datagrams to a closed port.
     */
    public record PortAddress(long mac, int ipv4, long ipv6Hi, long ipv6Lo, long peerMac, int prefix, int gateway,
        boolean arp, boolean icmp)
    {
        /** {@link #mac()} when the port takes the MAC of the kernel interface it drives. */
        public static final long LINK_MAC = -1;
        public static final int DEFAULT_PREFIX = 24;

        public PortAddress
        {
            if (prefix < 0 || prefix > 32)
            {
                throw new IllegalArgumentException("IPv4 prefix length " + prefix + " is not in 0..32");
            }
        }

        /** A port with a static next hop, {@code peerMac}, and no host basics (the loop and null default). */
        public PortAddress(final long mac, final int ipv4, final long ipv6Hi, final long ipv6Lo, final long peerMac)
        {
            this(mac, ipv4, ipv6Hi, ipv6Lo, peerMac, DEFAULT_PREFIX, 0, false, false);
        }

        /** Port i of a default pipeline: MAC 02:00:00:00:00:0(i+1), 10.0.0.(i+1), fd00::(i+1). */
        public static PortAddress defaultFor(final int port, final int portCount)
        {
            final int peer = portCount > 1 ? port ^ 1 : port;
            return new PortAddress(0x0200_0000_0000L + port + 1, 0x0A00_0001 + port, 0xFD00_0000_0000_0000L, port + 1,
                0x0200_0000_0000L + peer + 1);
        }

        /**
         * The port of an afpacket device: the interface's MAC, 10.0.0.1/24, fd00::1, ARP and ICMP on; IPv6 frames go
         * to the broadcast MAC until there is neighbour discovery.
         */
        public static PortAddress defaultForInterface()
        {
            return new PortAddress(LINK_MAC, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1, 0xFFFF_FFFF_FFFFL,
                DEFAULT_PREFIX, 0, true, true);
        }

        /** This address with {@code newMac}. */
        public PortAddress withMac(final long newMac)
        {
            return new PortAddress(newMac, ipv4, ipv6Hi, ipv6Lo, peerMac, prefix, gateway, arp, icmp);
        }

        /** True when the port runs a host actor (ARP or ICMP). */
        public boolean hostBasics()
        {
            return arp || icmp;
        }
    }

    /** Explicit XPS masks for one TX queue, in the kernel's sysfs hex form; null leaves that map alone. */
    public record XpsEntry(int port, int txq, String cpus, String rxqs)
    {
    }

    public PipelineConfig
    {
        checkName(name);
        final NicSpec spec = parseDevice(device);
        check("xmit.cpus", cpus, 1, 256);
        cores = List.copyOf(cores);
        if (!cores.isEmpty() && cores.size() != cpus)
        {
            throw new IllegalArgumentException(
                "xmit.cores has " + cores.size() + " entries for " + cpus + " cpus; give one core per CPU or none");
        }
        for (final int core : cores)
        {
            check("xmit.cores", core, 0, 8191);
        }
        check("xmit.dispatcher-throughput", throughput, 1, 10_000);
        check("xmit.qdisc.quota", quota, 1, 1 << 16);
        check("xmit.qdisc.bulk-limit", bulkLimit, 1, MAX_BULK);
        check("xmit.qdisc.band-limit", bandLimit, 1, 1 << 20);
        if (null == overflow)
        {
            throw new IllegalArgumentException("xmit.qdisc.overflow must be set (backpressure or drop)");
        }
        check("xmit.spin-polls", spinPolls, 0, 1 << 24);
        check("xmit.socket-spin-polls", socketSpinPolls, 0, 1 << 24);
        if (spinNanos < 0 || spinNanos > 1_000_000_000L)
        {
            throw new IllegalArgumentException("xmit.spin-time = " + spinNanos + " ns is not in 0..1 s");
        }
        check("xmit.rx.burst", rxBurst, 1, spec.ringSize());
        checkTerm("xmit.rings.qdisc-term-length", qdiscRingTerm, spec.maxFrame());
        checkTerm("xmit.rings.socket-term-length", socketRingTerm, spec.maxFrame());
        ports = List.copyOf(ports);
        if (ports.size() != spec.backend().ports())
        {
            throw new IllegalArgumentException("xmit.ports has " + ports.size() + " entries but device '" + device +
                "' has " + spec.backend().ports() + " port(s)");
        }
        if (null == xpsPreset)
        {
            throw new IllegalArgumentException("xmit.xps.preset must be set (none, cpus or rxqs)");
        }
        xps = List.copyOf(xps);
        for (int i = 0; i < xps.size(); i++)
        {
            checkXpsEntry("xmit.xps.maps[" + i + "].", xps.get(i), ports.size(), spec, cpus);
        }
        if (null == countersDir)
        {
            throw new IllegalArgumentException("xmit.counters.directory must be set");
        }
        checkDuration("xmit.tx-watchdog.timeout", txWatchdogTimeout, Duration.ofMillis(1), Duration.ofHours(1));
        checkDuration("xmit.stop.deadline", stopDeadline, Duration.ZERO, Duration.ofHours(1));
        if (null == trace)
        {
            trace = TraceConfig.OFF;
        }
    }

    private static void checkDuration(final String key, final Duration value, final Duration min, final Duration max)
    {
        if (null == value || value.compareTo(min) < 0 || value.compareTo(max) > 0)
        {
            throw new IllegalArgumentException(key + " = " + value + " is not in " + min + ".." + max);
        }
    }

    /** One CPU per available processor, a {@code loop} device with 4 TX and 4 RX queues per port, no XPS. */
    public static PipelineConfig defaults()
    {
        final String device = "loop:tx=4,rx=4,ring=1024";
        return new PipelineConfig("xmit", device, Runtime.getRuntime().availableProcessors(), List.of(), 10, 64, 64,
            1000, OverflowPolicy.BACKPRESSURE, true, DEFAULT_SPIN_POLLS, DEFAULT_SPIN_NANOS, 0, 64, 8 << 20, 1 << 20,
            defaultPorts(device), XpsPreset.NONE, List.of(), RingsConfig.DEFAULT_DIRECTORY_BASE,
            DEFAULT_TX_WATCHDOG_TIMEOUT, DEFAULT_STOP_DEADLINE, TraceConfig.OFF);
    }

    /** The parsed device spec. */
    public NicSpec deviceSpec()
    {
        return NicSpec.parse(device);
    }

    public PipelineConfig withName(final String newName)
    {
        final Copy copy = new Copy(this);
        copy.name = newName;
        return copy.build();
    }

    /** A new device; the ports' addresses go back to the defaults if the backend or the port count changes. */
    public PipelineConfig withDevice(final String newDevice)
    {
        final Copy copy = new Copy(this);
        copy.device = newDevice;
        final NicSpec.Backend backend = parseDevice(newDevice).backend();
        if (backend.ports() != ports.size() || backend != parseDevice(device).backend())
        {
            copy.ports = defaultPorts(newDevice);
        }
        return copy.build();
    }

    /** A new CPU count; the cores to pin to are forgotten. */
    public PipelineConfig withCpus(final int newCpus)
    {
        final Copy copy = new Copy(this);
        copy.cpus = newCpus;
        copy.cores = List.of();
        return copy.build();
    }

    /** Pins CPU i to core {@code cores.get(i)}; an empty list for no pinning. */
    public PipelineConfig withCores(final List<Integer> newCores)
    {
        final Copy copy = new Copy(this);
        copy.cores = newCores;
        return copy.build();
    }

    public PipelineConfig withQdisc(final int newQuota, final int newBulkLimit, final int newBandLimit,
        final OverflowPolicy newOverflow)
    {
        final Copy copy = new Copy(this);
        copy.quota = newQuota;
        copy.bulkLimit = newBulkLimit;
        copy.bandLimit = newBandLimit;
        copy.overflow = newOverflow;
        return copy.build();
    }

    /** Whether a qdisc with an empty backlog bypasses it (§4.4); on by default. */
    public PipelineConfig withQdiscBypass(final boolean newQdiscBypass)
    {
        final Copy copy = new Copy(this);
        copy.qdiscBypass = newQdiscBypass;
        return copy.build();
    }

    /** The spin budget of RX queues, qdiscs and TX queues. */
    public PipelineConfig withSpinPolls(final int newSpinPolls)
    {
        final Copy copy = new Copy(this);
        copy.spinPolls = newSpinPolls;
        return copy.build();
    }

    /** The spin budget of sockets' receive sides. */
    public PipelineConfig withSocketSpinPolls(final int newSocketSpinPolls)
    {
        final Copy copy = new Copy(this);
        copy.socketSpinPolls = newSocketSpinPolls;
        return copy.build();
    }

    /** The ports' addresses and host basics, one per device port. */
    public PipelineConfig withPorts(final List<PortAddress> newPorts)
    {
        final Copy copy = new Copy(this);
        copy.ports = newPorts;
        return copy.build();
    }

    public PipelineConfig withRingTerms(final int newQdiscRingTerm, final int newSocketRingTerm)
    {
        final Copy copy = new Copy(this);
        copy.qdiscRingTerm = newQdiscRingTerm;
        copy.socketRingTerm = newSocketRingTerm;
        return copy.build();
    }

    public PipelineConfig withXps(final XpsPreset preset, final List<XpsEntry> entries)
    {
        final Copy copy = new Copy(this);
        copy.xpsPreset = preset;
        copy.xps = entries;
        return copy.build();
    }

    public PipelineConfig withCountersDir(final Path newCountersDir)
    {
        final Copy copy = new Copy(this);
        copy.countersDir = newCountersDir;
        return copy.build();
    }

    /** The TX watchdog's timeout and the graceful stop's deadline. */
    public PipelineConfig withReliability(final Duration newTxWatchdogTimeout, final Duration newStopDeadline)
    {
        final Copy copy = new Copy(this);
        copy.txWatchdogTimeout = newTxWatchdogTimeout;
        copy.stopDeadline = newStopDeadline;
        return copy.build();
    }

    /** Message-level tracing as configured (it can also be changed at run time through the pipeline). */
    public PipelineConfig withTrace(final TraceConfig newTrace)
    {
        final Copy copy = new Copy(this);
        copy.trace = newTrace;
        return copy.build();
    }

    /** A configuration's fields, to change some and build a new one (which validates them all again). */
    private static final class Copy
    {
        private String name;
        private String device;
        private int cpus;
        private List<Integer> cores;
        private int throughput;
        private int quota;
        private int bulkLimit;
        private int bandLimit;
        private OverflowPolicy overflow;
        private boolean qdiscBypass;
        private int spinPolls;
        private long spinNanos;
        private int socketSpinPolls;
        private int rxBurst;
        private int qdiscRingTerm;
        private int socketRingTerm;
        private List<PortAddress> ports;
        private XpsPreset xpsPreset;
        private List<XpsEntry> xps;
        private Path countersDir;
        private Duration txWatchdogTimeout;
        private Duration stopDeadline;
        private TraceConfig trace;

        Copy(final PipelineConfig from)
        {
            name = from.name;
            device = from.device;
            cpus = from.cpus;
            cores = from.cores;
            throughput = from.throughput;
            quota = from.quota;
            bulkLimit = from.bulkLimit;
            bandLimit = from.bandLimit;
            overflow = from.overflow;
            qdiscBypass = from.qdiscBypass;
            spinPolls = from.spinPolls;
            spinNanos = from.spinNanos;
            socketSpinPolls = from.socketSpinPolls;
            rxBurst = from.rxBurst;
            qdiscRingTerm = from.qdiscRingTerm;
            socketRingTerm = from.socketRingTerm;
            ports = from.ports;
            xpsPreset = from.xpsPreset;
            xps = from.xps;
            countersDir = from.countersDir;
            txWatchdogTimeout = from.txWatchdogTimeout;
            stopDeadline = from.stopDeadline;
            trace = from.trace;
        }

        PipelineConfig build()
        {
            return new PipelineConfig(name, device, cpus, cores, throughput, quota, bulkLimit, bandLimit, overflow,
                qdiscBypass, spinPolls, spinNanos, socketSpinPolls, rxBurst, qdiscRingTerm, socketRingTerm, ports, xpsPreset,
                xps, countersDir, txWatchdogTimeout, stopDeadline, trace);
        }
    }

    /**
     * Reads {@code xmit { … }} from {@code config}; missing keys take {@link #defaults()}. Every key under
     * {@code xmit} must be one this class knows (or a CPU dispatcher {@code xmit.cpu-i}), so a misspelt key is an
     * error rather than a default silently kept; a caller with keys of its own under {@code xmit} removes them first
     * ({@link Config#withoutPath}).
     *
     * @throws IllegalArgumentException with a one-line message naming the key, the value and what is allowed.
     */
    public static PipelineConfig fromConfig(final Config root)
    {
        try
        {
            return read(root);
        }
        catch (final ConfigException ex)
        {
            // What the checks below do not foresee (an unresolved substitution, say) keeps HOCON's own message.
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
    }

    private static PipelineConfig read(final Config root)
    {
        final PipelineConfig d = defaults();
        final ConfigValue section = root.root().get("xmit");
        if (null != section && ConfigValueType.OBJECT != section.valueType() &&
            ConfigValueType.NULL != section.valueType())
        {
            throw new IllegalArgumentException("xmit = " + render(section) +
                " is not an object; the configuration goes in xmit { … }");
        }
        final Config config = root.hasPath("xmit") ? root.getConfig("xmit") : ConfigFactory.empty();
        checkKeys(config);
        final String device = string(config, "device", d.device);
        final int cpus = integer(config, "cpus", d.cpus);
        final List<PortAddress> ports = new ArrayList<>(defaultPorts(device));
        final List<Config> portList = objects(config, "ports", PORT_KEYS);
        for (int i = 0; i < portList.size() && i < ports.size(); i++)
        {
            ports.set(i, port(portList.get(i), i, ports.get(i)));
        }
        if (config.hasPath("ports") && portList.size() != ports.size())
        {
            throw new IllegalArgumentException("xmit.ports has " + portList.size() + " entries but device '" +
                device + "' has " + ports.size() + " port(s)");
        }
        final List<XpsEntry> xps = new ArrayList<>();
        final List<Config> maps = objects(config, "xps.maps", XPS_MAP_KEYS);
        for (int i = 0; i < maps.size(); i++)
        {
            final Config entry = maps.get(i);
            final String at = "xmit.xps.maps[" + i + "].";
            if (!entry.hasPath("port") || !entry.hasPath("txq"))
            {
                throw new IllegalArgumentException("xmit.xps.maps[" + i + "] = " + render(entry.root()) +
                    " needs a port and a txq, e.g. { port = 0, txq = 1, cpus = \"2\" }");
            }
            xps.add(new XpsEntry(wholeNumber(at + "port", entry.getValue("port")),
                wholeNumber(at + "txq", entry.getValue("txq")),
                entry.hasPath("cpus") ? text(at + "cpus", entry.getValue("cpus")) : null,
                entry.hasPath("rxqs") ? text(at + "rxqs", entry.getValue("rxqs")) : null));
        }
        return new PipelineConfig(
            string(config, "name", d.name),
            device,
            cpus,
            cores(config),
            integer(config, "dispatcher-throughput", d.throughput),
            integer(config, "qdisc.quota", d.quota),
            integer(config, "qdisc.bulk-limit", d.bulkLimit),
            integer(config, "qdisc.band-limit", d.bandLimit),
            config.hasPath("qdisc.overflow") ?
                OverflowPolicy.of("xmit.qdisc.overflow", string(config, "qdisc.overflow", null)) : d.overflow,
            config.hasPath("qdisc.bypass") ? onOff(config, "qdisc.bypass") : d.qdiscBypass,
            integer(config, "spin-polls", d.spinPolls),
            config.hasPath("spin-time") ? duration(config, "spin-time").toNanos() : d.spinNanos,
            integer(config, "socket-spin-polls", d.socketSpinPolls),
            integer(config, "rx.burst", d.rxBurst),
            bytes(config, "rings.qdisc-term-length", d.qdiscRingTerm),
            bytes(config, "rings.socket-term-length", d.socketRingTerm),
            ports,
            config.hasPath("xps.preset") ?
                XpsPreset.of("xmit.xps.preset", string(config, "xps.preset", null)) : d.xpsPreset,
            xps,
            config.hasPath("counters.directory") ? Path.of(string(config, "counters.directory", null)) :
                d.countersDir,
            config.hasPath("tx-watchdog.timeout") ? duration(config, "tx-watchdog.timeout") : d.txWatchdogTimeout,
            config.hasPath("stop.deadline") ? duration(config, "stop.deadline") : d.stopDeadline,
            trace(config));
    }

    /** {@code xmit.trace { sample, flow, socket, file, ring-size, snap-length }}. */
    private static TraceConfig trace(final Config config)
    {
        final TraceConfig d = TraceConfig.OFF;
        final int sample = integer(config, "trace.sample", 0);
        final String flow = string(config, "trace.flow", "");
        final int socket = integer(config, "trace.socket", TraceSelector.ANY_SOCKET);
        final FlowFilter filter;
        try
        {
            filter = flow.isEmpty() ? null : FlowFilter.parse(flow);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("xmit.trace.flow: " + ex.getMessage(), ex);
        }
        if (sample < 0)
        {
            throw new IllegalArgumentException("xmit.trace.sample = " + sample + " is not 0 (every match of a " +
                "filter, or off) or N for one packet in N");
        }
        if (socket < TraceSelector.ANY_SOCKET)
        {
            throw new IllegalArgumentException("xmit.trace.socket = " + socket + " is not a socket id (or -1 for any)");
        }
        final TraceSelector selector = new TraceSelector(sample, filter, socket);
        return new TraceConfig(selector, string(config, "trace.file", d.file()),
            bytes(config, "trace.ring-size", d.ringSize()), integer(config, "trace.snap-length", d.snapLength()));
    }

    /** Every path under {@code xmit} must be a known key, or inside a CPU dispatcher's definition. */
    private static void checkKeys(final Config config)
    {
        for (final Map.Entry<String, ConfigValue> entry : config.entrySet())
        {
            final String path = entry.getKey();
            final List<String> parts = ConfigUtil.splitPath(path);
            if (!KEYS.contains(path) && !CPU_DISPATCHER.matcher(parts.get(0)).matches())
            {
                throw unknownKey("xmit.", parts, entry.getValue(), KEYS);
            }
        }
    }

    /**
     * The message for a key nobody reads: the keys that are allowed beside it, or, where an object of keys was
     * expected and a value found, that object's keys.
     */
    private static IllegalArgumentException unknownKey(
        final String prefix, final List<String> parts, final ConfigValue value, final List<String> known)
    {
        final String path = String.join(".", parts);
        final List<String> inside = new ArrayList<>();
        for (final String key : known)
        {
            if (key.startsWith(path + "."))
            {
                inside.add(key.substring(path.length() + 1));
            }
        }
        if (!inside.isEmpty())
        {
            return new IllegalArgumentException(prefix + path + " = " + render(value) + " is not an object; " +
                prefix + path + " holds " + String.join(", ", inside));
        }
        final String parent = parts.size() > 1 ? String.join(".", parts.subList(0, parts.size() - 1)) + "." : "";
        final List<String> siblings = new ArrayList<>();
        for (final String key : known)
        {
            if (key.startsWith(parent) && !siblings.contains(key.substring(parent.length()).split("\\.")[0]))
            {
                siblings.add(key.substring(parent.length()).split("\\.")[0]);
            }
        }
        final String where = parent.isEmpty() ? prefix.substring(0, prefix.length() - 1) :
            prefix + parent.substring(0, parent.length() - 1);
        return new IllegalArgumentException(prefix + path + " = " + render(value) + " is not a known key; " + where +
            (siblings.isEmpty() ? " holds no such key" : " knows " + String.join(", ", siblings)));
    }

    /** The list of objects at {@code key}, each holding only {@code keys}; empty when absent. */
    private static List<Config> objects(final Config config, final String key, final List<String> keys)
    {
        if (!config.hasPath(key))
        {
            return List.of();
        }
        final ConfigValue value = config.getValue(key);
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException("xmit." + key + " = " + render(value) + " is not a list of objects {" +
                String.join(", ", keys) + "}");
        }
        final List<Config> objects = new ArrayList<>();
        final ConfigList list = (ConfigList)value;
        for (int i = 0; i < list.size(); i++)
        {
            final String at = "xmit." + key + "[" + i + "]";
            if (ConfigValueType.OBJECT != list.get(i).valueType())
            {
                throw new IllegalArgumentException(at + " = " + render(list.get(i)) + " is not an object {" +
                    String.join(", ", keys) + "}");
            }
            final Config entry = ((ConfigObject)list.get(i)).toConfig();
            for (final Map.Entry<String, ConfigValue> field : entry.entrySet())
            {
                if (!keys.contains(field.getKey()))
                {
                    throw unknownKey(at + ".", ConfigUtil.splitPath(field.getKey()), field.getValue(), keys);
                }
            }
            objects.add(entry);
        }
        return objects;
    }

    private static List<Integer> cores(final Config config)
    {
        if (!config.hasPath("cores"))
        {
            return List.of();
        }
        final ConfigValue value = config.getValue("cores");
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException("xmit.cores = " + render(value) + " is not a list of cores, e.g. [2, 3]");
        }
        final List<Integer> cores = new ArrayList<>();
        for (final ConfigValue core : (ConfigList)value)
        {
            cores.add(wholeNumber("xmit.cores[" + cores.size() + "]", core));
        }
        return cores;
    }

    private static PortAddress port(final Config config, final int index, final PortAddress defaults)
    {
        final String at = "xmit.ports[" + index + "].";
        final long mac = config.hasPath("mac") ? mac(at + "mac", text(at + "mac", config.getValue("mac"))) :
            defaults.mac();
        final long peer = config.hasPath("peer-mac") ?
            parseMac(at + "peer-mac", text(at + "peer-mac", config.getValue("peer-mac"))) : defaults.peerMac();
        int ipv4 = defaults.ipv4();
        long hi = defaults.ipv6Hi();
        long lo = defaults.ipv6Lo();
        if (config.hasPath("ipv4"))
        {
            ipv4 = ipv4(at + "ipv4", text(at + "ipv4", config.getValue("ipv4")));
        }
        if (config.hasPath("ipv6"))
        {
            final byte[] a = address(at + "ipv6", text(at + "ipv6", config.getValue("ipv6")), 16);
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(a);
            hi = b.getLong();
            lo = b.getLong();
        }
        final int prefix = config.hasPath("prefix") ? wholeNumber(at + "prefix", config.getValue("prefix")) :
            defaults.prefix();
        check(at + "prefix", prefix, 0, 32);
        final int gateway = config.hasPath("gateway") ?
            ipv4(at + "gateway", text(at + "gateway", config.getValue("gateway"))) : defaults.gateway();
        return new PortAddress(mac, ipv4, hi, lo, peer, prefix, gateway,
            config.hasPath("arp") ? onOff(at + "arp", config.getValue("arp")) : defaults.arp(),
            config.hasPath("icmp") ? onOff(at + "icmp", config.getValue("icmp")) : defaults.icmp());
    }

    /** A MAC, or {@code link} for the kernel interface's ({@link PortAddress#LINK_MAC}). */
    private static long mac(final String key, final String text)
    {
        return "link".equals(text) ? PortAddress.LINK_MAC : parseMac(key, text);
    }

    private static int ipv4(final String key, final String text)
    {
        final byte[] a = address(key, text, 4);
        return ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    /** {@code on}/{@code off} (HOCON's true/false, yes/no read as booleans too). */
    private static boolean onOff(final String key, final ConfigValue value)
    {
        final Object unwrapped = value.unwrapped();
        if (unwrapped instanceof Boolean flag)
        {
            return flag;
        }
        if (unwrapped instanceof String text && ("on".equals(text) || "off".equals(text)))
        {
            return "on".equals(text);
        }
        throw new IllegalArgumentException(key + " = " + render(value) + " is not on or off");
    }

    /** A MAC in {@code aa:bb:cc:dd:ee:ff} form as a 48-bit value. */
    public static long parseMac(final String key, final String text)
    {
        final String[] parts = text.split(":", -1);
        if (parts.length != 6)
        {
            throw new IllegalArgumentException(
                key + " = '" + text + "' is not a MAC address like 02:00:00:00:00:01");
        }
        long mac = 0;
        for (final String part : parts)
        {
            if (part.length() != 2 || Character.digit(part.charAt(0), 16) < 0 ||
                Character.digit(part.charAt(1), 16) < 0)
            {
                throw new IllegalArgumentException(
                    key + " = '" + text + "' is not a MAC address like 02:00:00:00:00:01");
            }
            mac = (mac << 8) | Integer.parseInt(part, 16);
        }
        return mac;
    }

    private static byte[] address(final String key, final String text, final int length)
    {
        final boolean looksRight = length == 4 ? text.matches("[0-9.]+") : text.contains(":");
        try
        {
            final byte[] bytes = looksRight ? java.net.InetAddress.ofLiteral(text).getAddress() : null;
            if (null != bytes && bytes.length == length)
            {
                return bytes;
            }
        }
        catch (final IllegalArgumentException ignored)
        {
            // Reported below with the key.
        }
        throw new IllegalArgumentException(
            key + " = '" + text + "' is not an IPv" + (length == 4 ? "4" : "6") + " address literal");
    }

    private static List<PortAddress> defaultPorts(final String device)
    {
        final NicSpec spec = parseDevice(device);
        final int count = spec.backend().ports();
        final List<PortAddress> ports = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            ports.add(NicSpec.Backend.AFPACKET == spec.backend() ? PortAddress.defaultForInterface() :
                PortAddress.defaultFor(i, count));
        }
        return ports;
    }

    private static NicSpec parseDevice(final String device)
    {
        if (null == device)
        {
            throw new IllegalArgumentException("xmit.device must be set, e.g. loop:tx=4,rx=4,ring=1024");
        }
        try
        {
            return NicSpec.parse(device);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("xmit.device: " + ex.getMessage(), ex);
        }
    }

    private static void checkName(final String name)
    {
        if (null == name || !name.matches("[A-Za-z0-9._-]{1,64}"))
        {
            throw new IllegalArgumentException("xmit.name = " + (null == name ? "null" : "'" + name + "'") +
                " must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    private static void check(final String key, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(key + " = " + value + " is not in " + min + ".." + max);
        }
    }

    private static void checkTerm(final String key, final int termLength, final int maxFrame)
    {
        try
        {
            RingsConfig.defaults().withMaxFrameLength(Math.max(maxFrame, RingsConfig.MIN_FRAME_LENGTH))
                .withIpcTermLength(termLength);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(key + " = " + termLength + ": " + ex.getMessage(), ex);
        }
    }

    /** One XPS map entry: a port and TX queue of the device, masks in the sysfs form that fit its CPUs and queues. */
    private static void checkXpsEntry(final String at, final XpsEntry entry, final int portCount, final NicSpec spec,
        final int cpus)
    {
        check(at + "port", entry.port(), 0, portCount - 1);
        check(at + "txq", entry.txq(), 0, spec.txQueues() - 1);
        try
        {
            if (null != entry.cpus())
            {
                XpsMask.parseCpus(entry.cpus(), cpus, entry.txq());
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(at + "cpus: " + ex.getMessage(), ex);
        }
        try
        {
            if (null != entry.rxqs())
            {
                XpsMask.parseRxqs(entry.rxqs(), spec.rxQueues(), entry.txq());
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(at + "rxqs: " + ex.getMessage(), ex);
        }
    }

    private static String string(final Config config, final String key, final String fallback)
    {
        return config.hasPath(key) ? text("xmit." + key, config.getValue(key)) : fallback;
    }

    /** A word or number as text; HOCON would also turn a list or object into a type error without the value. */
    private static String text(final String key, final ConfigValue value)
    {
        if (ConfigValueType.OBJECT == value.valueType() || ConfigValueType.LIST == value.valueType())
        {
            throw new IllegalArgumentException(key + " = " + render(value) + " is not a string");
        }
        return String.valueOf(value.unwrapped());
    }

    /** {@code on} or {@code off}; HOCON's own booleans too, but no other word HOCON's getBoolean would take. */
    private static boolean onOff(final Config config, final String key)
    {
        final ConfigValue value = config.getValue(key);
        final Object unwrapped = value.unwrapped();
        if (unwrapped instanceof Boolean flag)
        {
            return flag;
        }
        if ("on".equals(unwrapped))
        {
            return true;
        }
        if ("off".equals(unwrapped))
        {
            return false;
        }
        throw new IllegalArgumentException("xmit." + key + " = " + render(value) + " is not on or off");
    }

    private static Duration duration(final Config config, final String key)
    {
        try
        {
            return config.getDuration(key);
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException("xmit." + key + " = " + render(config.getValue(key)) +
                " is not a duration, e.g. 25us, 10ms or 5s", ex);
        }
    }

    private static String render(final ConfigValue value)
    {
        return value.render(ConfigRenderOptions.concise());
    }

    private static int integer(final Config config, final String key, final int fallback)
    {
        return config.hasPath(key) ? wholeNumber("xmit." + key, config.getValue(key)) : fallback;
    }

    /** HOCON's getInt would read 2.5 as 2, and its type errors name neither the whole key nor the value. */
    private static int wholeNumber(final String key, final ConfigValue value)
    {
        final Object unwrapped = value.unwrapped();
        if (unwrapped instanceof Integer number)
        {
            return number;
        }
        if (unwrapped instanceof String text)
        {
            try
            {
                return Integer.parseInt(text.trim());
            }
            catch (final NumberFormatException ignored)
            {
                // Reported below with the key.
            }
        }
        throw new IllegalArgumentException(
            key + " = " + render(value) + " is not a whole number (an int)");
    }

    private static int bytes(final Config config, final String key, final int fallback)
    {
        if (!config.hasPath(key))
        {
            return fallback;
        }
        final long value;
        try
        {
            value = config.getBytes(key);
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException("xmit." + key + " = " + render(config.getValue(key)) +
                " is not a size in bytes, e.g. 65536, 128K or 8MiB", ex);
        }
        if (value > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("xmit." + key + " = " + value + " bytes is more than 1 GiB");
        }
        return (int)value;
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "PipelineConfig{name=%s, device=%s, cpus=%d, quota=%d, bulk=%d, " +
            "bandLimit=%d, overflow=%s, spinPolls=%d, xps=%s}", name, device, cpus, quota, bulkLimit, bandLimit,
            overflow.label(), spinPolls, xpsPreset.label());
    }
}
