package io.xmit.deploy.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * Every key of the deployment file under {@code xmit.cluster { … }}, each stated once: its path, and for a whole
 * number the range it must be in. The reader's lists of known keys and their messages come from here, and
 * {@code docs/cluster.md}'s key table lists the same keys ({@code ClusterKeysDocumentedTest} holds the two together).
 * A key of the objects in a list ({@link #NODES}, {@link #SERVICES}) names its list. The objects of a node's
 * {@link #NODE_DEVICES} are pipelines' {@code xmit { … }} blocks, whose keys are the pipeline's own
 * ({@code io.xmit.actors.config.ConfigKey}).
 */
public enum ClusterKey
{
    NAME("name"),
    NODES("nodes"),
    NODE_NAME(NODES, "name"),
    NODE_HOST(NODES, "host"),
    /** Artery TCP's port: fixed, since the seeds are found by it. */
    NODE_PORT(NODES, "port", 1, 65535),
    /** The UDP port of the node's Aeron data endpoint. */
    NODE_DATA_PORT(NODES, "data-port", 1, 65535),
    NODE_ROLES(NODES, "roles"),
    NODE_DEVICES(NODES, "devices"),
    SEED_NODES("seed-nodes"),
    SERVICES("services"),
    SERVICE_NAME(SERVICES, "name"),
    SERVICE_BIND_DEVICE(SERVICES, "bind.device"),
    /** A port of the device; its largest is the device's. */
    SERVICE_BIND_PORT(SERVICES, "bind.port", 0, Long.MAX_VALUE),
    SERVICE_BIND_UDP(SERVICES, "bind.udp", 1, 65535),
    SERVICE_HANDLER(SERVICES, "handler"),
    SERVICE_ROLE(SERVICES, "role"),
    SERVICE_PLACEMENT(SERVICES, "placement"),
    SERVICE_PIN(SERVICES, "pin"),
    SERVICE_STEERING(SERVICES, "steering"),
    DATA_PLANE_MTU("data-plane.mtu"),
    DATA_PLANE_TERM_LENGTH("data-plane.term-length"),
    DATA_PLANE_RECEIVER_WINDOW("data-plane.receiver-window"),
    DATA_PLANE_SO_RCVBUF("data-plane.so-rcvbuf"),
    DATA_PLANE_SO_SNDBUF("data-plane.so-sndbuf"),
    DATA_PLANE_IDLE_STRATEGY("data-plane.idle-strategy"),
    /** The same bound as a pipeline's {@code socket-spin-polls}. */
    DATA_PLANE_SOCKET_SPIN_POLLS("data-plane.socket-spin-polls", 0, 1 << 24),
    DATA_PLANE_RECEIPT_INTERVAL("data-plane.receipt-interval"),
    FAILURE_HEARTBEAT_INTERVAL("failure.detector.heartbeat-interval"),
    FAILURE_ACCEPTABLE_HEARTBEAT_PAUSE("failure.detector.acceptable-heartbeat-pause"),
    SPLIT_BRAIN_STRATEGY("failure.split-brain.strategy"),
    SPLIT_BRAIN_ROLE("failure.split-brain.role"),
    SPLIT_BRAIN_QUORUM_SIZE("failure.split-brain.quorum-size", 1, 1024),
    SPLIT_BRAIN_STABLE_AFTER("failure.split-brain.stable-after"),
    DRAIN_DEADLINE("failure.drain-deadline");

    /** Where the file's keys are. */
    public static final String SECTION = "xmit.cluster";

    private final ClusterKey list;
    private final String path;
    private final long min;
    private final long max;

    ClusterKey(final String path)
    {
        this(null, path, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    ClusterKey(final String path, final long min, final long max)
    {
        this(null, path, min, max);
    }

    ClusterKey(final ClusterKey list, final String path)
    {
        this(list, path, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    ClusterKey(final ClusterKey list, final String path, final long min, final long max)
    {
        this.list = list;
        this.path = path;
        this.min = min;
        this.max = max;
    }

    /** The paths of the keys directly under {@code xmit.cluster}, in the table's order. */
    public static List<String> keys()
    {
        return fieldsOf(null);
    }

    /** The keys of this list's objects, e.g. {@code name, host, …} of {@link #NODES}; empty for a key not a list. */
    public List<String> fields()
    {
        return fieldsOf(this);
    }

    private static List<String> fieldsOf(final ClusterKey list)
    {
        final List<String> paths = new ArrayList<>();
        for (final ClusterKey key : values())
        {
            if (list == key.list)
            {
                paths.add(key.path);
            }
        }
        return List.copyOf(paths);
    }

    /** The path under {@code xmit.cluster}, or inside each object of a list: {@code data-plane.mtu}, {@code port}. */
    public String path()
    {
        return path;
    }

    /** The key as messages name it: {@code xmit.cluster.data-plane.mtu}. */
    public String key()
    {
        return SECTION + "." + path;
    }

    /** The key of this field in object {@code entry} of its list: {@code xmit.cluster.nodes[1].port}. */
    public String key(final int entry)
    {
        return list.key() + "[" + entry + "]." + path;
    }

    /**
     * @param limit the largest value allowed here, if smaller than the key's own (a device's last port).
     * @throws IllegalArgumentException naming the key of {@code entry} (or the key itself for -1), the value and the
     *                                  range when the value is outside it.
     */
    public void check(final int entry, final long value, final long limit)
    {
        final long upTo = Math.min(max, limit);
        if (value < min || value > upTo)
        {
            throw new IllegalArgumentException((entry < 0 ? key() : key(entry)) + " = " + value + " is not in " + min +
                ".." + upTo);
        }
    }
}
