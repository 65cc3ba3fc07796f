package io.xmit.actors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.xmit.actors.BusyPoll;
import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.XpsEntry;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.trace.FlowFilter;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

import static io.xmit.actors.config.ConfigKey.*;

/**
 * Reads a {@link PipelineConfig} from HOCON under {@code xmit { … }}: the keys of {@link ConfigKey}, each value
 * parsed by {@link ConfigValues}, what is missing taken from {@link PipelineConfig#defaults()}, and the whole checked
 * by the record.
 */
public final class HoconConfigReader
{
    /** An application may define the CPU dispatchers {@code xmit.cpu-i} itself (see {@code Cpus}). */
    private static final Pattern CPU_DISPATCHER = Pattern.compile("cpu-\\d+");
    private static final String DURATIONS = "25us, 10ms or 5s";

    private HoconConfigReader()
    {
    }

    /**
     * Reads {@code xmit { … }} from {@code root}; missing keys take {@link PipelineConfig#defaults()}. Every key
     * under {@code xmit} must be one of {@link ConfigKey} (or a CPU dispatcher {@code xmit.cpu-i}), so a misspelt key
     * is an error rather than a default silently kept; a caller with keys of its own under {@code xmit} removes them
     * first ({@link Config#withoutPath}).
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
        final ConfigValue section = root.root().get("xmit");
        if (null != section && ConfigValueType.OBJECT != section.valueType() &&
            ConfigValueType.NULL != section.valueType())
        {
            throw new IllegalArgumentException("xmit = " + ConfigValues.render(section) +
                " is not an object; the configuration goes in xmit { … }");
        }
        final Config config = root.hasPath("xmit") ? root.getConfig("xmit") : ConfigFactory.empty();
        checkKeys(config);
        final PipelineConfig defaults = PipelineConfig.defaults();
        final PipelineConfig.Builder builder = defaults.toBuilder();
        // The device, CPUs, ports and XPS maps first (the ports' defaults are the device's), then the rest in the
        // table's order: where several values are bad, the first read is the one reported.
        final String device = text(config, DEVICE).orElse(defaults.device());
        builder.device(device);
        integer(config, CPUS).ifPresent(builder::cpus);
        builder.ports(ports(config, device));
        builder.xps(xpsMaps(config));
        text(config, NAME).ifPresent(builder::name);
        cores(config).ifPresent(builder::cores);
        integer(config, DISPATCHER_THROUGHPUT).ifPresent(builder::throughput);
        integer(config, QDISC_QUOTA).ifPresent(builder::quota);
        integer(config, QDISC_BULK_LIMIT).ifPresent(builder::bulkLimit);
        integer(config, QDISC_BAND_LIMIT).ifPresent(builder::bandLimit);
        text(config, QDISC_OVERFLOW).map(label -> OverflowPolicy.of(QDISC_OVERFLOW.key(), label))
            .ifPresent(builder::overflow);
        onOff(config, QDISC_BYPASS).ifPresent(builder::qdiscBypass);
        onOff(config, QDISC_SENDER_BYPASS).ifPresent(builder::qdiscSenderBypass);
        integer(config, SPIN_POLLS).ifPresent(builder::spinPolls);
        duration(config, SPIN_TIME).map(Duration::toNanos).ifPresent(builder::spinNanos);
        integer(config, SOCKET_SPIN_POLLS).ifPresent(builder::socketSpinPolls);
        builder.busyPoll(busyPoll(config, defaults.busyPoll()));
        integer(config, RX_BURST).ifPresent(builder::rxBurst);
        bytes(config, RINGS_QDISC_TERM_LENGTH).ifPresent(builder::qdiscRingTerm);
        bytes(config, RINGS_SOCKET_TERM_LENGTH).ifPresent(builder::socketRingTerm);
        text(config, XPS_PRESET).map(label -> XpsPreset.of(XPS_PRESET.key(), label)).ifPresent(builder::xpsPreset);
        duration(config, TXQ_RESELECTION).ifPresent(builder::txqReselection);
        text(config, COUNTERS_DIRECTORY).map(Path::of).ifPresent(builder::countersDir);
        duration(config, TX_WATCHDOG_TIMEOUT).ifPresent(builder::txWatchdogTimeout);
        duration(config, STOP_DEADLINE).ifPresent(builder::stopDeadline);
        return builder.trace(trace(config)).build();
    }

    /** Every path under {@code xmit} must be a known key, or inside a CPU dispatcher's definition. */
    private static void checkKeys(final Config config)
    {
        final List<String> known = ConfigKey.keys();
        for (final Map.Entry<String, ConfigValue> entry : config.entrySet())
        {
            final String path = entry.getKey();
            final List<String> parts = ConfigUtil.splitPath(path);
            if (!known.contains(path) && !CPU_DISPATCHER.matcher(parts.get(0)).matches())
            {
                throw unknownKey("xmit.", parts, entry.getValue(), known);
            }
        }
    }

    /**
     * The message for a key nobody reads: the keys that are allowed beside it, or, where an object of keys was
     * expected and a value found, that object's keys. Public for the other readers of configuration (deploy's
     * cluster file), so every unknown key reads alike.
     *
     * @param prefix what comes before {@code parts} in the message, e.g. {@code xmit.} or {@code xmit.ports[1].}.
     * @param parts  the unknown key's path under {@code prefix}, split.
     * @param value  its value.
     * @param known  the known paths under {@code prefix}.
     */
    public static IllegalArgumentException unknownKey(
        final String prefix, final List<String> parts, final ConfigValue value, final List<String> known)
    {
        final String path = String.join(".", parts);
        final String rendered = ConfigValues.render(value);
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
            return new IllegalArgumentException(prefix + path + " = " + rendered + " is not an object; " +
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
        return new IllegalArgumentException(prefix + path + " = " + rendered + " is not a known key; " + where +
            (siblings.isEmpty() ? " holds no such key" : " knows " + String.join(", ", siblings)));
    }

    /** The ports' addresses: the device's defaults, each changed by what its object in {@code xmit.ports} gives. */
    private static List<PortAddress> ports(final Config config, final String device)
    {
        final List<PortAddress> ports = new ArrayList<>(PortAddress.defaultsFor(ConfigValues.device(DEVICE.key(),
            device)));
        final List<Config> given = objects(config, PORTS);
        for (int i = 0; i < given.size() && i < ports.size(); i++)
        {
            ports.set(i, port(given.get(i), i, ports.get(i)));
        }
        if (config.hasPath(PORTS.path()) && given.size() != ports.size())
        {
            throw new IllegalArgumentException(PORTS.key() + " has " + given.size() + " entries but device '" +
                device + "' has " + ports.size() + " port(s)");
        }
        return ports;
    }

    private static PortAddress port(final Config config, final int index, final PortAddress defaults)
    {
        final long mac = text(config, PORT_MAC, index).map(text -> "link".equals(text) ? PortAddress.LINK_MAC :
            ConfigValues.mac(PORT_MAC.key(index), text)).orElse(defaults.mac());
        final long peerMac = text(config, PORT_PEER_MAC, index).map(text -> ConfigValues.mac(PORT_PEER_MAC.key(index),
            text)).orElse(defaults.peerMac());
        final int ipv4 = text(config, PORT_IPV4, index).map(text -> ConfigValues.ipv4(PORT_IPV4.key(index), text))
            .orElse(defaults.ipv4());
        long ipv6Hi = defaults.ipv6Hi();
        long ipv6Lo = defaults.ipv6Lo();
        final Optional<String> ipv6 = text(config, PORT_IPV6, index);
        if (ipv6.isPresent())
        {
            final ByteBuffer bytes = ByteBuffer.wrap(ConfigValues.ipv6(PORT_IPV6.key(index), ipv6.get()));
            ipv6Hi = bytes.getLong();
            ipv6Lo = bytes.getLong();
        }
        final int prefix = integer(config, PORT_PREFIX, index).orElse(defaults.prefix());
        PORT_PREFIX.checkEntry(index, prefix);
        final int gateway = text(config, PORT_GATEWAY, index).map(text -> ConfigValues.ipv4(PORT_GATEWAY.key(index),
            text)).orElse(defaults.gateway());
        return new PortAddress(mac, ipv4, ipv6Hi, ipv6Lo, peerMac, prefix, gateway,
            onOff(config, PORT_ARP, index).orElse(defaults.arp()),
            onOff(config, PORT_ICMP, index).orElse(defaults.icmp()));
    }

    /** {@code xmit.xps.maps}: each entry names a port and a TX queue; the record checks them against the device. */
    private static List<XpsEntry> xpsMaps(final Config config)
    {
        final List<XpsEntry> xps = new ArrayList<>();
        final List<Config> maps = objects(config, XPS_MAPS);
        for (int i = 0; i < maps.size(); i++)
        {
            final Config entry = maps.get(i);
            if (!entry.hasPath(XPS_MAP_PORT.path()) || !entry.hasPath(XPS_MAP_TXQ.path()))
            {
                throw new IllegalArgumentException(XPS_MAPS.key() + "[" + i + "] = " +
                    ConfigValues.render(entry.root()) + " needs a port and a txq, e.g. { port = 0, txq = 1, " +
                    "cpus = \"2\" }");
            }
            xps.add(new XpsEntry(
                integer(entry, XPS_MAP_PORT, i).getAsInt(),
                integer(entry, XPS_MAP_TXQ, i).getAsInt(),
                text(entry, XPS_MAP_CPUS, i).orElse(null),
                text(entry, XPS_MAP_RXQS, i).orElse(null)));
        }
        return xps;
    }

    /** {@code xmit.trace { sample, flow, socket, file, ring-size, snap-length }}. */
    private static TraceConfig trace(final Config config)
    {
        final TraceConfig off = TraceConfig.OFF;
        final int sample = integer(config, TRACE_SAMPLE).orElse(0);
        final String flow = text(config, TRACE_FLOW).orElse("");
        final int socket = integer(config, TRACE_SOCKET).orElse(TraceSelector.ANY_SOCKET);
        final FlowFilter filter;
        try
        {
            filter = flow.isEmpty() ? null : FlowFilter.parse(flow);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(TRACE_FLOW.key() + ": " + ex.getMessage(), ex);
        }
        TRACE_SAMPLE.check(sample);
        TRACE_SOCKET.check(socket);
        return new TraceConfig(new TraceSelector(sample, filter, socket), text(config, TRACE_FILE).orElse(off.file()),
            bytes(config, TRACE_RING_SIZE).orElse(off.ringSize()),
            integer(config, TRACE_SNAP_LENGTH).orElse(off.snapLength()));
    }

    /** {@code xmit.busy-poll}, {@code busy-poll-budget} and {@code prefer-busy-poll}, over the defaults. */
    private static BusyPoll busyPoll(final Config config, final BusyPoll defaults)
    {
        return new BusyPoll(duration(config, BUSY_POLL).orElse(defaults.time()),
            integer(config, BUSY_POLL_BUDGET).orElse(defaults.budget()),
            onOff(config, PREFER_BUSY_POLL).orElse(defaults.prefer()));
    }

    /** {@code xmit.cores}: a list of whole numbers, or empty when absent. */
    private static Optional<List<Integer>> cores(final Config config)
    {
        if (!config.hasPath(CORES.path()))
        {
            return Optional.empty();
        }
        final ConfigValue value = config.getValue(CORES.path());
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException(CORES.key() + " = " + ConfigValues.render(value) +
                " is not a list of cores, e.g. [2, 3]");
        }
        final List<Integer> cores = new ArrayList<>();
        for (final ConfigValue core : (ConfigList)value)
        {
            cores.add(ConfigValues.integer(CORES.key() + "[" + cores.size() + "]", core));
        }
        return Optional.of(cores);
    }

    /** The list of objects at {@code list}, each holding only the list's fields; empty when absent. */
    private static List<Config> objects(final Config config, final ConfigKey list)
    {
        return objects(config, list.path(), list.key(), list.fields(), null);
    }

    /**
     * The list of objects at {@code path} ({@code key} in messages), each holding only {@code fields}, and under
     * {@code open} (if not null) keys the caller reads itself; empty when absent.
     *
     * @throws IllegalArgumentException naming the key and the value: not a list of objects, or an unknown key.
     */
    public static List<Config> objects(final Config config, final String path, final String key,
        final List<String> fields, final String open)
    {
        if (!config.hasPath(path))
        {
            return List.of();
        }
        final ConfigValue value = config.getValue(path);
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException(key + " = " + ConfigValues.render(value) +
                " is not a list of objects {" + String.join(", ", fields) + "}");
        }
        final List<Config> objects = new ArrayList<>();
        final ConfigList entries = (ConfigList)value;
        for (int i = 0; i < entries.size(); i++)
        {
            final String at = key + "[" + i + "]";
            if (ConfigValueType.OBJECT != entries.get(i).valueType())
            {
                throw new IllegalArgumentException(at + " = " + ConfigValues.render(entries.get(i)) +
                    " is not an object {" + String.join(", ", fields) + "}");
            }
            final Config entry = ((ConfigObject)entries.get(i)).toConfig();
            for (final Map.Entry<String, ConfigValue> field : entry.entrySet())
            {
                if (!fields.contains(field.getKey()) && (null == open || !field.getKey().startsWith(open + ".")))
                {
                    throw unknownKey(at + ".", ConfigUtil.splitPath(field.getKey()), field.getValue(), fields);
                }
            }
            objects.add(entry);
        }
        return objects;
    }

    private static Optional<String> text(final Config config, final ConfigKey key)
    {
        return config.hasPath(key.path()) ? Optional.of(ConfigValues.text(key.key(), config.getValue(key.path()))) :
            Optional.empty();
    }

    private static Optional<String> text(final Config entry, final ConfigKey field, final int index)
    {
        return entry.hasPath(field.path()) ?
            Optional.of(ConfigValues.text(field.key(index), entry.getValue(field.path()))) : Optional.empty();
    }

    private static OptionalInt integer(final Config config, final ConfigKey key)
    {
        return config.hasPath(key.path()) ?
            OptionalInt.of(ConfigValues.integer(key.key(), config.getValue(key.path()))) : OptionalInt.empty();
    }

    private static OptionalInt integer(final Config entry, final ConfigKey field, final int index)
    {
        return entry.hasPath(field.path()) ?
            OptionalInt.of(ConfigValues.integer(field.key(index), entry.getValue(field.path()))) : OptionalInt.empty();
    }

    private static OptionalInt bytes(final Config config, final ConfigKey key)
    {
        return config.hasPath(key.path()) ? OptionalInt.of(ConfigValues.bytes(key.key(), config, key.path())) :
            OptionalInt.empty();
    }

    private static Optional<Boolean> onOff(final Config config, final ConfigKey key)
    {
        return config.hasPath(key.path()) ? Optional.of(ConfigValues.onOff(key.key(), config.getValue(key.path()))) :
            Optional.empty();
    }

    private static Optional<Boolean> onOff(final Config entry, final ConfigKey field, final int index)
    {
        return entry.hasPath(field.path()) ?
            Optional.of(ConfigValues.onOff(field.key(index), entry.getValue(field.path()))) : Optional.empty();
    }

    private static Optional<Duration> duration(final Config config, final ConfigKey key)
    {
        return config.hasPath(key.path()) ?
            Optional.of(ConfigValues.duration(key.key(), config, key.path(), DURATIONS)) : Optional.empty();
    }
}
