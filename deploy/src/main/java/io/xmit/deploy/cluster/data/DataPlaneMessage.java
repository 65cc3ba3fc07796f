package io.xmit.deploy.cluster.data;

import akka.actor.typed.ActorRef;
import io.xmit.actors.Endpoint;
import io.xmit.pipeline.flow.FlowKey;

/**
 * The messages between an app node's {@link AppDataPlane} and the edge's {@link EdgeDataPlane}: rare, small, never
 * per packet, serialized by {@link DataPlaneSerializer}. A node is named by its Akka cluster address and its
 * incarnation (the address's uid), never by a name, so a restarted node is a new peer whose old streams are gone.
 * <pre>
 *   app                                   edge
 *   BindSocket ──────────────────────────▶ member added out of steering, ring to the node's stream
 *             ◀────────────────────────── SocketBound (socket id, TX streams, port address, queue map) | BindRefused
 *             ◀────────────────────────── QueueMapChanged (the port's queue map), on each change
 *   SocketReady (ring connected) ────────▶ member steered to
 *   Receipt (read so far), now and then ─▶ the node's books
 *   SocketPeer (connect, disconnect) ────▶ member filed under its 4-tuple, out of steering; or back
 *             ◀────────────────────────── Completions (each socket's sends done so far), while some are in flight
 *   UnbindSocket ────────────────────────▶ member out of steering
 *             ◀────────────────────────── SocketUnbound (the ring's last position)
 *   ReleaseSocket (read to it, TX pos.) ─▶ relay runs to them, then member closed
 *   NodeLeaving (TX positions) ──────────▶ relay runs to them
 *             ◀────────────────────────── NodeDrained
 * </pre>
 */
public sealed interface DataPlaneMessage extends EdgeDataPlane.Command, AppDataPlane.Command
{
    /**
     * Socket {@code index} of {@code service} on {@code node} reads stream {@code streamId} at {@code dataEndpoint},
     * with a receiver window of {@code receiverWindow} bytes (its driver's {@code rcv-wnd}: what the edge's driver
     * subtracts from its sender limit to know the position the node confirmed).
     */
    record BindSocket(String service, int index, String node, long incarnation, String dataEndpoint, int streamId,
        ActorRef<DataPlaneMessage> replyTo, int receiverWindow) implements DataPlaneMessage
    {
    }

    /**
     * What the socket needs to send as a member of the edge's group: its id and device port there, the edge's TX
     * streams (one per TX queue of the device, at {@code edgeEndpoint}), the group's address and the port's MACs,
     * and the port's queue map (RX queue count, each TX queue's {@code xps_rxqs} as a bit mask of RX queues, the
     * real TX queue count). {@code destinationMac} is the port's static peer MAC; on a port with ARP it is what
     * IPv6 frames go to and, in IPv4 frames, a placeholder the edge writes the next hop's MAC over.
     */
    record SocketBound(String service, int index, int socketId, int port, String edgeEndpoint, int[] txStreams,
        long sourceMac, long destinationMac, int ipv4, int localPort, int rxQueues, long[] xpsRxqs,
        int maxFrameLength, int realNumTx) implements DataPlaneMessage
    {
    }

    /**
     * The queue map of the edge's device port {@code port} changed (its {@code xps_rxqs} or its real TX queue
     * count): the node's sockets of that port pick their TX queue by it from now on. Sent once per change to each
     * node with a socket there.
     */
    record QueueMapChanged(int port, int realNumTx, int rxQueues, long[] xpsRxqs) implements DataPlaneMessage
    {
    }

    record BindRefused(String service, int index, String reason) implements DataPlaneMessage
    {
    }

    /** The socket's node reads its ring: the edge may steer to it. */
    record SocketReady(int socketId) implements DataPlaneMessage
    {
    }

    /**
     * The socket was connected to {@code peerIpv4}:{@code peerPort} ({@link RemoteUdpSocket#connect}), or
     * disconnected ({@code peerPort} 0: a connected remote socket's peer always has a port). One message per connect
     * or disconnect, never per packet: the edge files its member under the exact 4-tuple (the group's address and
     * port, the peer's), so the peer's datagrams reach it and no other peer's are steered to it.
     */
    record SocketPeer(int socketId, int peerIpv4, int peerPort) implements DataPlaneMessage
    {
        /** The message for {@code peer}, or for a disconnect if it is null. */
        static SocketPeer of(final int socketId, final Endpoint peer)
        {
            return null == peer ? new SocketPeer(socketId, 0, 0) : new SocketPeer(socketId, (int)peer.lo(),
                peer.port());
        }

        /** The peer, or null for a disconnect. */
        Endpoint peer()
        {
            return 0 == peerPort ? null : new Endpoint(FlowKey.FAMILY_IPV4, 0, peerIpv4 & 0xFFFF_FFFFL, peerPort);
        }
    }

    /**
     * The socket has read {@code received} datagrams so far: sent now and then (never per packet), so that what a
     * node lost without leaving is bounded by what it read since its last receipt.
     */
    record Receipt(int socketId, long received) implements DataPlaneMessage
    {
    }

    /**
     * The edge is done with {@code completed[i]} of the sends of its member {@code socketIds[i]} so far (sent by
     * their TX queue, dropped after the qdisc took them, or refused by the pipeline when relayed): the counts only
     * grow, so a later report covers an earlier one. One message per node for each member whose count changed, at
     * most every {@link TxRelay#COMPLETIONS_AFTER} while the node has packets in flight; never per packet.
     */
    record Completions(int[] socketIds, long[] completed) implements DataPlaneMessage
    {
    }

    record UnbindSocket(int socketId, ActorRef<DataPlaneMessage> replyTo) implements DataPlaneMessage
    {
    }

    /** No datagram is steered to the socket any more; its ring ends at {@code position}. */
    record SocketUnbound(int socketId, long position) implements DataPlaneMessage
    {
    }

    /**
     * The socket's node has read its ring to the end ({@code received} datagrams in all) and the socket sends no
     * more: its sends end at {@code txPositions} of the node's TX streams (one per TX queue). The edge closes it once
     * its relay has read the streams to there.
     */
    record ReleaseSocket(int socketId, long received, long[] txPositions) implements DataPlaneMessage
    {
    }

    /** The node stops sending: its TX streams end at {@code txPositions} (one per TX queue). */
    record NodeLeaving(String node, long incarnation, long[] txPositions, ActorRef<DataPlaneMessage> replyTo)
        implements DataPlaneMessage
    {
    }

    /** The edge relayed the node's TX streams to their end: {@code relayed} frames over its life. */
    record NodeDrained(String node, long relayed) implements DataPlaneMessage
    {
    }
}
