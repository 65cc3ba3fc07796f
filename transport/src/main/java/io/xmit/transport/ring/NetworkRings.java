package io.xmit.transport.ring;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rings between nodes: {@link Rings} whose media driver also carries Aeron UDP streams, with the same frames as the
 * IPC rings ({@link io.xmit.pipeline.frame.RingFrameHeader} then the Ethernet frame, one per message, never
 * fragmented) and the same handles: a {@link PacketPublication} whose results are the IPC ring's values
 * ({@code NOT_CONNECTED}, {@code BACK_PRESSURED}, ... — a remote consumer that stops polling back-pressures its
 * producers through Aeron's flow control) and a {@link PacketSubscription}.
 * <p>
 * Wake-ups: a remote producer cannot ring a doorbell in this process, so this driver's receive hook
 * ({@link DoorbellReceiveChannelEndpoint}) rings the consumer's {@link RingDoorbell} after each datagram of its
 * stream, and the image's arrival rings it once. A publication here rings no local doorbell: its consumer is in
 * another driver, woken by that driver's hook.
 * <p>
 * One subscription per stream id in these rings. The settings are {@link DataPlaneConfig}'s, checked against the
 * frames and this host at launch. The IPC rings of the same driver are {@link #rings()}.
 */
public final class NetworkRings implements AutoCloseable
{
    /**
     * What a UDP publication rings after each commit: the consumer is remote, so nothing here may wake. A doorbell
     * moved to {@code SCHEDULED} once and never back, so ringing it costs the fence and one read, and calls nothing.
     */
    private static final RingDoorbell REMOTE_CONSUMER = new RingDoorbell(() -> { });
    /** What a receive port's anchor rings: nothing is ever sent on its stream. */
    private static final RingDoorbell NO_PRODUCER = new RingDoorbell(() -> { });

    static
    {
        REMOTE_CONSUMER.ring();
    }

    private final Rings rings;
    private final DataPlaneConfig dataPlane;
    private final NetworkDoorbells doorbells;
    private final Map<Integer, PacketSubscription> subscriptions = new HashMap<>();
    private final AtomicLong imagesArrived = new AtomicLong();

    private NetworkRings(final Rings rings, final DataPlaneConfig dataPlane, final NetworkDoorbells doorbells)
    {
        this.rings = rings;
        this.dataPlane = dataPlane;
        this.doorbells = doorbells;
    }

    /**
     * Starts rings as {@link Rings#launch(String, RingsConfig)} does, whose driver also sends and receives UDP rings.
     *
     * @throws IllegalArgumentException if {@code dataPlane}'s MTU cannot carry {@code config}'s longest frame in one
     *                                  datagram, or its socket buffers are above this host's limits; each message
     *                                  names the setting and the value.
     */
    public static NetworkRings launch(final String name, final RingsConfig config, final DataPlaneConfig dataPlane)
    {
        if (null == config || null == dataPlane)
        {
            throw new IllegalArgumentException("config and dataPlane must not be null");
        }
        dataPlane.checkFrames(config);
        dataPlane.checkHost();
        final NetworkDoorbells doorbells = new NetworkDoorbells();
        final Rings rings = Rings.launch(name, config, context -> context.receiveChannelEndpointSupplier(
            (udpChannel, dispatcher, statusIndicator, driverContext) ->
                new DoorbellReceiveChannelEndpoint(udpChannel, dispatcher, statusIndicator, driverContext, doorbells)));
        return new NetworkRings(rings, dataPlane, doorbells);
    }

    /**
     * Adds a producers' handle on the UDP ring {@code streamId} whose consumer listens at {@code endpoint}: shared by
     * all producers, thread-safe, {@code NOT_CONNECTED} until the consumer's subscription answers.
     *
     * @param endpoint the consumer's {@code host:port} ({@link PacketSubscription#localEndpoint()} over there).
     */
    public PacketPublication addPublication(final String endpoint, final int streamId)
    {
        checkEndpoint(endpoint);
        final String channel = "aeron:udp?endpoint=" + endpoint +
            "|mtu=" + dataPlane.mtuLength() +
            "|term-length=" + dataPlane.termLength() +
            (0 == dataPlane.socketSndbufLength() ? "" : "|so-sndbuf=" + dataPlane.socketSndbufLength());
        return new PacketPublication(rings.aeron().addPublication(channel, streamId), REMOTE_CONSUMER, streamId,
            rings.config().maxFrameLength());
    }

    /**
     * Adds the consumer's handle on the UDP ring {@code streamId}, receiving at {@code bindEndpoint}; {@code doorbell}
     * is rung by this driver when frames of the stream arrive and when a producer's image appears.
     *
     * @param bindEndpoint the local {@code address:port} to receive on; port 0 lets the system choose one, then
     *                     read it from {@link PacketSubscription#localEndpoint()}.
     * @throws IllegalArgumentException if an open subscription of these rings already consumes {@code streamId}.
     */
    public PacketSubscription addSubscription(
        final String bindEndpoint, final int streamId, final RingDoorbell doorbell)
    {
        checkEndpoint(bindEndpoint);
        return subscribe("endpoint=" + bindEndpoint, streamId, doorbell);
    }

    /**
     * Adds the consumer's handles on the UDP rings {@code streamIds}, all receiving on one port of their own that the
     * system chooses on {@code host} ({@link PacketSubscription#localEndpoint()}): a receive socket no other
     * subscription of these rings shares, so that the producers of these streams alone send to it. The port is
     * released once all of them are closed and the driver has let their images go. {@code doorbell} is rung as by
     * {@link #addSubscription}.
     *
     * @throws IllegalArgumentException if {@code streamIds} is empty or one of them already has a consumer here.
     */
    public PacketSubscription[] addSubscriptionsOnOwnPort(
        final String host, final int[] streamIds, final RingDoorbell doorbell)
    {
        checkAddress("host must be an address", host);
        if (null == streamIds || 0 == streamIds.length)
        {
            throw new IllegalArgumentException("streamIds must name at least one stream");
        }
        // The first subscription binds the port and tags its receive endpoint; the others name the tag, which Aeron
        // resolves to that same endpoint (a second "endpoint=host:port" would try to bind the port again).
        final long tag = rings.aeron().nextCorrelationId();
        final PacketSubscription[] subscriptions = new PacketSubscription[streamIds.length];
        try
        {
            for (int i = 0; i < streamIds.length; i++)
            {
                subscriptions[i] = subscribe((0 == i ? "endpoint=" + host + ":0|" : "") + "tags=" + tag,
                    streamIds[i], doorbell);
            }
        }
        catch (final RuntimeException ex)
        {
            for (final PacketSubscription subscription : subscriptions)
            {
                if (null != subscription)
                {
                    subscription.close();
                }
            }
            throw ex;
        }
        return subscriptions;
    }

    /**
     * Opens a receive port of its own on {@code host}, chosen by the system: the rings later added to it share its one
     * receive socket ({@link ReceivePort}). It holds a subscription to {@code anchorStreamId} until closed, so that
     * stream has no other consumer here.
     *
     * @throws IllegalArgumentException if {@code anchorStreamId} already has a consumer here.
     * @throws IllegalStateException    if the driver reports no port.
     */
    public ReceivePort openReceivePort(final String host, final int anchorStreamId)
    {
        checkAddress("host must be an address", host);
        final long tag = rings.aeron().nextCorrelationId();
        final PacketSubscription anchor = subscribe("endpoint=" + host + ":0|tags=" + tag, anchorStreamId, NO_PRODUCER);
        if (null == anchor.localEndpoint())
        {
            anchor.close();
            throw new IllegalStateException("the driver of rings '" + rings.name() + "' reported no port on " + host);
        }
        return new ReceivePort(anchor, tag);
    }

    /**
     * Adds the consumer's handle on the UDP ring {@code streamId}, receiving on {@code port}; {@code doorbell} is rung
     * as by {@link #addSubscription(String, int, RingDoorbell)}.
     *
     * @throws IllegalArgumentException if {@code streamId} already has a consumer here.
     * @throws IllegalStateException    if {@code port} is closed.
     */
    public PacketSubscription addSubscription(final ReceivePort port, final int streamId, final RingDoorbell doorbell)
    {
        if (port.isClosed())
        {
            throw new IllegalStateException("stream " + streamId + " cannot be added to " + port + ": it is closed");
        }
        return subscribe("tags=" + port.tag(), streamId, doorbell);
    }

    private PacketSubscription subscribe(final String address, final int streamId, final RingDoorbell doorbell)
    {
        if (null == doorbell)
        {
            throw new IllegalArgumentException("doorbell must not be null");
        }
        final String channel = "aeron:udp?" + address +
            "|so-rcvbuf=" + dataPlane.socketRcvbufLength() +
            "|rcv-wnd=" + dataPlane.receiverWindowLength();
        synchronized (subscriptions)
        {
            final PacketSubscription existing = subscriptions.get(streamId);
            if (null != existing && !existing.isClosed())
            {
                throw new IllegalArgumentException(
                    "stream " + streamId + " already has a consumer in rings '" + rings.name() + "' (" + existing +
                    "); a UDP ring has one");
            }
            doorbells.put(streamId, doorbell);
            final PacketSubscription subscription;
            try
            {
                subscription = new PacketSubscription(
                    rings.aeron().addSubscription(channel, streamId, image -> imageArrived(doorbell), image -> { }),
                    streamId, dataPlane.mtuLength());
            }
            catch (final RuntimeException ex)
            {
                doorbells.remove(streamId);
                throw ex;
            }
            subscriptions.put(streamId, subscription);
            return subscription;
        }
    }

    /** The IPC rings of the same driver. */
    public Rings rings()
    {
        return rings;
    }

    public DataPlaneConfig dataPlane()
    {
        return dataPlane;
    }

    /** Client conductor: a producer's image arrived; its consumer looks once at what it may already hold. */
    private void imageArrived(final RingDoorbell doorbell)
    {
        doorbell.ring();
        imagesArrived.incrementAndGet();
    }

    /**
     * How many producers' images have arrived on this driver's UDP rings, each once its consumer's doorbell was rung
     * for it (Aeron adds the image, which {@code isConnected} shows at once, before it runs that handler).
     */
    public long imagesArrived()
    {
        return imagesArrived.get();
    }

    /** How many times the receive hook woke an idle consumer, over all UDP rings of this driver. */
    public long hookWakeUps()
    {
        return doorbells.wakeUps();
    }

    /** Closes every ring, UDP and IPC, the driver and its directory, as {@link Rings#close()}. Idempotent. */
    @Override
    public void close()
    {
        rings.close();
    }

    @Override
    public String toString()
    {
        return "NetworkRings{" + rings + ", " + dataPlane + "}";
    }

    private static void checkEndpoint(final String endpoint)
    {
        checkAddress("endpoint must be host:port", endpoint);
    }

    private static void checkAddress(final String rule, final String value)
    {
        if (null == value || value.isBlank() || value.indexOf('|') >= 0)
        {
            throw new IllegalArgumentException(
                rule + " with no '|', was " + (null == value ? "null" : "'" + value + "'"));
        }
    }
}
