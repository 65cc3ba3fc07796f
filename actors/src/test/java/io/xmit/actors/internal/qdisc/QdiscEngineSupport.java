package io.xmit.actors.internal.qdisc;

import io.xmit.actors.Endpoint;
import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.channel.Channel;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.internal.txq.InFlightFifo;
import io.xmit.actors.internal.txq.TxQueueEngine;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.qdisc.PfifoFast;
import io.xmit.pipeline.testing.Await;
import io.xmit.pipeline.txq.ByteQueueLimits;
import io.xmit.pipeline.txq.TxQueueState;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.RxBurst;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One TX queue of a loop device, wired as {@code Pipeline.build} wires it, but with no actor: the test thread calls
 * {@link QdiscRunner#poll()} (the actor's turn, under the run token) and {@link TxQueueEngine#poll()} itself, so every
 * turn is exact. Port 0 sends with one TX queue, port 1 receives with one RX queue, which the test drains with
 * {@code rxBurst}; every frame carries a sequence number as the first 8 bytes of its UDP payload.
 * <p>
 * The qdisc's doorbell counts the wake-ups it sends ({@link #wakes}), each one a Poll the actor would receive. By
 * default the rig starts with one sent: the test thread is the actor with its Poll on the way, so senders ring as they
 * do when the actor runs, and take no bypass in their own context whatever the setting. {@link #idleActor} leaves it
 * IDLE instead, for the tests of the sender bypass, which play the actor's Polls through {@link #actorCycle}.
 */
final class QdiscEngineSupport implements AutoCloseable
{
    static final String PEER = "10.0.0.2";
    static final int PEER_PORT = 9000;
    /** Ethernet (14) + IPv4 (20) + UDP (8): where the payload starts in a received frame. */
    static final int PAYLOAD_OFFSET = 42;
    static final int PAYLOAD_LENGTH = 58;
    /** The Ethernet frame length the qdisc, BQL and the driver see for one test datagram. */
    static final int FRAME_LENGTH = PAYLOAD_OFFSET + PAYLOAD_LENGTH;
    static final CounterScope SCOPE = CounterScope.txq(0, 0);

    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final int STREAM = 1000;

    final CountersFile counters;
    final NicDevice device;
    final NicDriver driver;
    final NicDriver receiver;
    final Rings rings;
    /** The TX queue's rings, one per band. */
    final PacketPublication[] publications = new PacketPublication[PfifoFast.BANDS];
    final PacketSubscription[] subscriptions = new PacketSubscription[PfifoFast.BANDS];
    final TxQueueState state;
    final ByteQueueLimits bql;
    final InFlightFifo inFlight;
    final SocketTable sockets = new SocketTable();
    final QdiscEngine engine;
    /** The qdisc as its actor runs it: each turn under the run token. */
    final QdiscRunner qdisc;
    final RingDoorbell doorbell;
    /** Wake-ups the doorbell sent: Polls the actor would have received. */
    final AtomicInteger wakes = new AtomicInteger();
    /** The actor's duty cycle over {@link #qdisc}, no spinning: what the actor does with each Poll. */
    final RingDutyCycle actorCycle;
    /**
     * Runs where the qdisc asks its TX queue to look for room (after each {@code tx_burst}, and when it stops the
     * queue), on the thread running the turn: a test can hold a turn there, with the run token held.
     */
    volatile Runnable onWakeTxQueue = () -> { };
    /**
     * Runs where a sender that ran a burst in its own context looks at the completions (§7.7): by default what the
     * actor does ({@link #onWakeTxQueue}); {@link #reapInSenders} makes senders reap through {@link #channel}.
     */
    volatile Runnable onReapInSender = () -> onWakeTxQueue.run();
    final TxQueueEngine txq;
    /** Channel 0 with the TX queue's completions only; its actor's doorbell counts its wake-ups. */
    final Channel channel;
    final RingDoorbell completionsDoorbell;
    /** Wake-ups the completion actor's doorbell sent. */
    final AtomicInteger completionWakes = new AtomicInteger();
    final PortContext portContext;
    final LongArrayList received = new LongArrayList();

    private final RxBurst burst;
    private final UnsafeBuffer frame = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD_LENGTH));
    private int nextSocketId;

    /**
     * @param device a loop device spec with one TX and one RX queue per port, e.g. {@code loop:tx=1,rx=1,ring=1024}.
     * @param config the qdisc settings (quota, bulk limit, band limit, overflow policy).
     */
    QdiscEngineSupport(final String device, final PipelineConfig config)
    {
        this(device, config, false);
    }

    /** A rig whose qdisc actor is idle: the first commit into its rings finds the doorbell IDLE. */
    static QdiscEngineSupport idleActor(final String device, final PipelineConfig config)
    {
        return new QdiscEngineSupport(device, config, true);
    }

    private QdiscEngineSupport(final String device, final PipelineConfig config, final boolean idle)
    {
        final String name = "qdisc-engine-" + ProcessHandle.current().pid() + "-" + INSTANCES.incrementAndGet();
        counters = CountersFile.create(name, CountersFile.DEFAULT_DIRECTORY, CountersFile.DEFAULT_CAPACITY);
        this.device = NicDevice.open(device);
        driver = this.device.port(0);
        receiver = this.device.port(1);
        rings = Rings.launch(name, RingsConfig.defaults()
            .withMaxFrameLength(Math.max(driver.maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
            .withIpcTermLength(1 << 19));
        // No actor: the test thread polls, so the doorbell's wake-up only counts.
        doorbell = new RingDoorbell(wakes::incrementAndGet);
        for (int band = 0; band < PfifoFast.BANDS; band++)
        {
            publications[band] = rings.addPublication(STREAM + band, doorbell);
            subscriptions[band] = rings.addSubscription(STREAM + band, doorbell);
        }
        state = new TxQueueState(System::nanoTime);
        bql = new ByteQueueLimits(state);
        inFlight = new InFlightFifo(driver.ringSize());
        engine = new QdiscEngine(0, 0, driver, subscriptions, state, bql, inFlight, sockets, config, counters,
            () -> onWakeTxQueue.run(), () -> onReapInSender.run());
        qdisc = new QdiscRunner(engine, publications, doorbell, state, config.quota(), config.qdiscSenderBypass(),
            counters.allocate(CounterType.STAGE_RESTARTS, SCOPE.withStage(CounterScope.Stage.QDISC)),
            counters.allocate(CounterType.QDISC_SENDER_RUNS, SCOPE));
        actorCycle = new RingDutyCycle(doorbell, qdisc::poll, 0);
        // The TX queue rings the qdisc when it wakes the queue, as in the pipeline.
        txq = new TxQueueEngine(0, 0, driver, state, bql, inFlight, sockets, config.bulkLimit(), counters,
            doorbell::ring, () -> {});
        completionsDoorbell = new RingDoorbell(completionWakes::incrementAndGet);
        channel = new Channel(0, 0, driver, null, null, txq, completionsDoorbell,
            counters.allocate(CounterType.STAGE_RESTARTS, SCOPE.withStage(CounterScope.Stage.TXQ)), counters);
        portContext = new PortContext(0, PortAddress.defaultFor(0, 2),
            new PacketPublication[][]{publications}, new QdiscRunner[]{qdisc}, FlowHasher.random(), driver.maxFrame(),
            QueueMap.create(1, 1, 1),
            new SendGate(), null);
        burst = new RxBurst(receiver.ringSize());
        for (final PacketSubscription subscription : subscriptions)
        {
            Await.until("the qdisc rings' subscriptions to connect", subscription::isConnected, () -> subscription);
        }
        if (idle)
        {
            // A ring that connects rings its consumer's doorbell: the actor takes those Polls and goes idle.
            for (int delivered = 0; delivered < wakes.get(); delivered++)
            {
                actorCycle.onPoll();
            }
            wakes.set(0);
        }
        else
        {
            doorbell.ring();
        }
    }

    static PipelineConfig config(final String device, final int quota, final int bulkLimit, final int bandLimit,
        final OverflowPolicy overflow)
    {
        return PipelineConfig.builder().name("qdisc-engine").device(device).cpus(1)
            .quota(quota).bulkLimit(bulkLimit).bandLimit(bandLimit).overflow(overflow)
            .qdiscRingTerm(1 << 16).socketRingTerm(1 << 16)
            .build();
    }

    /**
     * Fixes the BQL limit to {@code min..max} and resets the queue (netdev_tx_reset_queue, §7.5: limit = min), so
     * that {@code avail()} is exactly {@code min} while nothing is in flight.
     */
    void bqlLimits(final int min, final int max)
    {
        bql.dql().maxLimit(max).minLimit(min);
        bql.reset();
    }

    /**
     * Senders reap the completions of their bursts through {@link #channel} (§7.7), as in the pipeline; the test's
     * completion actor then polls through it too ({@link Channel#pollCompletions}), never {@link #txq} directly.
     */
    void reapInSenders()
    {
        onReapInSender = channel::reapCompletions;
    }

    /** A socket on port 0, connected to the peer on port 1, sending with {@code priority}. */
    UdpSocketImpl openSocket(final int priority)
    {
        return openSocket(priority, 0);
    }

    /** The same, with at most {@code sendBufferPackets} in flight (0: no bound). */
    UdpSocketImpl openSocket(final int priority, final long sendBufferPackets)
    {
        final int id = ++nextSocketId;
        final FlowKey local = new FlowKey();
        local.setIpv4(FlowKey.PROTO_UDP, portContext.address().ipv4(), 0, 5000 + id, 0);
        final CounterScope scope = CounterScope.socket(0, id);
        final AtomicCounter[] sendCounters = {
            counters.allocate(CounterType.SOCKET_SENT, scope),
            counters.allocate(CounterType.SOCKET_SEND_BACKPRESSURED, scope),
            counters.allocate(CounterType.SOCKET_SEND_REFUSED, scope)};
        final UdpSocketImpl socket = new UdpSocketImpl(id, 0, portContext, local, false, false, priority,
            sendBufferPackets, null, null, new SocketQueueState(), sendCounters, () -> {}, peer -> {});
        socket.setPeer(Endpoint.of(PEER, PEER_PORT));
        sockets.put(socket);
        return socket;
    }

    /** Sends one datagram carrying {@code sequence}; the socket's result. */
    long send(final UdpSocketImpl socket, final long sequence)
    {
        payload.putLong(0, sequence);
        return socket.send(payload, 0, PAYLOAD_LENGTH);
    }

    /** The same with another send to follow at once ({@code sendMore}, xmit_more). */
    long sendMore(final UdpSocketImpl socket, final long sequence)
    {
        payload.putLong(0, sequence);
        return socket.sendMore(payload, 0, PAYLOAD_LENGTH);
    }

    /** Sequences 0 to {@code packets} − 1 by {@code sendMore}, each accepted: a run left open for its last send. */
    void sendMoreRun(final UdpSocketImpl socket, final int packets)
    {
        for (int i = 0; i < packets; i++)
        {
            final long result = sendMore(socket, i);
            if (result <= 0)
            {
                throw new AssertionError("sendMore " + i + " of the run: " + SendResult.name(result));
            }
        }
    }

    /** Takes every frame waiting on port 1's RX queue, recording its sequence number. */
    int drainReceiver()
    {
        final int count = receiver.rxBurst(0, burst);
        for (int i = 0; i < count; i++)
        {
            burst.wrapFrame(i, frame);
            received.addLong(frame.getLong(PAYLOAD_OFFSET));
        }
        if (count > 0)
        {
            receiver.rxRelease(0, count);
        }
        return count;
    }

    /** Qdisc turn, completions, receiver, until {@code done} holds; bounded. */
    void pumpUntil(final String what, final BooleanSupplier done)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what + ": " + this);
            }
            qdisc.poll();
            txq.poll();
            drainReceiver();
        }
    }

    long counter(final CounterType type)
    {
        return counters.value(type, SCOPE);
    }

    @Override
    public void close()
    {
        rings.close();
        device.close();
        counters.close();
    }

    @Override
    public String toString()
    {
        return "QdiscEngineSupport{state=" + state + ", backlog=" + qdisc.backlog() + ", inFlight=" + inFlight.size() +
            ", received=" + received.size() + ", packets=" + counter(CounterType.QDISC_PACKETS) + ", bypassed=" +
            counter(CounterType.QDISC_BYPASSED) + ", enqueued=" + counter(CounterType.QDISC_ENQUEUED) + "}";
    }
}
