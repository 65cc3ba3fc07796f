package io.xmit.actors.cpu;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.transport.cpu.CpuAffinity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class CpuPinningTest
{
    private record Seen(int cpu, BitSet affinity)
    {
    }

    @Test
    void eachCpuRunsOnItsOwnThreadPinnedToItsCore() throws Exception
    {
        // A fresh system: CPU dispatchers are registered once per actor system, with the first pipeline's cores.
        final ActorTestKit kit = ActorTestKit.create();
        try (Pipeline ignored = Pipeline.start(kit.system(),
            PipelineConfig.builder().name("pinning").cpus(2).cores(List.of(1, 0)).build()))
        {
            for (int cpu = 0; cpu < 2; cpu++)
            {
                final CompletableFuture<Seen> seen = new CompletableFuture<>();
                kit.spawn(Behaviors.setup(context ->
                {
                    seen.complete(new Seen(CpuThread.currentCpu(), CpuAffinity.currentAffinity()));
                    return Behaviors.stopped();
                }), "probe-" + cpu, DispatcherSelector.fromConfig(Cpus.dispatcherId(cpu)));
                final Seen probe = seen.get(10, TimeUnit.SECONDS);
                assertEquals(cpu, probe.cpu(), "CpuThread.currentCpu() on " + Cpus.dispatcherId(cpu));
                final BitSet expected = new BitSet();
                expected.set(1 - cpu);
                assertEquals(expected, probe.affinity(), "CPU " + cpu + " is pinned to core " + (1 - cpu));
            }
            assertEquals(CpuThread.NO_CPU, CpuThread.currentCpu(), "the test's own thread is no xmit CPU");
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread instanceof CpuThread cpuThread && cpuThread.core() >= 0)
                .allMatch(thread -> ((CpuThread)thread).pinning().pinned()), "every pinned CPU reports success");
        }
        finally
        {
            kit.shutdownTestKit();
        }
    }
}
