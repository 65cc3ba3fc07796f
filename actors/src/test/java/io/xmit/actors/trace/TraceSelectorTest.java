package io.xmit.actors.trace;

import com.typesafe.config.ConfigFactory;
import io.xmit.actors.PipelineConfig;
import io.xmit.pipeline.flow.FlowKey;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceSelectorTest
{
    private static FlowKey flow(final String text)
    {
        return FlowKey.parse(text);
    }

    @Test
    void aFlowFilterMatchesEitherDirectionWithWildcards()
    {
        final FlowFilter filter = FlowFilter.parse("udp:*:*-10.0.0.2:11211");
        assertTrue(filter.matches(flow("udp:10.0.0.1:5000-10.0.0.2:11211")));
        assertTrue(filter.matches(flow("udp:10.0.0.2:11211-10.0.0.1:5000")), "the reply");
        assertFalse(filter.matches(flow("udp:10.0.0.1:5000-10.0.0.2:11212")));
        assertFalse(filter.matches(flow("udp:10.0.0.1:5000-10.0.0.3:11211")));
        assertFalse(filter.matches(flow("tcp:10.0.0.1:5000-10.0.0.2:11211")));
        assertTrue(FlowFilter.parse("*:*:*-*:*").matches(flow("tcp:10.0.0.1:1-10.0.0.2:2")));
        final FlowFilter v6 = FlowFilter.parse("udp:[fd00::1]:*-*:7");
        assertTrue(v6.matches(flow("udp:[fd00::1]:9-[fd00::2]:7")));
        assertFalse(v6.matches(flow("udp:10.0.0.1:9-10.0.0.2:7")), "an IPv4 flow never matches an IPv6 address");
    }

    @Test
    void badFiltersAreRefusedNamingThePart()
    {
        assertEquals("trace flow 'icmp:*:*-*:*': protocol 'icmp' is not udp, tcp or *",
            assertThrows(IllegalArgumentException.class, () -> FlowFilter.parse("icmp:*:*-*:*")).getMessage());
        assertEquals("trace flow 'udp:*:*-10.0.0.2:99999': port '99999' is not * or 0..65535",
            assertThrows(IllegalArgumentException.class, () -> FlowFilter.parse("udp:*:*-10.0.0.2:99999"))
                .getMessage());
        assertEquals("trace flow 'udp:host:*-*:*': 'host' is not * or a literal IP address",
            assertThrows(IllegalArgumentException.class, () -> FlowFilter.parse("udp:host:*-*:*")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> FlowFilter.parse("udp:10.0.0.1:1"));
    }

    @Test
    void selectorsParseAndPrintTheirTerms()
    {
        assertEquals(TraceSelector.OFF, TraceSelector.parse(""));
        assertEquals(TraceSelector.OFF, TraceSelector.parse("off"));
        assertFalse(TraceSelector.OFF.active());
        final TraceSelector both = TraceSelector.parse("sample=1000,flow=udp:*:*-10.0.0.2:11211,socket=7");
        assertEquals(1000, both.sample());
        assertEquals(7, both.socket());
        assertEquals("sample=1000,flow=udp:*:*-10.0.0.2:11211,socket=7", both.toString());
        assertEquals(both, TraceSelector.parse(both.toString()));
        assertEquals(1, TraceSelector.parse("flow=udp:*:*-*:7").every(), "a filter alone traces every match");
        assertThrows(IllegalArgumentException.class, () -> TraceSelector.parse("sample=-1"));
        assertThrows(IllegalArgumentException.class, () -> TraceSelector.parse("every=3"));
    }

    @Test
    void aPointSamplesOneInNOfTheMatchingPackets()
    {
        final TraceSelector selector = TraceSelector.parse("sample=3,flow=udp:*:*-*:7");
        final FlowKey match = flow("udp:10.0.0.1:5-10.0.0.2:7");
        final FlowKey other = flow("udp:10.0.0.1:5-10.0.0.2:8");
        int selected = 0;
        int countdown = 0;
        for (int i = 0; i < 30; i++)
        {
            final FlowKey key = i % 2 == 0 ? match : other;
            if (selector.matches(key, 1) && --countdown <= 0)
            {
                countdown = selector.every();
                selected++;
            }
        }
        assertEquals(5, selected, "15 matching packets, one in 3");
    }

    @Test
    void thePipelineConfigurationReadsXmitTrace()
    {
        final PipelineConfig config = PipelineConfig.fromConfig(ConfigFactory.parseString(
            "xmit.trace { sample = 100, flow = \"udp:*:*-10.0.0.2:11211\", file = out.pcapng, ring-size = 4MiB }"));
        assertEquals(new TraceConfig(TraceSelector.parse("sample=100,flow=udp:*:*-10.0.0.2:11211"), "out.pcapng",
            4 << 20, 128), config.trace());
        assertEquals(TraceConfig.OFF, PipelineConfig.fromConfig(ConfigFactory.empty()).trace());
        assertEquals("xmit.trace.flow: trace flow 'udp:x': expected src:sport-dst:dport", assertThrows(
            IllegalArgumentException.class, () -> PipelineConfig.fromConfig(ConfigFactory.parseString(
                "xmit.trace.flow = \"udp:x\""))).getMessage());
        assertEquals("xmit.trace.sampel = 3 is not a known key; xmit.trace knows sample, flow, socket, file, " +
            "ring-size, snap-length", assertThrows(IllegalArgumentException.class,
            () -> PipelineConfig.fromConfig(ConfigFactory.parseString("xmit.trace.sampel = 3"))).getMessage());
    }

    @Test
    void theConfigurationChecksTheRingAgainstTheSnapLength()
    {
        assertThrows(IllegalArgumentException.class, () -> TraceConfig.OFF.withRingSize(5000));
        assertEquals("xmit.trace.ring-size = 4096 is too small for events of a 1024-byte snap length (at least " +
            "8544 bytes)", assertThrows(IllegalArgumentException.class,
            () -> new TraceConfig(TraceSelector.OFF, "", 4096, 1024)).getMessage());
    }
}
