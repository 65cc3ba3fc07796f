package io.xmit.deploy.cluster;

import akka.actor.Address;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.cluster.sharding.typed.javadsl.ShardedDaemonProcess;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Down;
import akka.cluster.typed.Join;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.xmit.pipeline.testing.Await;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.NetworkRings;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;
import io.xmit.transport.ring.RingsConfig;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster stack on this JDK beside the project's Agrona and Aeron (issue 16, spike; docs/cluster.md): three
 * ActorSystems in one JVM over Artery TCP on 127.0.0.1 with the Split Brain Resolver form a cluster, a
 * ShardedDaemonProcess runs its instances, and after one node is downed the other two go on and take over its
 * instances; and beside it, in the same JVM, a UDP ring of {@code transport} carries frames in order and its
 * receive hook wakes the consumer. Settings are the short ones for two shared cores (docs/cluster.md, "Settings the
 * tests use").
 */
class ClusterStackTest
{
    private static final String SYSTEM_NAME = "xmit-cluster-stack";
    private static final int DAEMONS = 6;
    private static final Duration FORMATION = Duration.ofSeconds(10);
    private static final Duration TAKE_OVER = Duration.ofSeconds(15);
    private static final int UDP_STREAM = 1001;
    private static final long UDP_FRAMES = 100_000;
    private static final int UDP_FRAME_LENGTH = 64;

    /** The settings under test; everything else is Akka's reference configuration. */
    private static final Config CLUSTER = ConfigFactory.parseString("""
        akka {
          loglevel = WARNING
          loggers = ["akka.event.slf4j.Slf4jLogger"]
          logging-filter = "akka.event.slf4j.Slf4jLoggingFilter"
          actor.provider = cluster
          remote.artery {
            transport = tcp
            canonical { hostname = "127.0.0.1", port = 0 }
            advanced.inbound-lanes = 1
          }
          cluster {
            downing-provider-class = "akka.cluster.sbr.SplitBrainResolverProvider"
            split-brain-resolver { active-strategy = keep-majority, stable-after = 3s }
            failure-detector { heartbeat-interval = 1s, acceptable-heartbeat-pause = 2s }
            jmx.multi-mbeans-in-same-jvm = on
            sharded-daemon-process.keep-alive-interval = 1s
            sharding {
              remember-entities = off
              coordinator-state { write-majority-plus = 0, read-majority-plus = 0 }
              distributed-data.majority-min-cap = 0
            }
          }
          coordinated-shutdown.run-by-jvm-shutdown-hook = off
        }
        """).withFallback(ConfigFactory.load());

    /** Which node runs each daemon instance, by instance id; an instance removes itself when it stops. */
    private static final Map<Integer, Address> RUNNING = new ConcurrentHashMap<>();

    private final List<ActorSystem<Void>> systems = new ArrayList<>();

    /**
     * Stops the nodes one by one, the newest first: nodes that leave together wait on each other's exit (the
     * {@code cluster-exiting} phase times out after 10 s), one that leaves alone is gone in about a second.
     */
    @AfterEach
    void terminateAll()
    {
        for (final ActorSystem<Void> system : systems.reversed())
        {
            system.terminate();
            Await.until(system.address() + " terminated",
                () -> system.getWhenTerminated().toCompletableFuture().isDone(), () -> "running",
                Duration.ofSeconds(15));
        }
        RUNNING.clear();
    }

    /**
     * The timeout only guards against a hang: on two cores shared with other builds (load average 16–24) the first
     * ActorSystem of the JVM took 21–28 s of wall time to load Akka, and the whole test 40–50 s.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void threeNodesFormAClusterRunEveryDaemonAndGoOnWithTwoAfterOneIsDowned()
    {
        long since = System.nanoTime();
        for (int i = 0; i < 3; i++)
        {
            systems.add(ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, CLUSTER));
        }
        since = phase("3 systems created", since);
        final ActorSystem<Void> first = systems.get(0);
        final Address seed = address(first);
        for (final ActorSystem<Void> system : systems)
        {
            assertEquals("akka.cluster.sbr.SplitBrainResolverProvider",
                akka.cluster.Cluster.get(Adapter.toClassic(system)).settings().DowningProviderClassName());
            Cluster.get(system).manager().tell(Join.create(seed));
        }
        final Set<Address> all = systems.stream().map(ClusterStackTest::address).collect(Collectors.toSet());
        for (final ActorSystem<Void> system : systems)
        {
            Await.until(address(system) + " sees all three Up", () -> upMembers(system).equals(all),
                () -> upMembers(system), FORMATION);
        }
        since = phase("all Up after the joins", since);

        systems.forEach(system -> ShardedDaemonProcess.get(system).init(
            Object.class, "xmit-spike-daemon", DAEMONS, ClusterStackTest::daemon));
        final Set<Integer> everyInstance = IntStream.range(0, DAEMONS).boxed().collect(Collectors.toSet());
        Await.until("all " + DAEMONS + " daemon instances running", () -> RUNNING.keySet().equals(everyInstance),
            () -> new TreeMap<>(RUNNING), FORMATION);
        since = phase("all " + DAEMONS + " daemons running", since);

        final ActorSystem<Void> downed = systems.get(2);
        final Address downedAddress = address(downed);
        Cluster.get(first).manager().tell(new Down(downedAddress));
        Await.until(downedAddress + " terminated after it was downed",
            () -> downed.getWhenTerminated().toCompletableFuture().isDone(), () -> "running", TAKE_OVER);
        final Set<Address> survivors = Set.of(address(systems.get(0)), address(systems.get(1)));
        for (final ActorSystem<Void> system : systems.subList(0, 2))
        {
            Await.until(address(system) + " sees the two survivors, and only them", () ->
                upMembers(system).equals(survivors) && allMembers(system).equals(survivors),
                () -> allMembers(system), TAKE_OVER);
        }
        since = phase("the downed node terminated and removed", since);
        Await.until("all " + DAEMONS + " daemon instances running on the survivors",
            () -> RUNNING.keySet().equals(everyInstance) && survivors.containsAll(RUNNING.values()),
            () -> new TreeMap<>(RUNNING), TAKE_OVER);
        phase("its daemons running on the survivors", since);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aUdpRingDeliversInOrderAndItsReceiveHookWakesTheConsumer() throws Exception
    {
        final RingsConfig ringsConfig = RingsConfig.defaults().withMaxFrameLength(1514).withIpcTermLength(64 * 1024);
        final ExecutorService consumer = Executors.newSingleThreadExecutor();
        try (NetworkRings rings = NetworkRings.launch("cluster-stack", ringsConfig,
            DataPlaneConfig.forFrames(ringsConfig)))
        {
            final AtomicLong received = new AtomicLong();
            final AtomicLong outOfOrder = new AtomicLong();
            final PacketHandler inOrder = (header, buffer, offset, length) ->
            {
                if (buffer.getLong(offset) != received.getAndIncrement())
                {
                    outOfOrder.incrementAndGet();
                }
            };
            // The consumer's only Polls are the ones its doorbell sends: from the hook, or its own next one.
            final RingDutyCycle[] cycle = new RingDutyCycle[1];
            final RingDoorbell doorbell = new RingDoorbell(() -> consumer.execute(() -> cycle[0].onPoll()));
            final PacketSubscription subscription = rings.addSubscription("127.0.0.1:0", UDP_STREAM, doorbell);
            cycle[0] = new RingDutyCycle(doorbell, () -> subscription.poll(inOrder, 64), 0);
            Await.until("the subscription's port", () -> null != subscription.localEndpoint(), () -> "unbound");
            final PacketPublication publication = rings.addPublication(subscription.localEndpoint(), UDP_STREAM);
            Await.until("the publication connected", publication::isConnected, () -> publication);

            final UnsafeBuffer frame = new UnsafeBuffer(new byte[UDP_FRAME_LENGTH]);
            final long start = System.nanoTime();
            for (long sequence = 0; sequence < UDP_FRAMES; sequence++)
            {
                frame.putLong(0, sequence);
                Await.until("frame " + sequence + " accepted",
                    () -> publication.send(0, 0, 0, 0, 0, 0, 0, frame, 0, UDP_FRAME_LENGTH) > 0,
                    () -> "not accepted");
            }
            Await.exactly("frames received", UDP_FRAMES, received::get);
            final long elapsedNs = System.nanoTime() - start;
            assertEquals(0, outOfOrder.get(), "frames out of order");
            assertTrue(rings.hookWakeUps() > 0, "the receive hook never woke the consumer");
            System.out.printf("udp ring: %,d x %d B frames in %d ms, %,d wake-ups from the receive hook%n",
                UDP_FRAMES, UDP_FRAME_LENGTH, TimeUnit.NANOSECONDS.toMillis(elapsedNs), rings.hookWakeUps());
        }
        finally
        {
            consumer.shutdownNow();
        }
    }

    /** Prints how long a phase took (for docs/cluster.md's timings) and returns its end. */
    private static long phase(final String what, final long sinceNs)
    {
        final long now = System.nanoTime();
        System.out.printf("cluster stack: %s in %d ms%n", what, TimeUnit.NANOSECONDS.toMillis(now - sinceNs));
        return now;
    }

    private static Behavior<Object> daemon(final int id)
    {
        return Behaviors.setup(context ->
        {
            final Address node = address(context.getSystem());
            RUNNING.put(id, node);
            return Behaviors.receive(Object.class)
                .onSignal(PostStop.class, stop ->
                {
                    RUNNING.remove(id, node);
                    return Behaviors.same();
                })
                .build();
        });
    }

    private static Address address(final ActorSystem<?> system)
    {
        return Cluster.get(system).selfMember().address();
    }

    private static Set<Address> upMembers(final ActorSystem<?> system)
    {
        return members(system).stream().filter(member -> MemberStatus.up().equals(member.status()))
            .map(Member::address).collect(Collectors.toSet());
    }

    private static Set<Address> allMembers(final ActorSystem<?> system)
    {
        return members(system).stream().map(Member::address).collect(Collectors.toSet());
    }

    private static List<Member> members(final ActorSystem<?> system)
    {
        return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false).toList();
    }
}
