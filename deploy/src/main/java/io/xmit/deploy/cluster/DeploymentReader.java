package io.xmit.deploy.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.config.ConfigValues;
import io.xmit.actors.config.HoconConfigReader;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.BitUtil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static io.xmit.deploy.cluster.ClusterKey.*;

/**
 * Reads a {@link Deployment} from a HOCON file: the keys of {@link ClusterKey} under {@code xmit.cluster}, a device's
 * pipeline keys by the pipeline's own reader, values by {@link ConfigValues}, and an {@code akka} section kept as it
 * is. Everything is checked before anything starts, as {@code xmit run} checks its file: a bad key or value, a name
 * that refers to nothing, two nodes on one address, a device on a node that is not an edge, a service no node can
 * host, a data plane that cannot carry the devices' frames. Each refusal is one line naming the key, the value and what
 * is allowed.
 */
public final class DeploymentReader
{
    /** Akka's rule for an ActorSystem's name, used for every name of the file. */
    private static final Pattern NAME_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    private static final String NAME_RULE = "1 to 64 letters, digits, '-' or '_', starting with a letter or digit";
    /** A host name or an IPv4 address; an IPv6 address would need brackets in Akka's address. */
    private static final Pattern HOST_PATTERN = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,252})");
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*");
    private static final Pattern PLACEMENT = Pattern.compile("(per-node|sharded) +(\\d{1,9})( +pinned)?");
    private static final int DEFAULT_TERM_LENGTH = 1024 * 1024;
    /** Aeron's default receiver window and socket receive buffer: within a stock Linux {@code rmem_max}. */
    private static final int DEFAULT_WINDOW = 128 * 1024;
    private static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    private static final Duration DEFAULT_ACCEPTABLE_HEARTBEAT_PAUSE = Duration.ofSeconds(3);
    /** Akka's default. */
    private static final Duration DEFAULT_STABLE_AFTER = Duration.ofSeconds(20);
    private static final Duration DEFAULT_DRAIN_DEADLINE = Duration.ofSeconds(10);
    /** A message per socket that read something: ten a second keeps the edge's books close at little cost. */
    private static final Duration DEFAULT_RECEIPT_INTERVAL = Duration.ofMillis(100);
    private static final String DURATIONS = "500ms, 3s or 1m";
    private static final String FRAME_HEADERS = "Aeron's data header and xmit's frame header";

    private DeploymentReader()
    {
    }

    /**
     * Reads and checks the deployment file {@code file}.
     *
     * @throws IllegalArgumentException with one line naming the key, the value and what is allowed (or the file, if
     *                                  it cannot be read or parsed).
     */
    public static Deployment read(final Path file)
    {
        if (!Files.isRegularFile(file))
        {
            throw new IllegalArgumentException("'" + file + "': no such file");
        }
        final Config parsed;
        try
        {
            parsed = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false))
                .resolve();
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        return fromConfig(parsed);
    }

    /**
     * Reads and checks a deployment from {@code root}, a resolved configuration holding {@code xmit.cluster} and
     * perhaps {@code akka}.
     *
     * @throws IllegalArgumentException with one line naming the key, the value and what is allowed.
     */
    public static Deployment fromConfig(final Config root)
    {
        try
        {
            return deployment(root);
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
    }

    private static Deployment deployment(final Config root)
    {
        for (final Map.Entry<String, ConfigValue> entry : root.root().entrySet())
        {
            if (!"xmit".equals(entry.getKey()) && !"akka".equals(entry.getKey()))
            {
                throw new IllegalArgumentException(entry.getKey() + " = " + ConfigValues.render(entry.getValue()) +
                    " is not a known key; a deployment file holds xmit.cluster { … } and akka { … }");
            }
        }
        requireObject(root, "xmit", "xmit", "cluster { … }");
        requireObject(root, "akka", "akka", "Akka settings");
        final Config xmit = root.hasPath("xmit") ? root.getConfig("xmit") : ConfigFactory.empty();
        for (final Map.Entry<String, ConfigValue> entry : xmit.root().entrySet())
        {
            if (!"cluster".equals(entry.getKey()))
            {
                throw new IllegalArgumentException("xmit." + entry.getKey() + " = " +
                    ConfigValues.render(entry.getValue()) + " is not a known key; in a deployment file xmit holds " +
                    "cluster, and a device's pipeline keys go in its entry of " + NODE_DEVICES.key(0)
                    .replace("[0]", "[]"));
            }
        }
        if (!xmit.hasPath("cluster"))
        {
            throw new IllegalArgumentException("no " + SECTION + " section: a deployment file describes its cluster " +
                "in " + SECTION + " { name, nodes, seed-nodes, … }");
        }
        requireObject(xmit, "cluster", SECTION, "the cluster's keys");
        final Config cluster = xmit.getConfig("cluster");
        checkKeys(cluster);
        final String name = name(cluster, NAME.path(), NAME.key());
        final List<Node> nodes = nodes(cluster);
        final List<String> seeds = seeds(cluster, nodes);
        final List<Service> services = services(cluster, nodes);
        final DataPlane dataPlane = dataPlane(cluster, nodes);
        final FailureSettings failure = failure(cluster, nodes);
        final Config akka = root.hasPath("akka") ? root.withOnlyPath("akka") : ConfigFactory.empty();
        return new Deployment(name, nodes, seeds, services, dataPlane, failure, akka);
    }

    /** The value at {@code path} of {@code config}, if there is one, must be an object ({@code key} names it). */
    private static void requireObject(final Config config, final String path, final String key, final String what)
    {
        final ConfigValue value = config.root().get(path);
        if (null != value && ConfigValueType.OBJECT != value.valueType())
        {
            throw new IllegalArgumentException(key + " = " + ConfigValues.render(value) + " is not an object of " +
                what);
        }
    }

    /** Every path under {@code xmit.cluster} must be a key of {@link ClusterKey}. */
    private static void checkKeys(final Config cluster)
    {
        final List<String> known = ClusterKey.keys();
        for (final Map.Entry<String, ConfigValue> entry : cluster.entrySet())
        {
            if (!known.contains(entry.getKey()))
            {
                throw HoconConfigReader.unknownKey(SECTION + ".", ConfigUtil.splitPath(entry.getKey()),
                    entry.getValue(), known);
            }
        }
    }

    private static List<Node> nodes(final Config cluster)
    {
        final List<Config> entries = objects(cluster, NODES);
        if (entries.isEmpty())
        {
            throw new IllegalArgumentException(NODES.key() + " must list at least one node, e.g. [{ name = edge-1, " +
                "host = \"127.0.0.1\", port = 25520, data-port = 40120, roles = [edge], devices = [ … ] }]");
        }
        final List<Node> nodes = new ArrayList<>();
        final Map<String, String> akkaPorts = new HashMap<>();
        final Map<String, String> dataPorts = new HashMap<>();
        final Map<String, String> devices = new HashMap<>();
        for (int i = 0; i < entries.size(); i++)
        {
            final Config entry = entries.get(i);
            final String name = name(entry, NODE_NAME.path(), NODE_NAME.key(i));
            for (int j = 0; j < nodes.size(); j++)
            {
                if (nodes.get(j).name().equals(name))
                {
                    throw new IllegalArgumentException(NODE_NAME.key(i) + " = '" + name + "' is already the name of " +
                        NODES.key() + "[" + j + "]; each node needs its own");
                }
            }
            final String host = required(entry, NODE_HOST, i);
            if (!HOST_PATTERN.matcher(host).matches())
            {
                throw new IllegalArgumentException(NODE_HOST.key(i) + " = '" + host + "' is not a host name or an " +
                    "IPv4 address");
            }
            final int port = port(entry, NODE_PORT, i, host, "Akka port", akkaPorts, name);
            final int dataPort = port(entry, NODE_DATA_PORT, i, host, "data port", dataPorts, name);
            final Set<Role> roles = roles(entry, i);
            if (entry.hasPath(NODE_DEVICES.path()) && !roles.contains(Role.EDGE))
            {
                throw new IllegalArgumentException(NODE_DEVICES.key(i) + ": node " + name + " has the roles " +
                    labels(roles) + "; only a node with the role edge owns devices (add edge to its roles, or move " +
                    "the devices to an edge node)");
            }
            final List<Device> nodeDevices = devices(entry, i, name, devices);
            if (nodeDevices.isEmpty() && roles.contains(Role.EDGE))
            {
                throw new IllegalArgumentException(NODE_DEVICES.key(i) + ": node " + name + " has the role edge but " +
                    "no devices; an edge node owns at least one, e.g. devices = [{ name = nic0, device = " +
                    "\"loop:tx=4,rx=4\" }]");
            }
            nodes.add(new Node(name, host, port, dataPort, roles, nodeDevices));
        }
        return nodes;
    }

    /** A port that no other node has on the same host in the same space ({@code taken}: host:port to node). */
    private static int port(final Config entry, final ClusterKey field, final int index, final String host,
        final String what, final Map<String, String> taken, final String node)
    {
        final int port = ConfigValues.integer(field.key(index), value(entry, field, index));
        field.check(index, port, Long.MAX_VALUE);
        final String address = host + ":" + port;
        final String other = taken.putIfAbsent(address, node);
        if (null != other)
        {
            throw new IllegalArgumentException(field.key(index) + " = " + port + ": " + address + " is already the " +
                what + " of node " + other + "; each node needs its own host:port");
        }
        return port;
    }

    private static Set<Role> roles(final Config entry, final int index)
    {
        final List<String> labels = strings(entry, NODE_ROLES, index);
        if (labels.isEmpty())
        {
            throw new IllegalArgumentException(NODE_ROLES.key(index) + " = [] must name at least one role: " +
                Role.labels());
        }
        final Set<Role> roles = EnumSet.noneOf(Role.class);
        for (int r = 0; r < labels.size(); r++)
        {
            final Role role = Role.of(NODE_ROLES.key(index) + "[" + r + "]", labels.get(r));
            if (!roles.add(role))
            {
                throw new IllegalArgumentException(NODE_ROLES.key(index) + " names " + role.label() + " twice");
            }
        }
        return roles;
    }

    /**
     * A node's devices: each entry is a pipeline's {@code xmit { … }} block, read by the pipeline's own reader, whose
     * messages are made to name the entry's key.
     */
    private static List<Device> devices(final Config entry, final int nodeIndex, final String node,
        final Map<String, String> taken)
    {
        if (!entry.hasPath(NODE_DEVICES.path()))
        {
            return List.of();
        }
        final ConfigValue value = entry.getValue(NODE_DEVICES.path());
        final String key = NODE_DEVICES.key(nodeIndex);
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException(key + " = " + ConfigValues.render(value) + " is not a list of " +
                "devices, e.g. [{ name = nic0, device = \"loop:tx=4,rx=4\" }]");
        }
        final List<Device> devices = new ArrayList<>();
        final ConfigList list = (ConfigList)value;
        for (int d = 0; d < list.size(); d++)
        {
            final String at = key + "[" + d + "]";
            if (ConfigValueType.OBJECT != list.get(d).valueType())
            {
                throw new IllegalArgumentException(at + " = " + ConfigValues.render(list.get(d)) + " is not an " +
                    "object of a pipeline's keys, e.g. { name = nic0, device = \"loop:tx=4,rx=4\", cpus = 2 }");
            }
            final Config block = ((ConfigObject)list.get(d)).toConfig();
            for (final String required : List.of("name", "device"))
            {
                if (!block.hasPath(required))
                {
                    throw new IllegalArgumentException(at + "." + required + " must be set: a device needs a name " +
                        "and a device spec, e.g. { name = nic0, device = \"loop:tx=4,rx=4\" }");
                }
            }
            final String name = name(block, "name", at + ".name");
            final String other = taken.putIfAbsent(name, node);
            if (null != other)
            {
                throw new IllegalArgumentException(at + ".name = '" + name + "' is already a device of node " + other +
                    "; each device needs its own name");
            }
            devices.add(new Device(name, node, pipeline(block, at)));
        }
        return devices;
    }

    /** The pipeline's reader on the block as {@code xmit { … }}; its messages' {@code xmit.} made {@code at.}. */
    private static PipelineConfig pipeline(final Config block, final String at)
    {
        try
        {
            return PipelineConfig.fromConfig(block.atKey("xmit"));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(ex.getMessage().replaceAll("(?<![\\w.-])xmit\\.", at + ".")
                .replaceAll("(?<![\\w.-])xmit knows", at + " knows"), ex);
        }
    }

    private static List<String> seeds(final Config cluster, final List<Node> nodes)
    {
        final List<String> seeds = strings(cluster, SEED_NODES, -1);
        if (seeds.isEmpty())
        {
            throw new IllegalArgumentException(SEED_NODES.key() + " must name at least one node, the first of which " +
                "forms the cluster, e.g. [" + nodes.getFirst().name() + "]");
        }
        for (int i = 0; i < seeds.size(); i++)
        {
            requireNodeName(SEED_NODES.key() + "[" + i + "]", seeds.get(i), nodes);
            if (seeds.subList(0, i).contains(seeds.get(i)))
            {
                throw new IllegalArgumentException(SEED_NODES.key() + "[" + i + "] = '" + seeds.get(i) + "' is " +
                    "already a seed node");
            }
        }
        return seeds;
    }

    private static Node requireNodeName(final String key, final String name, final List<Node> nodes)
    {
        for (final Node node : nodes)
        {
            if (node.name().equals(name))
            {
                return node;
            }
        }
        throw new IllegalArgumentException(key + " = '" + name + "' is not a node; the nodes are " +
            String.join(", ", nodes.stream().map(Node::name).toList()));
    }

    private static List<Service> services(final Config cluster, final List<Node> nodes)
    {
        final List<Config> entries = objects(cluster, SERVICES);
        final List<Service> services = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++)
        {
            final Config entry = entries.get(i);
            final String name = name(entry, SERVICE_NAME.path(), SERVICE_NAME.key(i));
            for (final Service other : services)
            {
                if (other.name().equals(name))
                {
                    throw new IllegalArgumentException(SERVICE_NAME.key(i) + " = '" + name + "' is already a " +
                        "service; each service needs its own name");
                }
            }
            final Device device = device(required(entry, SERVICE_BIND_DEVICE, i), i, nodes);
            final int port = ConfigValues.integer(SERVICE_BIND_PORT.key(i), value(entry, SERVICE_BIND_PORT, i));
            SERVICE_BIND_PORT.check(i, port, device.pipeline().ports().size() - 1L);
            final int udp = ConfigValues.integer(SERVICE_BIND_UDP.key(i), value(entry, SERVICE_BIND_UDP, i));
            SERVICE_BIND_UDP.check(i, udp, Long.MAX_VALUE);
            for (final Service other : services)
            {
                if (other.device().equals(device.name()) && other.port() == port && other.udp() == udp)
                {
                    throw new IllegalArgumentException(SERVICE_BIND_UDP.key(i) + " = " + udp + ": service " +
                        other.name() + " is already bound to UDP " + udp + " on port " + port + " of " +
                        device.name());
                }
            }
            final Optional<String> handler = optional(entry, SERVICE_HANDLER, i);
            if (handler.isPresent() && !CLASS_NAME.matcher(handler.get()).matches())
            {
                throw new IllegalArgumentException(SERVICE_HANDLER.key(i) + " = '" + handler.get() + "' is not a " +
                    "class name, e.g. com.example.EchoHandler");
            }
            final Role role = Role.of(SERVICE_ROLE.key(i), optional(entry, SERVICE_ROLE, i).orElse("app"));
            requireRole(SERVICE_ROLE.key(i), role, nodes);
            final Placement placement = placement(entry, i, role, nodes);
            final String steering = optional(entry, SERVICE_STEERING, i).orElse(Service.Steering.FLOW_HASH.label());
            if (!Service.Steering.FLOW_HASH.label().equals(steering))
            {
                throw new IllegalArgumentException(SERVICE_STEERING.key(i) + " = '" + steering + "' is not " +
                    Service.Steering.FLOW_HASH.label() + " (rendezvous hashing of the flow hash over the live " +
                    "sockets, the only steering there is)");
            }
            services.add(new Service(name, device.name(), port, udp, handler, role, placement,
                Service.Steering.FLOW_HASH));
        }
        return services;
    }

    private static Device device(final String name, final int service, final List<Node> nodes)
    {
        final List<String> names = new ArrayList<>();
        for (final Node node : nodes)
        {
            for (final Device device : node.devices())
            {
                if (device.name().equals(name))
                {
                    return device;
                }
                names.add(device.name());
            }
        }
        throw new IllegalArgumentException(SERVICE_BIND_DEVICE.key(service) + " = '" + name + "' is not a device " +
            "of an edge node; the devices are " + String.join(", ", names));
    }

    private static void requireRole(final String key, final Role role, final List<Node> nodes)
    {
        final Set<String> held = new TreeSet<>();
        for (final Node node : nodes)
        {
            if (node.has(role))
            {
                return;
            }
            node.roleLabels().forEach(held::add);
        }
        throw new IllegalArgumentException(key + " = " + role.label() + ": no node has the role " + role.label() +
            " (the nodes' roles: " + String.join(", ", held) + ")");
    }

    /** {@code per-node N} or {@code sharded N [pinned]}; a pinned placement's {@code pin} names a node per socket. */
    private static Placement placement(final Config entry, final int service, final Role role,
        final List<Node> nodes)
    {
        final String key = SERVICE_PLACEMENT.key(service);
        final String text = optional(entry, SERVICE_PLACEMENT, service).orElse("per-node 1").strip();
        final var matcher = PLACEMENT.matcher(text);
        if (!matcher.matches() || ("per-node".equals(matcher.group(1)) && null != matcher.group(3)))
        {
            throw new IllegalArgumentException(key + " = '" + text + "' is not per-node N, sharded N or sharded N " +
                "pinned");
        }
        final int sockets = Integer.parseInt(matcher.group(2));
        if (sockets < 1 || sockets > Placement.MAX_SOCKETS)
        {
            throw new IllegalArgumentException(key + " = '" + text + "': " + sockets + " sockets is not in 1.." +
                Placement.MAX_SOCKETS);
        }
        final boolean pinned = null != matcher.group(3);
        final List<String> pins = entry.hasPath(SERVICE_PIN.path()) ? strings(entry, SERVICE_PIN, service) : List.of();
        if (!pinned && entry.hasPath(SERVICE_PIN.path()))
        {
            throw new IllegalArgumentException(SERVICE_PIN.key(service) + " is only for placement = \"sharded N " +
                "pinned\"; " + key + " is '" + text + "'");
        }
        if (pinned && pins.size() != sockets)
        {
            throw new IllegalArgumentException(SERVICE_PIN.key(service) + " names " + pins.size() + " nodes for " +
                key + " = '" + text + "'; it names one node per socket, " + sockets + " in all");
        }
        for (int i = 0; i < pins.size(); i++)
        {
            final String at = SERVICE_PIN.key(service) + "[" + i + "]";
            final Node node = requireNodeName(at, pins.get(i), nodes);
            if (!node.has(role))
            {
                throw new IllegalArgumentException(at + " = '" + node.name() + "': node " + node.name() +
                    " has the roles " + labels(node.roles()) + ", not the service's role " + role.label());
            }
        }
        return new Placement("per-node".equals(matcher.group(1)) ? Placement.Kind.PER_NODE : Placement.Kind.SHARDED,
            sockets, pins);
    }

    /**
     * The data plane: each setting checked against the others and against every device's frames, so the streams
     * between nodes can be made from it; unset, the MTU is the smallest that carries the largest device's frames.
     */
    private static DataPlane dataPlane(final Config cluster, final List<Node> nodes)
    {
        Device largest = null;
        for (final Node node : nodes)
        {
            for (final Device device : node.devices())
            {
                if (null == largest || device.maxFrame() > largest.maxFrame())
                {
                    largest = device;
                }
            }
        }
        final int mtu = bytes(cluster, DATA_PLANE_MTU).orElse(null == largest ? RingsConfig.defaults()
            .ipcMtuLength() : mtuFor(largest));
        if (mtu < 32 || mtu > DataPlaneConfig.MAX_MTU_LENGTH || mtu % 32 != 0)
        {
            throw new IllegalArgumentException(DATA_PLANE_MTU.key() + " = " + mtu + " is not a multiple of 32 in " +
                "32.." + DataPlaneConfig.MAX_MTU_LENGTH);
        }
        if (null != largest && mtu < mtuFor(largest))
        {
            throw new IllegalArgumentException(DATA_PLANE_MTU.key() + " = " + mtu + " is too small for device " +
                largest.name() + " of node " + largest.node() + " (" + largest.pipeline().device() + "): a frame of " +
                "up to " + largest.maxFrame() + " bytes needs " + mtuFor(largest) + " with " + FRAME_HEADERS +
                ", and xmit never fragments a frame; use at least " + mtuFor(largest));
        }
        final int term = bytes(cluster, DATA_PLANE_TERM_LENGTH).orElse(Math.max(DEFAULT_TERM_LENGTH,
            BitUtil.findNextPositivePowerOfTwo(8 * mtu)));
        if (term < DataPlaneConfig.MIN_TERM_LENGTH || term > DataPlaneConfig.MAX_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(term))
        {
            throw new IllegalArgumentException(DATA_PLANE_TERM_LENGTH.key() + " = " + term + " is not a power of " +
                "two in " + DataPlaneConfig.MIN_TERM_LENGTH + ".." + DataPlaneConfig.MAX_TERM_LENGTH);
        }
        if (term < 8 * mtu)
        {
            throw new IllegalArgumentException(DATA_PLANE_TERM_LENGTH.key() + " = " + term + " is less than 8 × " +
                DATA_PLANE_MTU.key() + " (8 × " + mtu + "): Aeron's largest unfragmented message is an eighth of a " +
                "term; use at least " + BitUtil.findNextPositivePowerOfTwo(8 * mtu));
        }
        final int window = bytes(cluster, DATA_PLANE_RECEIVER_WINDOW).orElse(Math.min(DEFAULT_WINDOW, term / 2));
        if (window < mtu || window > term / 2)
        {
            throw new IllegalArgumentException(DATA_PLANE_RECEIVER_WINDOW.key() + " = " + window + " is not in " +
                mtu + ".." + term / 2 + " (from the MTU to half a term)");
        }
        final int rcvbuf = bytes(cluster, DATA_PLANE_SO_RCVBUF).orElse(Math.max(DEFAULT_WINDOW, window));
        if (window > rcvbuf)
        {
            throw new IllegalArgumentException(DATA_PLANE_RECEIVER_WINDOW.key() + " = " + window + " is above " +
                DATA_PLANE_SO_RCVBUF.key() + " = " + rcvbuf + ": Aeron refuses a receiver window larger than the " +
                "socket's receive buffer; raise so-rcvbuf or lower receiver-window");
        }
        final int sndbuf = bytes(cluster, DATA_PLANE_SO_SNDBUF).orElse(0);
        if (0 != sndbuf && sndbuf < mtu)
        {
            throw new IllegalArgumentException(DATA_PLANE_SO_SNDBUF.key() + " = " + sndbuf + " is not 0 (the " +
                "system's) or at least " + DATA_PLANE_MTU.key() + " = " + mtu);
        }
        final DataPlane.Idle idle = DataPlane.Idle.of(DATA_PLANE_IDLE_STRATEGY.key(),
            optional(cluster, DATA_PLANE_IDLE_STRATEGY, -1).orElse(DataPlane.Idle.BACKOFF.label()));
        final int spinPolls = cluster.hasPath(DATA_PLANE_SOCKET_SPIN_POLLS.path()) ? ConfigValues.integer(
            DATA_PLANE_SOCKET_SPIN_POLLS.key(), cluster.getValue(DATA_PLANE_SOCKET_SPIN_POLLS.path())) : 0;
        DATA_PLANE_SOCKET_SPIN_POLLS.check(-1, spinPolls, Long.MAX_VALUE);
        final Duration receipts = duration(cluster, DATA_PLANE_RECEIPT_INTERVAL, DEFAULT_RECEIPT_INTERVAL,
            Duration.ofMillis(1), Duration.ofMinutes(1));
        return new DataPlane(new DataPlaneConfig(mtu, term, window, rcvbuf, sndbuf), idle, spinPolls, receipts);
    }

    private static int mtuFor(final Device device)
    {
        return RingsConfig.defaults().withMaxFrameLength(Math.max(device.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
            .ipcMtuLength();
    }

    private static FailureSettings failure(final Config cluster, final List<Node> nodes)
    {
        final Duration interval = duration(cluster, FAILURE_HEARTBEAT_INTERVAL, DEFAULT_HEARTBEAT_INTERVAL,
            Duration.ofMillis(100), Duration.ofMinutes(1));
        final Duration pause = duration(cluster, FAILURE_ACCEPTABLE_HEARTBEAT_PAUSE,
            DEFAULT_ACCEPTABLE_HEARTBEAT_PAUSE, Duration.ofSeconds(1), Duration.ofHours(1));
        if (pause.compareTo(interval) < 0)
        {
            throw new IllegalArgumentException(FAILURE_ACCEPTABLE_HEARTBEAT_PAUSE.key() + " = " +
                ConfigValues.render(pause) + " is shorter than " + FAILURE_HEARTBEAT_INTERVAL.key() + " = " +
                ConfigValues.render(interval) + ": every node would be unreachable between two heartbeats");
        }
        final Duration drain = duration(cluster, DRAIN_DEADLINE, DEFAULT_DRAIN_DEADLINE, Duration.ofSeconds(1),
            Duration.ofHours(1));
        return new FailureSettings(interval, pause, splitBrain(cluster, nodes), drain);
    }

    /**
     * Static quorum among the edge nodes unless told otherwise: the side that holds the devices survives a partition
     * (keep-majority would let two app nodes down the only edge).
     */
    private static SplitBrain splitBrain(final Config cluster, final List<Node> nodes)
    {
        final SplitBrain.Strategy strategy = SplitBrain.Strategy.of(SPLIT_BRAIN_STRATEGY.key(),
            optional(cluster, SPLIT_BRAIN_STRATEGY, -1).orElse(SplitBrain.Strategy.STATIC_QUORUM.label()));
        final Duration stableAfter = duration(cluster, SPLIT_BRAIN_STABLE_AFTER, DEFAULT_STABLE_AFTER,
            Duration.ofSeconds(1), Duration.ofHours(1));
        final Optional<String> roleText = optional(cluster, SPLIT_BRAIN_ROLE, -1);
        if (SplitBrain.Strategy.DOWN_ALL == strategy && roleText.isPresent())
        {
            throw new IllegalArgumentException(SPLIT_BRAIN_ROLE.key() + " = " + roleText.get() + ": " +
                strategy.label() + " downs every node and takes no role");
        }
        final Optional<Role> role = SplitBrain.Strategy.STATIC_QUORUM == strategy && roleText.isEmpty() ?
            Optional.of(Role.EDGE) : roleText.map(text -> Role.of(SPLIT_BRAIN_ROLE.key(), text));
        if (role.isPresent())
        {
            requireRole(SPLIT_BRAIN_ROLE.key(), role.get(), nodes);
        }
        final long counted = nodes.stream().filter(node -> role.isEmpty() || node.has(role.get())).count();
        if (SplitBrain.Strategy.STATIC_QUORUM != strategy)
        {
            if (cluster.hasPath(SPLIT_BRAIN_QUORUM_SIZE.path()))
            {
                throw new IllegalArgumentException(SPLIT_BRAIN_QUORUM_SIZE.key() + " is only for strategy = " +
                    SplitBrain.Strategy.STATIC_QUORUM.label() + "; " + SPLIT_BRAIN_STRATEGY.key() + " is " +
                    strategy.label());
            }
            return new SplitBrain(strategy, role, 0, stableAfter);
        }
        final int quorum = cluster.hasPath(SPLIT_BRAIN_QUORUM_SIZE.path()) ? ConfigValues.integer(
            SPLIT_BRAIN_QUORUM_SIZE.key(), cluster.getValue(SPLIT_BRAIN_QUORUM_SIZE.path())) : (int)counted / 2 + 1;
        SPLIT_BRAIN_QUORUM_SIZE.check(-1, quorum, counted);
        if (counted > 2L * quorum - 1)
        {
            throw new IllegalArgumentException(SPLIT_BRAIN_QUORUM_SIZE.key() + " = " + quorum + " is too small for " +
                counted + " nodes of the role " + role.orElseThrow().label() + ": with more than 2 × quorum-size − 1 " +
                "of them both sides of a partition could hold a quorum; use at least " + (counted / 2 + 1));
        }
        return new SplitBrain(strategy, role, quorum, stableAfter);
    }

    /** The list of objects at {@code list}, each holding only the list's fields (a node's devices read later). */
    private static List<Config> objects(final Config config, final ClusterKey list)
    {
        return HoconConfigReader.objects(config, list.path(), list.key(), list.fields(), NODE_DEVICES.path());
    }

    private static String name(final Config config, final String path, final String key)
    {
        if (!config.hasPath(path))
        {
            throw new IllegalArgumentException(key + " must be set: " + NAME_RULE);
        }
        final String name = ConfigValues.text(key, config.getValue(path));
        if (!NAME_PATTERN.matcher(name).matches())
        {
            throw new IllegalArgumentException(key + " = '" + name + "' is not a name: " + NAME_RULE);
        }
        return name;
    }

    private static ConfigValue value(final Config entry, final ClusterKey field, final int index)
    {
        if (!entry.hasPath(field.path()))
        {
            throw new IllegalArgumentException(field.key(index) + " must be set");
        }
        return entry.getValue(field.path());
    }

    private static String required(final Config entry, final ClusterKey field, final int index)
    {
        return ConfigValues.text(field.key(index), value(entry, field, index));
    }

    private static Optional<String> optional(final Config config, final ClusterKey key, final int index)
    {
        return config.hasPath(key.path()) ? Optional.of(ConfigValues.text(index < 0 ? key.key() : key.key(index),
            config.getValue(key.path()))) : Optional.empty();
    }

    /** A list of words, e.g. roles or node names; {@code index} -1 for a key not in a list. */
    private static List<String> strings(final Config config, final ClusterKey key, final int index)
    {
        final String name = index < 0 ? key.key() : key.key(index);
        if (!config.hasPath(key.path()))
        {
            throw new IllegalArgumentException(name + " must be set");
        }
        final ConfigValue value = config.getValue(key.path());
        if (ConfigValueType.LIST != value.valueType())
        {
            throw new IllegalArgumentException(name + " = " + ConfigValues.render(value) + " is not a list, e.g. " +
                "[edge-1, app-1]");
        }
        final List<String> strings = new ArrayList<>();
        for (final ConfigValue item : (ConfigList)value)
        {
            strings.add(ConfigValues.text(name + "[" + strings.size() + "]", item));
        }
        return strings;
    }

    private static Optional<Integer> bytes(final Config cluster, final ClusterKey key)
    {
        return cluster.hasPath(key.path()) ? Optional.of(ConfigValues.bytes(key.key(), cluster, key.path())) :
            Optional.empty();
    }

    private static Duration duration(final Config cluster, final ClusterKey key, final Duration otherwise,
        final Duration min, final Duration max)
    {
        if (!cluster.hasPath(key.path()))
        {
            return otherwise;
        }
        final Duration value = ConfigValues.duration(key.key(), cluster, key.path(), DURATIONS);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0)
        {
            throw new IllegalArgumentException(key.key() + " = " + ConfigValues.render(value) + " is not in " +
                ConfigValues.render(min) + ".." + ConfigValues.render(max));
        }
        return value;
    }

    private static String labels(final Set<Role> roles)
    {
        return "[" + String.join(", ", roles.stream().sorted().map(Role::label).toList()) + "]";
    }
}
