package io.xmit.actors;

import io.xmit.pipeline.flow.FlowKey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A pipeline's sockets: by id (for TX completions) and by address (for the RX path's socket lookup: the exact
 * 5-tuple of a connected socket first, then the bound address and port, then a wildcard bind). Readers on any
 * thread see an immutable snapshot through one volatile load and allocate nothing; opening and closing sockets
 * (rare, control plane) builds a new snapshot under a lock.
 */
public final class SocketTable
{
    private static final int MIN_SLOTS = 64;

    private record Snapshot(UdpSocket[] byId, UdpSocket[] connected, UdpSocket[] bound, int mask)
    {
    }

    private final List<UdpSocket> sockets = new ArrayList<>();
    private volatile Snapshot snapshot = new Snapshot(new UdpSocket[1], new UdpSocket[MIN_SLOTS],
        new UdpSocket[MIN_SLOTS], MIN_SLOTS - 1);

    /** The socket with {@code id}, or null if there is none (closed or never opened). */
    public UdpSocket byId(final int id)
    {
        final UdpSocket[] byId = snapshot.byId;
        return id > 0 && id < byId.length ? byId[id] : null;
    }

    /** TX completion of a packet of socket {@code id}; a closed socket's completions are ignored. */
    void packetCompleted(final int id)
    {
        packetsCompleted(id, 1);
    }

    /** TX completion of {@code packets} packets of socket {@code id}. */
    void packetsCompleted(final int id, final int packets)
    {
        final UdpSocket socket = byId(id);
        if (null != socket)
        {
            socket.packetsCompleted(packets);
        }
    }

    /**
     * The socket a datagram with 5-tuple {@code flow} (source = the peer, destination = us) arriving on device
     * {@code port} belongs to, or null.
     */
    public UdpSocket lookup(final int port, final FlowKey flow)
    {
        final Snapshot s = snapshot;
        final UdpSocket[] connected = s.connected;
        for (int i = hashConnected(port, flow.dstLo(), flow.dstPort(), flow.srcLo(), flow.srcPort()) & s.mask; ;
            i = (i + 1) & s.mask)
        {
            final UdpSocket socket = connected[i];
            if (null == socket)
            {
                break;
            }
            if (matchesConnected(socket, port, flow))
            {
                return socket;
            }
        }
        final UdpSocket[] bound = s.bound;
        UdpSocket wildcard = null;
        for (int i = hashBound(port, flow.family(), flow.dstPort()) & s.mask; ; i = (i + 1) & s.mask)
        {
            final UdpSocket socket = bound[i];
            if (null == socket)
            {
                return wildcard;
            }
            final FlowKey local = socket.localKey();
            if (socket.port() == port && local.family() == flow.family() && local.srcPort() == flow.dstPort())
            {
                if (!socket.isWildcard() && local.srcLo() == flow.dstLo() && local.srcHi() == flow.dstHi())
                {
                    return socket;
                }
                if (socket.isWildcard())
                {
                    wildcard = socket;
                }
            }
        }
    }

    /** Adds or re-files a socket (after a connect); throws if its address is taken. */
    synchronized void put(final UdpSocket socket)
    {
        sockets.remove(socket);
        for (final UdpSocket other : sockets)
        {
            if (clashes(other, socket))
            {
                throw new IllegalStateException("address in use: " + socket.local() +
                    (null == socket.remote() ? "" : " connected to " + socket.remote()) + " on port " +
                    socket.port() + " is taken by socket " + other.id());
            }
        }
        sockets.add(socket);
        rebuild();
    }

    synchronized void remove(final UdpSocket socket)
    {
        if (sockets.remove(socket))
        {
            rebuild();
        }
    }

    public synchronized List<UdpSocket> sockets()
    {
        return List.copyOf(sockets);
    }

    private static boolean clashes(final UdpSocket a, final UdpSocket b)
    {
        if (a.port() != b.port() || a.family() != b.family() || a.localKey().srcPort() != b.localKey().srcPort())
        {
            return false;
        }
        final boolean sameAddress = a.isWildcard() == b.isWildcard() &&
            a.localKey().srcLo() == b.localKey().srcLo() && a.localKey().srcHi() == b.localKey().srcHi();
        if (!sameAddress)
        {
            return false;
        }
        final Endpoint ra = a.remote();
        final Endpoint rb = b.remote();
        return null == ra ? null == rb : ra.equals(rb);
    }

    private void rebuild()
    {
        int maxId = 0;
        for (final UdpSocket socket : sockets)
        {
            maxId = Math.max(maxId, socket.id());
        }
        final UdpSocket[] byId = new UdpSocket[maxId + 1];
        int slots = MIN_SLOTS;
        while (slots < sockets.size() * 2)
        {
            slots <<= 1;
        }
        final int mask = slots - 1;
        final UdpSocket[] connected = new UdpSocket[slots];
        final UdpSocket[] bound = new UdpSocket[slots];
        for (final UdpSocket socket : sockets)
        {
            byId[socket.id()] = socket;
            final FlowKey local = socket.localKey();
            final Endpoint remote = socket.remote();
            if (null != remote)
            {
                insert(connected, mask,
                    hashConnected(socket.port(), local.srcLo(), local.srcPort(), remote.lo(), remote.port()), socket);
            }
            else
            {
                insert(bound, mask, hashBound(socket.port(), local.family(), local.srcPort()), socket);
            }
        }
        snapshot = new Snapshot(byId, connected, bound, mask);
    }

    private static void insert(final UdpSocket[] slots, final int mask, final int hash, final UdpSocket socket)
    {
        int i = hash & mask;
        while (null != slots[i])
        {
            i = (i + 1) & mask;
        }
        slots[i] = socket;
    }

    private static boolean matchesConnected(final UdpSocket socket, final int port, final FlowKey flow)
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
