package io.xmit.actors.internal.socket;

import io.xmit.actors.Endpoint;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.flow.Hashing;
import io.xmit.pipeline.steer.SteeringTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pipeline's sockets: by id (for TX completions) and by address (for the RX path's socket lookup: the exact
 * 5-tuple of a connected socket first, then the bound address and port, then a wildcard bind). Readers on any
 * thread see an immutable snapshot through one volatile load and allocate nothing; opening and closing sockets
 * (rare, control plane) builds a new snapshot under a lock.
 * <p>
 * Unconnected sockets that all set SO_REUSEPORT share one address as a group, as a server's per-CPU workers do. A
 * datagram for the group goes to its socket on the CPU that received the datagram, the selection servers attach as a
 * reuseport CBPF program returning the CPU ({@code SKF_AD_CPU}), so a request is handled where its RX queue ran;
 * without a socket on that CPU, to the one the flow hash picks, the kernel's default
 * ({@code reuseport_select_sock_by_hash}: {@code reciprocal_scale(hash, num_socks)}).
 * <p>
 * A group with a member on another node ({@link #putSteered}) is steered instead: the receiving CPU means nothing
 * there, and modulo steering would move nearly every flow when a node leaves, so the flow hash picks the member by
 * rendezvous hashing over the members' stable keys ({@link SteeringTable}), and a member leaving moves only its flows.
 */
public final class SocketTable
{
    private static final int MIN_SLOTS = 64;

    /**
     * Bound sockets sharing one address by SO_REUSEPORT: all of them, and the first one on each CPU; or, for a group
     * with a remote member, the steering table over them.
     */
    private record ReuseGroup(UdpSocketImpl[] members, UdpSocketImpl[] byCpu, SteeringTable<UdpSocketImpl> steering)
    {
        UdpSocketImpl select(final int cpu, final int hash)
        {
            if (null != steering)
            {
                return steering.member(hash);
            }
            if (cpu >= 0 && cpu < byCpu.length && null != byCpu[cpu])
            {
                return byCpu[cpu];
            }
            return members[Hashing.reciprocalScale(hash, members.length)];
        }
    }

    /** {@code groups[i]} is the reuseport group of the bound socket in {@code bound[i]}, or null. */
    private record Snapshot(UdpSocketImpl[] byId, UdpSocketImpl[] connected, UdpSocketImpl[] bound, ReuseGroup[] groups, int mask)
    {
    }

    private final List<UdpSocketImpl> sockets = new ArrayList<>();
    /** The steering keys of the sockets added by {@link #putSteered}; guarded by this table's lock. */
    private final Map<UdpSocketImpl, Long> steeringKeys = new IdentityHashMap<>();
    /** Steered sockets out of their group for now ({@link #steer}): found by id, never by address. */
    private final Set<UdpSocketImpl> parked = Collections.newSetFromMap(new IdentityHashMap<>());
    private volatile Snapshot snapshot = new Snapshot(new UdpSocketImpl[1], new UdpSocketImpl[MIN_SLOTS],
        new UdpSocketImpl[MIN_SLOTS], new ReuseGroup[MIN_SLOTS], MIN_SLOTS - 1);

    /** The socket with {@code id}, or null if there is none (closed or never opened). */
    public UdpSocketImpl byId(final int id)
    {
        final UdpSocketImpl[] byId = snapshot.byId;
        return id > 0 && id < byId.length ? byId[id] : null;
    }

    /** TX completion of a packet of socket {@code id}; a closed socket's completions are ignored. */
    public void packetCompleted(final int id)
    {
        packetsCompleted(id, 1);
    }

    /** The host is done with a datagram socket {@code id} handed over to hold ({@link UdpSocketImpl#holdDone()}). */
    public void holdDone(final int id)
    {
        final UdpSocketImpl socket = byId(id);
        if (null != socket)
        {
            socket.holdDone();
        }
    }

    /** TX completion of {@code packets} packets of socket {@code id}. */
    public void packetsCompleted(final int id, final int packets)
    {
        final UdpSocketImpl socket = byId(id);
        if (null != socket)
        {
            socket.packetsCompleted(packets);
        }
    }

    /**
     * The socket a datagram with 5-tuple {@code flow} (source = the peer, destination = us) arriving on device
     * {@code port} belongs to, or null.
     *
     * @param cpu  the CPU receiving the datagram ({@code CpuThread.NO_CPU} off the pipeline's CPUs), which picks
     *             the member of a reuseport group.
     * @param hash the datagram's flow hash, which picks the member when no member is on {@code cpu}.
     */
    public UdpSocketImpl lookup(final int port, final FlowKey flow, final int cpu, final int hash)
    {
        final Snapshot s = snapshot;
        final UdpSocketImpl[] connected = s.connected;
        for (int i = hashConnected(port, flow.dstLo(), flow.dstPort(), flow.srcLo(), flow.srcPort()) & s.mask; ;
            i = (i + 1) & s.mask)
        {
            final UdpSocketImpl socket = connected[i];
            if (null == socket)
            {
                break;
            }
            if (matchesConnected(socket, port, flow))
            {
                return socket;
            }
        }
        final UdpSocketImpl[] bound = s.bound;
        int wildcard = -1;
        for (int i = hashBound(port, flow.family(), flow.dstPort()) & s.mask; ; i = (i + 1) & s.mask)
        {
            final UdpSocketImpl socket = bound[i];
            if (null == socket)
            {
                return wildcard < 0 ? null : member(s, wildcard, cpu, hash);
            }
            final FlowKey local = socket.localKey();
            if (socket.port() == port && local.family() == flow.family() && local.srcPort() == flow.dstPort())
            {
                if (!socket.isWildcard() && local.srcLo() == flow.dstLo() && local.srcHi() == flow.dstHi())
                {
                    return member(s, i, cpu, hash);
                }
                if (socket.isWildcard())
                {
                    wildcard = i;
                }
            }
        }
    }

    private static UdpSocketImpl member(final Snapshot s, final int slot, final int cpu, final int hash)
    {
        final ReuseGroup group = s.groups[slot];
        return null == group ? s.bound[slot] : group.select(cpu, hash);
    }

    /** Adds or re-files a socket (after a connect); throws if its address is taken, leaving the table as it was. */
    public synchronized void put(final UdpSocketImpl socket)
    {
        for (final UdpSocketImpl other : sockets)
        {
            if (other != socket && clashes(other, socket))
            {
                throw new IllegalStateException("address in use: " + socket.local() +
                    (null == socket.remote() ? "" : " connected to " + socket.remote()) + " on port " +
                    socket.port() + " is taken by socket " + other.id());
            }
        }
        sockets.remove(socket);
        sockets.add(socket);
        rebuild();
    }

    /**
     * {@link #put} for a reuseport member on another node, named by {@code steeringKey} (stable across its leaving
     * and coming back): its group is steered by rendezvous hashing from now on. The member starts out of steering
     * (until its ring to its node is connected, a datagram steered to it could not be delivered): {@link #steer}
     * puts it in.
     *
     * @throws IllegalArgumentException if the socket is not an unconnected reuseport socket, or another member
     *                                  already has the key.
     */
    public synchronized void putSteered(final UdpSocketImpl socket, final long steeringKey)
    {
        if (!socket.isReusePort() || null != socket.remote())
        {
            throw new IllegalArgumentException(
                "socket " + socket.id() + ": only an unconnected SO_REUSEPORT socket can be a steered group member");
        }
        for (final Map.Entry<UdpSocketImpl, Long> entry : steeringKeys.entrySet())
        {
            if (entry.getKey() != socket && entry.getValue() == steeringKey && sockets.contains(entry.getKey()))
            {
                throw new IllegalArgumentException("steering key " + steeringKey + " of socket " + socket.id() +
                    " is taken by socket " + entry.getKey().id());
            }
        }
        final Long before = steeringKeys.put(socket, steeringKey);
        final boolean wasParked = !parked.add(socket);
        try
        {
            put(socket);
        }
        catch (final RuntimeException ex)
        {
            if (null == before)
            {
                steeringKeys.remove(socket);
            }
            else
            {
                steeringKeys.put(socket, before);
            }
            if (!wasParked)
            {
                parked.remove(socket);
            }
            throw ex;
        }
    }

    /**
     * Takes a steered socket out of its group's steering ({@code on} false: its node is unreachable, or leaving), or
     * puts it back. Out of steering it keeps its id (its completions still come back) and its place in
     * {@link #sockets()} (for the books), and no datagram is steered to it: its slots go to the other members.
     *
     * @throws IllegalArgumentException if the socket was not added by {@link #putSteered}.
     */
    public synchronized void steer(final UdpSocketImpl socket, final boolean on)
    {
        if (!steeringKeys.containsKey(socket) || !sockets.contains(socket))
        {
            throw new IllegalArgumentException("socket " + socket.id() + " is not a steered group member");
        }
        if (on ? parked.remove(socket) : parked.add(socket))
        {
            rebuild();
        }
    }

    public synchronized void remove(final UdpSocketImpl socket)
    {
        steeringKeys.remove(socket);
        parked.remove(socket);
        if (sockets.remove(socket))
        {
            rebuild();
        }
    }

    public synchronized List<UdpSocketImpl> sockets()
    {
        return List.copyOf(sockets);
    }

    private static boolean clashes(final UdpSocketImpl a, final UdpSocketImpl b)
    {
        if (!sameAddress(a, b))
        {
            return false;
        }
        final Endpoint ra = a.remote();
        final Endpoint rb = b.remote();
        if (null == ra && null == rb)
        {
            return !(a.isReusePort() && b.isReusePort());
        }
        return null == ra ? null == rb : ra.equals(rb);
    }

    /** Same device port, family, local port and address (or both wildcards). */
    private static boolean sameAddress(final UdpSocketImpl a, final UdpSocketImpl b)
    {
        return a.port() == b.port() && a.family() == b.family() &&
            a.localKey().srcPort() == b.localKey().srcPort() && a.isWildcard() == b.isWildcard() &&
            a.localKey().srcLo() == b.localKey().srcLo() && a.localKey().srcHi() == b.localKey().srcHi();
    }

    private void rebuild()
    {
        int maxId = 0;
        for (final UdpSocketImpl socket : sockets)
        {
            maxId = Math.max(maxId, socket.id());
        }
        final UdpSocketImpl[] byId = new UdpSocketImpl[maxId + 1];
        int slots = MIN_SLOTS;
        while (slots < sockets.size() * 2)
        {
            slots <<= 1;
        }
        final int mask = slots - 1;
        final UdpSocketImpl[] connected = new UdpSocketImpl[slots];
        final UdpSocketImpl[] bound = new UdpSocketImpl[slots];
        final ReuseGroup[] groups = new ReuseGroup[slots];
        final List<List<UdpSocketImpl>> reuse = new ArrayList<>();
        for (final UdpSocketImpl socket : sockets)
        {
            byId[socket.id()] = socket;
            if (parked.contains(socket))
            {
                continue;
            }
            final FlowKey local = socket.localKey();
            final Endpoint remote = socket.remote();
            if (null != remote)
            {
                insert(connected, mask,
                    hashConnected(socket.port(), local.srcLo(), local.srcPort(), remote.lo(), remote.port()), socket);
            }
            else if (socket.isReusePort())
            {
                joinGroup(reuse, socket);
            }
            else
            {
                insert(bound, mask, hashBound(socket.port(), local.family(), local.srcPort()), socket);
            }
        }
        for (final List<UdpSocketImpl> members : reuse)
        {
            final UdpSocketImpl first = members.get(0);
            final int slot = insert(bound, mask, hashBound(first.port(), first.family(), first.localKey().srcPort()),
                first);
            groups[slot] = group(members, steeringKeys);
        }
        snapshot = new Snapshot(byId, connected, bound, groups, mask);
    }

    private static void joinGroup(final List<List<UdpSocketImpl>> groups, final UdpSocketImpl socket)
    {
        for (final List<UdpSocketImpl> members : groups)
        {
            if (sameAddress(members.get(0), socket))
            {
                members.add(socket);
                return;
            }
        }
        final List<UdpSocketImpl> members = new ArrayList<>();
        members.add(socket);
        groups.add(members);
    }

    private static ReuseGroup group(final List<UdpSocketImpl> members, final Map<UdpSocketImpl, Long> steeringKeys)
    {
        final UdpSocketImpl[] all = members.toArray(new UdpSocketImpl[0]);
        boolean steered = false;
        for (final UdpSocketImpl socket : all)
        {
            steered |= steeringKeys.containsKey(socket);
        }
        if (steered)
        {
            // A local member of a steered group is named by its socket id, which is never reused in a pipeline.
            final long[] keys = new long[all.length];
            for (int i = 0; i < all.length; i++)
            {
                final Long key = steeringKeys.get(all[i]);
                keys[i] = null == key ? all[i].id() : key;
            }
            return new ReuseGroup(all, null, SteeringTable.of(all, keys));
        }
        int maxCpu = 0;
        for (final UdpSocketImpl socket : members)
        {
            maxCpu = Math.max(maxCpu, socket.cpu());
        }
        final UdpSocketImpl[] byCpu = new UdpSocketImpl[maxCpu + 1];
        for (final UdpSocketImpl socket : members)
        {
            if (null == byCpu[socket.cpu()])
            {
                byCpu[socket.cpu()] = socket;
            }
        }
        return new ReuseGroup(all, byCpu, null);
    }

    /** Linear probing from {@code hash}; returns the slot taken. */
    private static int insert(final UdpSocketImpl[] slots, final int mask, final int hash, final UdpSocketImpl socket)
    {
        int i = hash & mask;
        while (null != slots[i])
        {
            i = (i + 1) & mask;
        }
        slots[i] = socket;
        return i;
    }

    private static boolean matchesConnected(final UdpSocketImpl socket, final int port, final FlowKey flow)
    {
        final FlowKey local = socket.localKey();
        final Endpoint remote = socket.remote();
        return socket.port() == port && local.family() == flow.family() && local.srcPort() == flow.dstPort() &&
            remote.port() == flow.srcPort() && remote.lo() == flow.srcLo() && remote.hi() == flow.srcHi() &&
            local.srcLo() == flow.dstLo() && local.srcHi() == flow.dstHi();
    }

    private static int hashConnected(
        final int port, final long localLo, final int localPort, final long remoteLo, final int remotePort)
    {
        long h = localLo * 0x9E37_79B9_7F4A_7C15L;
        h ^= remoteLo * 0xC2B2_AE3D_27D4_EB4FL;
        h ^= ((long)localPort << 32 | (long)remotePort << 16 | port) * 0x1656_67B1_9E37_79F9L;
        return (int)(h ^ (h >>> 29));
    }

    private static int hashBound(final int port, final int family, final int localPort)
    {
        final long h = ((long)localPort << 16 | (long)family << 8 | port) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h ^ (h >>> 31));
    }

    @Override
    public String toString()
    {
        return "SocketTable" + Arrays.toString(sockets().toArray());
    }
}
