package io.xmit.deploy.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Pipeline;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.flow.Hashing;
import io.xmit.pipeline.flow.Toeplitz;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The rr bench's placement classes: a flow's client port lands it on the RX queues and {@code hash}'s TX queue its
 * class says, checked against the project's own Toeplitz and flow hash and against a running pipeline's TX queue
 * choice per XPS mode; the sub-rounds step every flow through the classes, alternating, each class as often as the
 * others.
 */
class RrPlacementTest
{
    private static final int FLOWS = 8;
    private static final List<FlowHasher> KEYS = List.of(new FlowHasher(0, 0), new FlowHasher(1, 2),
        new FlowHasher(0x0123_4567_89ab_cdefL, 0xfedc_ba98_7654_3210L));

    @Test
    void eachClassPutsTheFlowsRxQueuesAndHashTxQueueOnTheCpuItSays()
    {
        final Toeplitz rss = Toeplitz.withDefaultKey();
        for (final FlowHasher key : KEYS)
        {
            final RrPlacement placement = new RrPlacement(key, RrRound.CPUS, RrRound.QUEUES, RrRound.QUEUES);
            for (final RrPlacement.Placement wanted : RrPlacement.CLASSES)
            {
                final Set<Integer> taken = new HashSet<>();
                for (int f = 0; f < FLOWS; f++)
                {
                    final int cpu = f % RrRound.CPUS;
                    final int serverPort = RrRound.SERVICE_PORT_BASE + f;
                    final int port = placement.clientPort(RrRound.CLIENT_ADDRESS, RrRound.SERVER_ADDRESS, serverPort,
                        cpu, wanted, taken);
                    assertFalse(taken.contains(port), "port " + port + " given twice");
                    taken.add(port);
                    final FlowKey request = flow(RrRound.CLIENT_ADDRESS, port, RrRound.SERVER_ADDRESS, serverPort);
                    final FlowKey reply = flow(RrRound.SERVER_ADDRESS, serverPort, RrRound.CLIENT_ADDRESS, port);
                    final String what = wanted.label() + " flow " + f + " port " + port;
                    assertEquals(wanted.rxNear(), cpu == rxQueue(rss, request) % RrRound.CPUS, "request RX " + what);
                    assertEquals(wanted.rxNear(), cpu == rxQueue(rss, reply) % RrRound.CPUS, "reply RX " + what);
                    final int txq = Hashing.reciprocalScale(key.hash(request), RrRound.QUEUES);
                    assertEquals(txq, Hashing.reciprocalScale(key.hash(reply), RrRound.QUEUES), what);
                    assertEquals(wanted.hashNear(), cpu == txq % RrRound.CPUS, "hash TX " + what);
                }
            }
        }
    }

    /**
     * Per XPS mode, the TX queue a running pipeline picks for the reply (port A, the request's RX queue) and for the
     * request (port B, the reply's RX queue): {@code hash} on the class's hash side, {@code xps-cpus} always on the
     * sockets' CPU, {@code xps-rxqs} on the RX side.
     */
    @Test
    void aRunningPipelinePicksTheTxQueuesTheClassSaysUnderEachXpsMode()
    {
        final Toeplitz rss = Toeplitz.withDefaultKey();
        for (final RrVariant.Setting mode : RrBench.XPS_MODES)
        {
            final RrVariant variant = RrVariant.of(List.of(mode, RrBench.POLLING.getFirst()));
            final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "rr-placement-" + mode.label(),
                BenchSystems.quietConfig());
            try (Pipeline pipeline = Pipeline.start(system, RrRound.config("rr-placement-" + mode.label(), variant)))
            {
                final RrPlacement placement = RrRound.placement(pipeline);
                final Set<Integer> taken = new HashSet<>();
                for (int f = 0; f < FLOWS; f++)
                {
                    final RrPlacement.Placement wanted = RrPlacement.classOf(f, 0);
                    final int cpu = f % RrRound.CPUS;
                    final int serverPort = RrRound.SERVICE_PORT_BASE + f;
                    final int port = placement.clientPort(RrRound.CLIENT_ADDRESS, RrRound.SERVER_ADDRESS, serverPort,
                        cpu, wanted, taken);
                    taken.add(port);
                    final FlowKey request = flow(RrRound.CLIENT_ADDRESS, port, RrRound.SERVER_ADDRESS, serverPort);
                    final FlowKey reply = flow(RrRound.SERVER_ADDRESS, serverPort, RrRound.CLIENT_ADDRESS, port);
                    final boolean near = switch (mode.label())
                    {
                        case "hash" -> wanted.hashNear();
                        case "xps-cpus" -> true;
                        default -> wanted.rxNear();
                    };
                    final String what = mode.label() + " " + wanted.label() + " flow " + f;
                    assertEquals(near, cpu == pipeline.explain(0, reply, cpu, rxQueue(rss, request)).txQueue() %
                        RrRound.CPUS, "reply " + what);
                    assertEquals(near, cpu == pipeline.explain(1, request, cpu, rxQueue(rss, reply)).txQueue() %
                        RrRound.CPUS, "request " + what);
                }
            }
            finally
            {
                BenchSystems.terminate(system);
            }
        }
    }

    @Test
    void aRoundHasTheSubRoundsThatMeasureEveryClassEqually()
    {
        assertEquals(List.of(4, 2, 4, 1, 4, 2, 4, 1), List.of(RrPlacement.subRounds(1), RrPlacement.subRounds(2),
            RrPlacement.subRounds(3), RrPlacement.subRounds(4), RrPlacement.subRounds(5), RrPlacement.subRounds(6),
            RrPlacement.subRounds(7), RrPlacement.subRounds(16)));
        for (int flows = 1; flows <= 9; flows++)
        {
            for (int round = 0; round < 3; round++)
            {
                final Map<RrPlacement.Placement, Integer> runs = new HashMap<>();
                for (int subRound = 0; subRound < RrPlacement.subRounds(flows); subRound++)
                {
                    for (int f = 0; f < flows; f++)
                    {
                        runs.merge(RrPlacement.classOf(f, RrPlacement.shift(flows, round, subRound)), 1, Integer::sum);
                    }
                }
                assertEquals(Set.copyOf(RrPlacement.CLASSES), runs.keySet(), flows + " flows, round " + round);
                assertEquals(1, Set.copyOf(runs.values()).size(), flows + " flows, round " + round + ": " + runs);
            }
        }
    }

    /**
     * One flow goes through every class in each round, its RX side alternating from one sub-round to the next, across
     * rounds too; with 16 flows (one sub-round) each flow's class does the same from round to round.
     */
    @Test
    void aFlowsClassAlternatesFromOneRunToTheNext()
    {
        for (final int flows : List.of(1, 16))
        {
            final List<RrPlacement.Placement> classes = new ArrayList<>();
            for (int round = 0; round < 8 / RrPlacement.subRounds(flows); round++)
            {
                for (int subRound = 0; subRound < RrPlacement.subRounds(flows); subRound++)
                {
                    classes.add(RrPlacement.classOf(flows - 1, RrPlacement.shift(flows, round, subRound)));
                }
            }
            for (int i = 1; i < classes.size(); i++)
            {
                assertNotEquals(classes.get(i - 1).rxNear(), classes.get(i).rxNear(), flows + " flows, run " + i);
            }
            assertEquals(Set.copyOf(RrPlacement.CLASSES), Set.copyOf(classes.subList(0, 4)), flows + " flows");
        }
        final List<RrPlacement.Placement> classes = new ArrayList<>();
        for (int subRound = 0; subRound < RrPlacement.subRounds(1); subRound++)
        {
            classes.add(RrPlacement.classOf(0, RrPlacement.shift(1, 0, subRound)));
        }
        assertEquals(List.of("rx-near+hash-near", "rx-far+hash-far", "rx-near+hash-far", "rx-far+hash-near"),
            classes.stream().map(RrPlacement.Placement::label).toList());
    }

    /** The device's RX queue: the Toeplitz hash through the default indirection table, entry i being i mod queues. */
    private static int rxQueue(final Toeplitz rss, final FlowKey flow)
    {
        return (rss.hash(flow, true) & (RrPlacement.RETA_SIZE - 1)) % RrRound.QUEUES;
    }

    private static FlowKey flow(final String src, final int srcPort, final String dst, final int dstPort)
    {
        return FlowKey.parse("udp:" + src + ":" + srcPort + "-" + dst + ":" + dstPort);
    }
}
