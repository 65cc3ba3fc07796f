package io.xmit.actors;

import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

/**
 * A member of a SO_REUSEPORT group whose socket lives on another node ({@link Pipeline#openRemote}): the RX queues
 * steer datagrams to it by rendezvous hashing of their flow hash (only its flows move when it leaves) and copy them
 * into its receive ring, a ring to that node; what that node sends comes back through {@link #relay}. Control-plane
 * calls ({@link #steer}, {@link #close}) are not made on an xmit CPU.
 */
public interface RemoteMember extends AutoCloseable
{
    /** Its socket id in this pipeline, carried in the frames the RX queues write for it and in its relayed sends. */
    int id();

    /** The device port its group is bound on. */
    int port();

    /**
     * Sends a frame the member's node wrote: copied as it is into TX queue {@code txq}'s qdisc ring (the band of the
     * header's priority), and counted as this member's send in the pipeline's books. One thread at a time. On a port
     * with ARP an IPv4 frame's destination MAC is the next hop's, written here; while that neighbour resolves the
     * frame is held by the port's host instead ({@link #held}), and leaves on TX queue {@code txq} once it resolves.
     *
     * @return a positive ring position if accepted, else a negative {@link SendResult}: {@link SendResult#BACK_PRESSURED}
     * when the qdisc's ring is full (nothing was copied), {@link SendResult#STOPPED} once the pipeline stops,
     * {@link SendResult#CLOSED}, {@link SendResult#TOO_LONG}.
     * @throws IllegalArgumentException if {@code txq} is not one of the port's TX queues.
     */
    long relay(int txq, RingFrameHeader header, DirectBuffer buffer, int frameOffset, int frameLength);

    /**
     * Puts the member into its group's steering ({@code true}) or takes it out ({@code false}): out of it, no
     * datagram goes to it and its flows go to the other members; back in, exactly its flows return.
     */
    void steer(boolean on);

    /**
     * Its node connected its socket to {@code peer}: the member is filed under its exact 4-tuple (its group's address
     * and port, and the peer's), so that the RX queues deliver the peer's datagrams to it whatever the group's
     * steering says, and it leaves the group's steering: no other peer's datagram is steered to it (its slots go to
     * the other members, as when it is out of steering). A connected member out of steering ({@link #steer}) gets
     * nothing, its peer's flow included, until it is back. A later connect replaces the peer.
     *
     * @throws IllegalStateException    if another socket of the pipeline is connected from the same address to the
     *                                  same peer, or the member is closed; nothing has changed then.
     * @throws IllegalArgumentException if {@code peer} is not of the group's family.
     */
    void connect(Endpoint peer);

    /** Its node disconnected its socket: the exact entry goes and the member is steered to as before. */
    void disconnect();

    /** The peer it is connected to ({@link #connect}), or null. */
    Endpoint peer();

    /**
     * Its frames {@link #relay} handed to the port's host to hold while their next hop resolved: not in {@link #sent}
     * (the host counts them when it sends them), but in {@link #completed} once sent or dropped. On the relay's thread.
     */
    long held();

    /** What it has sent through {@link #relay}; after {@link #close}, what it had; -1 if the pipeline closed first. */
    long sent();

    /**
     * Its sends the pipeline is done with: sent by their TX queue, or dropped and counted under a reason after the
     * qdisc took them (the socket's TX completions, kernel-semantics §1.5). Its node's socket counts its in-flight
     * packets down by these. After {@link #close}, what it had (completions of a closed socket are not counted).
     */
    long completed();

    /**
     * What the RX queues have put into its receive ring. The pipeline's receive books count these as delivered to a
     * socket (they end where the ring to the node begins); what the node read of them is the node's to report.
     * After {@link #close}, what it had; -1 if the pipeline closed first.
     */
    long delivered();

    /** Leaves the group for good and closes its receive ring; what it sent and was delivered stays in the books. */
    @Override
    void close();
}
