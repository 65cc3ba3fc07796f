package io.xmit.actors.internal.host;

import io.xmit.actors.PortAddress;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.frame.EthernetFlyweight;
import io.xmit.pipeline.frame.ParsedFrame;
import io.xmit.pipeline.frame.RingFrameHeader;
import io.xmit.pipeline.host.HostAddresses;
import io.xmit.transport.ring.PacketClaim;
import io.xmit.transport.ring.PacketPublication;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * What the RX queues and senders of one port share with its host actor ({@link HostEngine}): the host ring, into
 * which RX queues copy the frames a host answers (ARP, ICMP, UDP to a closed port) and senders the frames whose next
 * hop is not resolved yet, and the {@link NextHops} snapshot senders take destination MACs from. Thread-safe: the
 * ring has many producers, each with its own {@link PacketClaim}; the snapshot is one volatile reference.
 * <p>
 * A frame's kind travels in the ring header's flags. For {@link #KIND_HOLD} the header's RX queue field carries the
 * TX queue the socket picked, so the frame leaves on that queue once its next hop resolves.
 */
public final class HostPath
{
    /** {@link #resolve}: no MAC yet, hand the frame to the host actor to hold. */
    public static final long UNRESOLVED = -1;

    static final int KIND_ARP = 1;
    static final int KIND_ICMP = 2;
    static final int KIND_CLOSED_PORT = 3;
    public static final int KIND_HOLD = 4;

    private static final long IPV4_MULTICAST_MAC = 0x0100_5E00_0000L;

    private final PortAddress address;
    private final int subnetMask;
    private final PacketPublication ring;
    private final PacketPublication holdRing;
    private final AtomicCounter ringFull;
    private final AtomicCounter queued;
    private volatile NextHops nextHops = NextHops.EMPTY;

    /**
     * @param ring     what the RX queues hand over: ARP, ICMP, UDP to a closed port.
     * @param holdRing what senders hand over while their next hop resolves: apart, so that a flood of them cannot
     *                 crowd out the ARP reply that would resolve it.
     * @param ringFull {@code host_drop_ring_full}.
     * @param queued   {@code host_rx_queued}: received frames put into {@code ring}.
     */
    public HostPath(final PortAddress address, final PacketPublication ring, final PacketPublication holdRing,
        final AtomicCounter ringFull, final AtomicCounter queued)
    {
        this.address = address;
        this.subnetMask = 0 == address.prefix() ? 0 : -1 << (32 - address.prefix());
        this.ring = ring;
        this.holdRing = holdRing;
        this.ringFull = ringFull;
        this.queued = queued;
    }

    /** How far the RX queues and senders have written the host's rings (for a graceful stop's drain). */
    public long ringPosition()
    {
        return ring.position() + holdRing.position();
    }

    PortAddress address()
    {
        return address;
    }

    /** The ring senders hand datagrams to while their next hop resolves. */
    public PacketPublication holdRing()
    {
        return holdRing;
    }

    NextHops nextHops()
    {
        return nextHops;
    }

    /** Published by the host actor only. */
    void publish(final NextHops snapshot)
    {
        nextHops = snapshot;
    }

    /**
     * The destination MAC of an IPv4 frame to {@code destination}: the static peer MAC without ARP; the group MAC of a
     * broadcast or multicast address (RFC 1112 §6.4); else the resolved MAC of its next hop, or {@link #UNRESOLVED}.
     */
    public long resolve(final int destination)
    {
        if (!address.arp())
        {
            return address.peerMac();
        }
        if (isBroadcast(destination))
        {
            return EthernetFlyweight.BROADCAST_MAC;
        }
        if (HostAddresses.isMulticast(destination))
        {
            return IPV4_MULTICAST_MAC | (destination & 0x7F_FFFF);
        }
        return nextHops.lookup(nextHop(destination));
    }

    /** The destination itself on the port's subnet (or with no gateway), else the gateway. */
    public int nextHop(final int destination)
    {
        final boolean onLink = (destination & subnetMask) == (address.ipv4() & subnetMask);
        return onLink || 0 == address.gateway() ? destination : address.gateway();
    }

    /** The limited broadcast, or the port subnet's directed broadcast. */
    boolean isBroadcast(final int destination)
    {
        return HostAddresses.LIMITED_BROADCAST == destination ||
            (32 > address.prefix() && (destination | subnetMask) == -1 &&
            (destination & subnetMask) == (address.ipv4() & subnetMask));
    }

    /**
     * The RX path's hook: takes a received frame that is the host's to answer (ARP with ARP on; IPv4 ICMP, and IPv4
     * UDP that found no socket ({@code noSocket}), with ICMP on) into the host ring.
     *
     * @return true if the frame is the host's: in the ring, or counted as {@code host_drop_ring_full}.
     */
    public boolean take(final DirectBuffer frame, final int length, final int rxq, final ParsedFrame parsed,
        final boolean noSocket, final PacketClaim claim)
    {
        final int kind = kindOf(parsed, noSocket);
        if (0 == kind)
        {
            return false;
        }
        final long result = ring.tryClaimRetrying(length, claim);
        if (result < 0)
        {
            ringFull.incrementRelease();
            return true;
        }
        claim.putHeader(RingFrameHeader.NO_FLOW_HASH, 0, 0, rxq, kind, RingFrameHeader.NO_TRACE_ID, 0);
        claim.buffer().putBytes(claim.frameOffset(), frame, 0, length);
        // Counted before the commit makes it visible: the host never takes a frame the books have not seen.
        queued.incrementRelease();
        claim.commit();
        return true;
    }

    private int kindOf(final ParsedFrame parsed, final boolean noSocket)
    {
        if (EthernetFlyweight.ETHERTYPE_ARP == parsed.ethertype())
        {
            return address.arp() ? KIND_ARP : 0;
        }
        if (!address.icmp() || EthernetFlyweight.ETHERTYPE_IPV4 != parsed.ethertype() || parsed.isFragment())
        {
            return 0;
        }
        if (FlowKey.PROTO_ICMP == parsed.ipProtocol())
        {
            return KIND_ICMP;
        }
        return noSocket && FlowKey.PROTO_UDP == parsed.ipProtocol() ? KIND_CLOSED_PORT : 0;
    }
}
