package io.xmit.deploy.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.QueueStats;

/**
 * The pipeline built the naive way, as the baseline xmit has to beat: the same stages as xmit (sender, pfifo_fast
 * qdisc, driver TX queue) on the same two "CPU" threads, but one Akka message per packet between every stage and
 * one {@code tx_burst} call per packet. Per CPU {@code i}: sender {@code i} → qdisc actor of TX queue {@code i}
 * → TX queue actor {@code i}, all three on dispatcher {@code cpu-i} (one thread, throughput 100), so a packet
 * never changes threads and the two CPUs share nothing but the device.
 */
public final class NaivePipeline implements TxVariant
{
    public static final String NAME = "akka-naive";
    public static final int CPUS = 2;

    private static final String DEVICE_SPEC = "null:tx=" + CPUS + ",rx=1,ring=1024";
    private static final long START_TIMEOUT_SECONDS = 10;
    private static final AtomicInteger SYSTEMS = new AtomicInteger();

    private final long packetsPerQueue;
    private final String systemName;
    private final AtomicLong[] completed = new AtomicLong[CPUS];
    private final AtomicLong[] drops = new AtomicLong[CPUS];
    private final AtomicLongArray threadIds = new AtomicLongArray(CPUS);
    private final CountDownLatch sendersStarted = new CountDownLatch(CPUS);
    private final QueueStats[] closingStats = new QueueStats[CPUS];
    private NicDevice device;
    private ActorSystem<Void> system;
    private boolean closed;

    /** Sends until closed. */
    public NaivePipeline()
    {
        this(Long.MAX_VALUE);
    }

    /** @param packetsPerQueue each sender stops after this many packets. */
    public NaivePipeline(final long packetsPerQueue)
    {
        if (packetsPerQueue < 1)
        {
            throw new IllegalArgumentException("packetsPerQueue " + packetsPerQueue + " is not >= 1");
        }
        this.packetsPerQueue = packetsPerQueue;
        this.systemName = name() + "-" + SYSTEMS.incrementAndGet();
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            completed[cpu] = new AtomicLong();
            drops[cpu] = new AtomicLong();
        }
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * Opens the device and the ActorSystem, and returns once both senders run (their dispatcher threads known).
     *
     * @throws IllegalStateException if already started, or if the senders did not start within 10 s.
     */
    @Override
    public void start()
    {
        if (null != device)
        {
            throw new IllegalStateException(systemName + " was already started");
        }
        device = NicDevice.open(DEVICE_SPEC);
        system = ActorSystem.create(guardian(device.port(0)), systemName, config());
        try
        {
            if (!sendersStarted.await(START_TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                close();
                throw new IllegalStateException(systemName + ": senders did not start within " +
                    START_TIMEOUT_SECONDS + " s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException(systemName + ": interrupted while starting", ex);
        }
    }

    @Override
    public Result runFor(final long nanos)
    {
        final long[] ids = new long[CPUS];
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            ids[cpu] = threadIds.get(cpu);
        }
        return WindowMeter.measure(this::delivered, ids, nanos);
    }

    /** Completions the TX queue actors have counted, over both queues. */
    @Override
    public long delivered()
    {
        long total = 0;
        for (final AtomicLong count : completed)
        {
            total += count.get();
        }
        return total;
    }

    /** Completions the TX queue actor of {@code queue} has counted. */
    public long delivered(final int queue)
    {
        return completed[queue].get();
    }

    /** Packets pfifo_fast of {@code queue} dropped on enqueue. */
    public long drops(final int queue)
    {
        return drops[queue].get();
    }

    /**
     * The driver's counters for TX queue {@code queue}: live while running, and after {@link #close()} as they
     * were once the actors had stopped, just before the device closed.
     */
    public QueueStats driverStats(final int queue)
    {
        return closed ? closingStats[queue] : device.port(0).stats(queue);
    }

    /** True once the ActorSystem has terminated. */
    public boolean isTerminated()
    {
        return null != system && system.getWhenTerminated().toCompletableFuture().isDone();
    }

    /** The ActorSystem's name, the prefix of all its threads' names. */
    public String systemName()
    {
        return systemName;
    }

    /**
     * Terminates the ActorSystem and waits up to 10 s for it; only then closes the device, which must not close
     * under a running {@code tx_burst}.
     *
     * @throws IllegalStateException if the ActorSystem did not terminate in time; the device is left open.
     */
    @Override
    public void close()
    {
        if (closed || null == device)
        {
            return;
        }
        BenchSystems.terminate(system);
        for (int queue = 0; queue < CPUS; queue++)
        {
            closingStats[queue] = device.port(0).stats(queue);
        }
        closed = true;
        device.close();
    }

    private Behavior<Void> guardian(final NicDriver driver)
    {
        return Behaviors.setup(context ->
        {
            for (int cpu = 0; cpu < CPUS; cpu++)
            {
                final DispatcherSelector dispatcher = DispatcherSelector.fromConfig(dispatcherId(cpu));
                final ActorRef<NaiveTxQueue.Transmitted> txQueue =
                    context.spawn(NaiveTxQueue.create(cpu, driver, completed[cpu]), "tx-queue-" + cpu, dispatcher);
                final ActorRef<NaiveQdisc.Packet> qdisc =
                    context.spawn(NaiveQdisc.create(cpu, driver, txQueue, drops[cpu]), "qdisc-" + cpu, dispatcher);
                final ActorRef<NaiveSender.Continue> sender = context.spawn(
                    announcing(cpu, NaiveSender.create(cpu, qdisc, completed[cpu], packetsPerQueue)), "sender-" + cpu,
                    dispatcher);
                sender.tell(NaiveSender.Continue.INSTANCE);
            }
            return Behaviors.empty();
        });
    }

    /** Records the thread the sender starts on: its dispatcher's only thread, whose allocations are measured. */
    private Behavior<NaiveSender.Continue> announcing(final int cpu, final Behavior<NaiveSender.Continue> sender)
    {
        return Behaviors.setup(context ->
        {
            threadIds.set(cpu, Thread.currentThread().threadId());
            sendersStarted.countDown();
            return sender;
        });
    }

    private static String dispatcherId(final int cpu)
    {
        return "xmit-naive.cpu-" + cpu;
    }

    /**
     * One single-thread pool per CPU; the core thread never times out, so the thread whose allocations are
     * measured stays the same.
     */
    private static Config config()
    {
        final StringBuilder text = new StringBuilder();
        for (int cpu = 0; cpu < CPUS; cpu++)
        {
            text.append(dispatcherId(cpu)).append(" {\n")
                .append("  type = Dispatcher\n")
                .append("  executor = thread-pool-executor\n")
                .append("  thread-pool-executor.fixed-pool-size = 1\n")
                .append("  thread-pool-executor.allow-core-timeout = off\n")
                .append("  throughput = 100\n")
                .append("}\n");
        }
        return ConfigFactory.parseString(text.toString()).withFallback(BenchSystems.quietConfig());
    }
}
