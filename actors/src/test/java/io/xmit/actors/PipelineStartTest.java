package io.xmit.actors;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import com.typesafe.config.ConfigFactory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code Pipeline.start(system)} takes its configuration from the actor system's, as an Akka extension does: the
 * application's keys under {@code xmit} over the defaults of the actors module's {@code reference.conf}.
 */
class PipelineStartTest
{
    @Test
    void theReferenceHoldsTheLibrarysDefaults()
    {
        assertEquals(PipelineConfig.defaults(), PipelineConfig.fromConfig(ConfigFactory.defaultReference()));
        assertEquals("xmit", ConfigFactory.defaultReference().getString("xmit.name"));
        assertEquals("none", ConfigFactory.defaultReference().getString("xmit.xps.preset"));
    }

    @Test
    void startsFromTheActorSystemsConfiguration()
    {
        final ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString(
            "xmit { name = from-system, cpus = 1, device = \"loop:tx=2,rx=2\", qdisc.bulk-limit = 8 }")
            .withFallback(ConfigFactory.load()));
        try (Pipeline pipeline = Pipeline.start(kit.system()))
        {
            assertEquals(PipelineConfig.builder().name("from-system").cpus(1).device("loop:tx=2,rx=2")
                .bulkLimit(8).build(),
                pipeline.config());
        }
        finally
        {
            kit.shutdownTestKit();
        }
    }

    @Test
    void aKeyTheSystemsConfigurationMisspellsIsNamed()
    {
        final ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("xmit.qdisc.bulk-limt = 8")
            .withFallback(ConfigFactory.load()));
        try
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Pipeline.start(kit.system()));
            assertEquals("xmit.qdisc.bulk-limt = 8 is not a known key; xmit.qdisc knows quota, bulk-limit, " +
                "band-limit, overflow, bypass, sender-bypass", refused.getMessage());
        }
        finally
        {
            kit.shutdownTestKit();
        }
    }
}
