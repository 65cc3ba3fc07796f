package io.xmit.transport.ring;

/**
 * A UDP receive port of its own, opened by {@link NetworkRings#openReceivePort}: the rings added to it
 * ({@link NetworkRings#addSubscription(ReceivePort, int, RingDoorbell)}) share one receive socket that no other
 * subscription of those rings uses, so that only their producers send to it. An anchor subscription, to a stream no
 * producer sends on, keeps the port bound while no ring is on it, until {@link #close}.
 */
public final class ReceivePort implements AutoCloseable
{
    private final PacketSubscription anchor;
    private final long tag;

    ReceivePort(final PacketSubscription anchor, final long tag)
    {
        this.anchor = anchor;
        this.tag = tag;
    }

    /** The {@code host:port} the system chose: where the producers of its rings send. */
    public String endpoint()
    {
        return anchor.localEndpoint();
    }

    long tag()
    {
        return tag;
    }

    boolean isClosed()
    {
        return anchor.isClosed();
    }

    /** Lets the port go once the rings on it are closed too. Idempotent. */
    @Override
    public void close()
    {
        anchor.close();
    }

    @Override
    public String toString()
    {
        return "ReceivePort{tag=" + tag + ", " + anchor + "}";
    }
}
