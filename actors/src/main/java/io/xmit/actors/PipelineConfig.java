package io.xmit.actors;

import com.typesafe.config.Config;
import io.xmit.actors.config.ConfigValues;
import io.xmit.actors.config.HoconConfigReader;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.pipeline.xps.XpsMask;
import io.xmit.transport.nic.NicSpec;
import io.xmit.transport.ring.RingsConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

import static io.xmit.actors.config.ConfigKey.*;

/**
 * Everything a pipeline is built from, validated: the device, the CPUs, the qdisc, the rings, the ports' addresses
 * and the XPS maps to start with. Read from HOCON under {@code xmit { … }} with {@link #fromConfig(Config)}, or built
 * in code with {@link #builder()} (from {@link #defaults()}) or {@link #toBuilder()}. Each key's path and range are in
 * {@link io.xmit.actors.config.ConfigKey}; every check here names the key as the configuration spells it.
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
 * @param qdiscSenderBypass whether a sender that finds its TX queue's qdisc idle and the queue awake runs the qdisc
 *                       itself, in its own context, instead of waking the qdisc's actor (§4.4, {@code __dev_xmit_skb}
 *                       → {@code sch_direct_xmit}); off, only the actor runs it.
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
 * @param txqReselection how long a connected socket's cached TX queue is trusted while its packets are in flight
 *                       before XPS or the hash choose again (kernel-semantics §1.6, 6.19's
 *                       {@code txq_reselection_ms}); zero: never, as before 6.19.
 * @param countersDir    where the counters file lives.
 * @param txWatchdogTimeout how long a TX queue may stay stopped before the TX watchdog resets it (kernel-semantics §8;
 *                       the kernel's default {@code watchdog_timeo} is 5 s).
 * @param stopDeadline   how long a graceful stop waits for the pipeline to drain before it drops (and counts) what
 *                       is left.
 * @param trace          message-level tracing: which packets, the pcapng file, the trace ring ({@link TraceConfig}).
 * @param busyPoll       busy polling for every socket that does not set its own ({@link BusyPoll}, kernel-semantics
 *                       §9); {@link BusyPoll#OFF} by default.
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
    boolean qdiscSenderBypass,
    int spinPolls,
    long spinNanos,
    int socketSpinPolls,
    int rxBurst,
    int qdiscRingTerm,
    int socketRingTerm,
    List<PortAddress> ports,
    XpsPreset xpsPreset,
    List<XpsEntry> xps,
    Duration txqReselection,
    Path countersDir,
    Duration txWatchdogTimeout,
    Duration stopDeadline,
    TraceConfig trace,
    BusyPoll busyPoll)
{
    /** An empty poll is one self-sent Poll message: ~50–150 ns here (stack.md), so 256 of them are ≈ 25 µs. */
    public static final int DEFAULT_SPIN_POLLS = 256;
    /** The wall-time cap of a spin: ≈ 25 µs, what an actor alone on its CPU spends in 256 empty polls. */
    public static final long DEFAULT_SPIN_NANOS = 25_000;
    /** The kernel's default {@code txq_reselection_ms} (6.19). */
    public static final Duration DEFAULT_TXQ_RESELECTION = Duration.ofSeconds(1);
    public static final Duration DEFAULT_TX_WATCHDOG_TIMEOUT = Duration.ofSeconds(5);
    /** Short enough for a stop on JVM shutdown to fit Akka's 5 s phase timeout, close included. */
    public static final Duration DEFAULT_STOP_DEADLINE = Duration.ofSeconds(3);
    /**
     * The bypass in the sender's context (§4.4) is off by default: a sender that sends a burst with {@code send}
     * rather than runs of {@code sendMore} would run a turn, and a {@code tx_burst}, per packet (measured: bulk 1.1
     * instead of 64, docs/benchmarks.md); with runs, no gain was measurable here.
     */
    public static final boolean DEFAULT_SENDER_BYPASS = false;

    public PipelineConfig
    {
        checkName(name);
        final NicSpec spec = ConfigValues.device(DEVICE.key(), device);
        CPUS.check(cpus);
        cores = List.copyOf(cores);
        if (!cores.isEmpty() && cores.size() != cpus)
        {
            throw new IllegalArgumentException(CORES.key() + " has " + cores.size() + " entries for " + cpus +
                " cpus; give one core per CPU or none");
        }
        for (final int core : cores)
        {
            CORES.check(core);
        }
        DISPATCHER_THROUGHPUT.check(throughput);
        QDISC_QUOTA.check(quota);
        QDISC_BULK_LIMIT.check(bulkLimit);
        QDISC_BAND_LIMIT.check(bandLimit);
        if (null == overflow)
        {
            throw new IllegalArgumentException(QDISC_OVERFLOW.key() + " must be set (backpressure or drop)");
        }
        SPIN_POLLS.check(spinPolls);
        SOCKET_SPIN_POLLS.check(socketSpinPolls);
        SPIN_TIME.check(spinNanos);
        RX_BURST.check(rxBurst, spec.ringSize());
        checkTerm(RINGS_QDISC_TERM_LENGTH.key(), qdiscRingTerm, spec.maxFrame());
        checkTerm(RINGS_SOCKET_TERM_LENGTH.key(), socketRingTerm, spec.maxFrame());
        ports = List.copyOf(ports);
        if (ports.size() != spec.backend().ports())
        {
            throw new IllegalArgumentException(PORTS.key() + " has " + ports.size() + " entries but device '" +
                device + "' has " + spec.backend().ports() + " port(s)");
        }
        if (null == xpsPreset)
        {
            throw new IllegalArgumentException(XPS_PRESET.key() + " must be set (none, cpus or rxqs)");
        }
        xps = List.copyOf(xps);
        for (int i = 0; i < xps.size(); i++)
        {
            checkXpsEntry(i, xps.get(i), ports.size(), spec, cpus);
        }
        TXQ_RESELECTION.check(txqReselection);
        if (null == countersDir)
        {
            throw new IllegalArgumentException(COUNTERS_DIRECTORY.key() + " must be set");
        }
        TX_WATCHDOG_TIMEOUT.check(txWatchdogTimeout);
        STOP_DEADLINE.check(stopDeadline);
        if (null == trace)
        {
            trace = TraceConfig.OFF;
        }
        if (null == busyPoll)
        {
            busyPoll = BusyPoll.OFF;
        }
    }

    /** One CPU per available processor, a {@code loop} device with 4 TX and 4 RX queues per port, no XPS. */
    public static PipelineConfig defaults()
    {
        final String device = "loop:tx=4,rx=4,ring=1024";
        return new PipelineConfig("xmit", device, Runtime.getRuntime().availableProcessors(), List.of(), 10, 64, 64,
            1000, OverflowPolicy.BACKPRESSURE, true, DEFAULT_SENDER_BYPASS, DEFAULT_SPIN_POLLS, DEFAULT_SPIN_NANOS, 0,
            64, 8 << 20, 1 << 20,
            PortAddress.defaultsFor(NicSpec.parse(device)), XpsPreset.NONE, List.of(), DEFAULT_TXQ_RESELECTION,
            RingsConfig.DEFAULT_DIRECTORY_BASE, DEFAULT_TX_WATCHDOG_TIMEOUT, DEFAULT_STOP_DEADLINE, TraceConfig.OFF,
            BusyPoll.OFF);
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder()
    {
        return defaults().toBuilder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /**
     * Reads {@code xmit { … }} from {@code config} ({@link HoconConfigReader#fromConfig}); missing keys take
     * {@link #defaults()}, an unknown key under {@code xmit} is refused.
     *
     * @throws IllegalArgumentException with a one-line message naming the key, the value and what is allowed.
     */
    public static PipelineConfig fromConfig(final Config config)
    {
        return HoconConfigReader.fromConfig(config);
    }

    /** The parsed device spec. */
    public NicSpec deviceSpec()
    {
        return NicSpec.parse(device);
    }

    private static void checkName(final String name)
    {
        if (null == name || !name.matches("[A-Za-z0-9._-]{1,64}"))
        {
            throw new IllegalArgumentException(NAME.key() + " = " + (null == name ? "null" : "'" + name + "'") +
                " must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** A ring's term length, as {@link RingsConfig} checks it for the device's largest frame. */
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
    private static void checkXpsEntry(final int index, final XpsEntry entry, final int portCount, final NicSpec spec,
        final int cpus)
    {
        XPS_MAP_PORT.checkEntry(index, entry.port(), portCount - 1);
        XPS_MAP_TXQ.checkEntry(index, entry.txq(), spec.txQueues() - 1);
        try
        {
            if (null != entry.cpus())
            {
                XpsMask.parseCpus(entry.cpus(), cpus, entry.txq());
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(XPS_MAP_CPUS.key(index) + ": " + ex.getMessage(), ex);
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
            throw new IllegalArgumentException(XPS_MAP_RXQS.key(index) + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "PipelineConfig{name=%s, device=%s, cpus=%d, quota=%d, bulk=%d, " +
            "bandLimit=%d, overflow=%s, spinPolls=%d, xps=%s}", name, device, cpus, quota, bulkLimit, bandLimit,
            overflow.label(), spinPolls, xpsPreset.label());
    }

    /**
     * A configuration to change field by field, in the manner of Aeron's {@code MediaDriver.Context}: each setter sets
     * one field and returns the builder, and {@link #build()} makes a new {@link PipelineConfig}, checked as the
     * record checks every one.
     *
     * <p>Cores and ports' addresses are made for a CPU count and a device. Those of the configuration the builder
     * started from are kept while the CPU count and the device's backend stay; a new CPU count drops the cores (no
     * pinning), a new backend (loop, null, afpacket) brings the device's default addresses. What is set here is kept.
     */
    public static final class Builder
    {
        private final PipelineConfig from;
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
        private boolean qdiscSenderBypass;
        private int spinPolls;
        private long spinNanos;
        private int socketSpinPolls;
        private int rxBurst;
        private int qdiscRingTerm;
        private int socketRingTerm;
        private List<PortAddress> ports;
        private XpsPreset xpsPreset;
        private List<XpsEntry> xps;
        private Duration txqReselection;
        private Path countersDir;
        private Duration txWatchdogTimeout;
        private Duration stopDeadline;
        private TraceConfig trace;
        private BusyPoll busyPoll;

        private Builder(final PipelineConfig from)
        {
            this.from = from;
            name = from.name;
            device = from.device;
            cpus = from.cpus;
            throughput = from.throughput;
            quota = from.quota;
            bulkLimit = from.bulkLimit;
            bandLimit = from.bandLimit;
            overflow = from.overflow;
            qdiscBypass = from.qdiscBypass;
            qdiscSenderBypass = from.qdiscSenderBypass;
            spinPolls = from.spinPolls;
            spinNanos = from.spinNanos;
            socketSpinPolls = from.socketSpinPolls;
            rxBurst = from.rxBurst;
            qdiscRingTerm = from.qdiscRingTerm;
            socketRingTerm = from.socketRingTerm;
            xpsPreset = from.xpsPreset;
            xps = from.xps;
            txqReselection = from.txqReselection;
            countersDir = from.countersDir;
            txWatchdogTimeout = from.txWatchdogTimeout;
            stopDeadline = from.stopDeadline;
            trace = from.trace;
            busyPoll = from.busyPoll;
        }

        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        /** The NIC spec; another backend than the one started from brings its default port addresses. */
        public Builder device(final String device)
        {
            this.device = device;
            return this;
        }

        /** How many CPUs; another count than the one started from drops the cores to pin to. */
        public Builder cpus(final int cpus)
        {
            this.cpus = cpus;
            return this;
        }

        /** Pins CPU i to core {@code cores.get(i)}; an empty list for no pinning. */
        public Builder cores(final List<Integer> cores)
        {
            this.cores = cores;
            return this;
        }

        public Builder throughput(final int throughput)
        {
            this.throughput = throughput;
            return this;
        }

        public Builder quota(final int quota)
        {
            this.quota = quota;
            return this;
        }

        public Builder bulkLimit(final int bulkLimit)
        {
            this.bulkLimit = bulkLimit;
            return this;
        }

        public Builder bandLimit(final int bandLimit)
        {
            this.bandLimit = bandLimit;
            return this;
        }

        public Builder overflow(final OverflowPolicy overflow)
        {
            this.overflow = overflow;
            return this;
        }

        /** Whether a qdisc with an empty backlog bypasses it (§4.4); on by default. */
        public Builder qdiscBypass(final boolean qdiscBypass)
        {
            this.qdiscBypass = qdiscBypass;
            return this;
        }

        /** Whether senders may run an idle qdisc in their own context (§4.4); see {@link #DEFAULT_SENDER_BYPASS}. */
        public Builder qdiscSenderBypass(final boolean qdiscSenderBypass)
        {
            this.qdiscSenderBypass = qdiscSenderBypass;
            return this;
        }

        /** The spin budget of RX queues, qdiscs and TX queues. */
        public Builder spinPolls(final int spinPolls)
        {
            this.spinPolls = spinPolls;
            return this;
        }

        public Builder spinNanos(final long spinNanos)
        {
            this.spinNanos = spinNanos;
            return this;
        }

        /** The spin budget of sockets' receive sides. */
        public Builder socketSpinPolls(final int socketSpinPolls)
        {
            this.socketSpinPolls = socketSpinPolls;
            return this;
        }

        public Builder rxBurst(final int rxBurst)
        {
            this.rxBurst = rxBurst;
            return this;
        }

        public Builder qdiscRingTerm(final int qdiscRingTerm)
        {
            this.qdiscRingTerm = qdiscRingTerm;
            return this;
        }

        public Builder socketRingTerm(final int socketRingTerm)
        {
            this.socketRingTerm = socketRingTerm;
            return this;
        }

        /** The ports' addresses and host basics, one per device port. */
        public Builder ports(final List<PortAddress> ports)
        {
            this.ports = ports;
            return this;
        }

        public Builder xpsPreset(final XpsPreset xpsPreset)
        {
            this.xpsPreset = xpsPreset;
            return this;
        }

        /** Explicit XPS masks, applied after the preset. */
        public Builder xps(final List<XpsEntry> xps)
        {
            this.xps = xps;
            return this;
        }

        /** How long a busy socket's cached TX queue is trusted (§1.6); {@link Duration#ZERO}: forever. */
        public Builder txqReselection(final Duration txqReselection)
        {
            this.txqReselection = txqReselection;
            return this;
        }

        public Builder countersDir(final Path countersDir)
        {
            this.countersDir = countersDir;
            return this;
        }

        public Builder txWatchdogTimeout(final Duration txWatchdogTimeout)
        {
            this.txWatchdogTimeout = txWatchdogTimeout;
            return this;
        }

        public Builder stopDeadline(final Duration stopDeadline)
        {
            this.stopDeadline = stopDeadline;
            return this;
        }

        /** Message-level tracing as configured (it can also be changed at run time through the pipeline). */
        public Builder trace(final TraceConfig trace)
        {
            this.trace = trace;
            return this;
        }

        /** Busy polling for the sockets that do not set their own (§9); {@link BusyPoll#OFF} by default. */
        public Builder busyPoll(final BusyPoll busyPoll)
        {
            this.busyPoll = busyPoll;
            return this;
        }

        /** @throws IllegalArgumentException as the record's constructor does, naming the key and the value. */
        public PipelineConfig build()
        {
            return new PipelineConfig(name, device, cpus, cores(), throughput, quota, bulkLimit, bandLimit, overflow,
                qdiscBypass, qdiscSenderBypass, spinPolls, spinNanos, socketSpinPolls, rxBurst, qdiscRingTerm,
                socketRingTerm, ports(), xpsPreset, xps, txqReselection, countersDir, txWatchdogTimeout, stopDeadline,
                trace, busyPoll);
        }

        private List<Integer> cores()
        {
            if (null != cores)
            {
                return cores;
            }
            return cpus == from.cpus ? from.cores : List.of();
        }

        private List<PortAddress> ports()
        {
            if (null != ports)
            {
                return ports;
            }
            if (from.device.equals(device))
            {
                return from.ports;
            }
            final NicSpec spec = ConfigValues.device(DEVICE.key(), device);
            return spec.backend() == from.deviceSpec().backend() ? from.ports : PortAddress.defaultsFor(spec);
        }
    }
}
