package io.xmit.actors;

import com.typesafe.config.ConfigFactory;
import io.xmit.actors.trace.TraceConfig;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The configuration record: its defaults, its builder, and the checks every configuration passes however it is made
 * (what HOCON may hold is {@code HoconConfigReaderTest}'s).
 */
class PipelineConfigTest
{
    private static final String RING_TERM_RULE =
        "ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was ";

    @Test
    void defaultsAreTheDocumentedOnes()
    {
        final PipelineConfig d = PipelineConfig.defaults();
        assertEquals("xmit", d.name());
        assertEquals("loop:tx=4,rx=4,ring=1024", d.device());
        assertEquals(Runtime.getRuntime().availableProcessors(), d.cpus());
        assertEquals(List.of(), d.cores());
        assertEquals(10, d.throughput());
        assertEquals(64, d.quota());
        assertEquals(64, d.bulkLimit());
        assertEquals(1000, d.bandLimit());
        assertEquals(OverflowPolicy.BACKPRESSURE, d.overflow());
        assertTrue(d.qdiscBypass());
        assertEquals(PipelineConfig.DEFAULT_SENDER_BYPASS, d.qdiscSenderBypass());
        assertEquals(PipelineConfig.DEFAULT_SPIN_POLLS, d.spinPolls());
        assertEquals(25_000, d.spinNanos());
        assertEquals(0, d.socketSpinPolls());
        assertEquals(64, d.rxBurst());
        assertEquals(8 << 20, d.qdiscRingTerm());
        assertEquals(1 << 20, d.socketRingTerm());
        assertEquals(List.of(
            new PortAddress(0x0200_0000_0001L, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1, 0x0200_0000_0002L),
            new PortAddress(0x0200_0000_0002L, 0x0A00_0002, 0xFD00_0000_0000_0000L, 2, 0x0200_0000_0001L)),
            d.ports());
        assertEquals(XpsPreset.NONE, d.xpsPreset());
        assertEquals(List.of(), d.xps());
        assertEquals(Duration.ofSeconds(1), d.txqReselection(), "6.19's txq_reselection_ms");
        assertEquals(Path.of("/dev/shm"), d.countersDir());
        assertEquals(Duration.ofSeconds(5), d.txWatchdogTimeout());
        assertEquals(Duration.ofSeconds(3), d.stopDeadline());
        assertEquals(TraceConfig.OFF, d.trace());
    }

    @Test
    void aBuilderSetsOneFieldAtATimeAndKeepsTheRest()
    {
        final PipelineConfig d = PipelineConfig.defaults();
        assertEquals(d, PipelineConfig.builder().build());
        assertEquals(d, d.toBuilder().build());
        final PipelineConfig config = PipelineConfig.builder()
            .name("edge-1")
            .quota(32)
            .bulkLimit(16)
            .overflow(OverflowPolicy.DROP)
            .txWatchdogTimeout(Duration.ofMillis(1500))
            .txqReselection(Duration.ZERO)
            .build();
        assertEquals("edge-1", config.name());
        assertEquals(32, config.quota());
        assertEquals(16, config.bulkLimit());
        assertEquals(d.bandLimit(), config.bandLimit());
        assertEquals(OverflowPolicy.DROP, config.overflow());
        assertEquals(Duration.ofMillis(1500), config.txWatchdogTimeout());
        assertEquals(Duration.ZERO, config.txqReselection());
        assertEquals(d.stopDeadline(), config.stopDeadline());
        assertEquals(config, config.toBuilder().build());
        assertEquals(64, config.toBuilder().quota(64).build().quota());
        assertEquals(32, config.quota(), "a configuration is immutable; its builder makes a new one");
    }

    @Test
    void aOnePortDeviceHasOnePortThatIsItsOwnPeer()
    {
        assertEquals(List.of(new PortAddress(0x0200_0000_0001L, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1,
            0x0200_0000_0001L)), PipelineConfig.builder().device("null:tx=2").build().ports());
        assertEquals(List.of(PortAddress.defaultForInterface()),
            PipelineConfig.builder().device("afpacket:if=eth9,queues=2").build().ports());
    }

    @Test
    void anotherDeviceKeepsTheAddressesWhileTheBackendStays()
    {
        final PortAddress custom = new PortAddress(0x0200_0000_0009L, 0x0A01_0101, 0, 1, 0x0200_0000_0002L);
        final PipelineConfig config = PipelineConfig.builder()
            .ports(List.of(custom, PortAddress.defaultFor(1, 2)))
            .build();
        assertEquals(config.ports(), config.toBuilder().device("loop:tx=2,rx=2").build().ports());
        assertEquals(1, config.toBuilder().device("null:tx=1").build().ports().size());
        assertEquals(PipelineConfig.defaults().ports(),
            config.toBuilder().device("null").build().toBuilder().device("loop").build().ports());
        assertEquals(List.of(custom), PipelineConfig.builder().ports(List.of(custom)).device("null").build().ports(),
            "addresses set on the builder are kept, in whichever order");
        assertEquals(List.of(custom), PipelineConfig.builder().device("null").ports(List.of(custom)).build().ports());
    }

    @Test
    void anotherCpuCountDropsTheCoresUnlessTheyAreSetToo()
    {
        final PipelineConfig pinned = PipelineConfig.builder().cpus(2).cores(List.of(1, 0)).build();
        assertEquals(List.of(1, 0), pinned.cores());
        assertEquals(List.of(1, 0), pinned.toBuilder().name("other").build().cores());
        assertEquals(List.of(), pinned.toBuilder().cpus(3).build().cores());
        assertEquals(List.of(0, 1, 2), pinned.toBuilder().cores(List.of(0, 1, 2)).cpus(3).build().cores());
    }

    @Test
    void theRecordRefusesWhatFromConfigRefuses()
    {
        final PipelineConfig d = PipelineConfig.defaults();
        assertEquals("xmit.cpus = 0 is not in 1..256", refused(d.toBuilder().cpus(0)));
        assertEquals("xmit.cores has 1 entries for 2 cpus; give one core per CPU or none",
            refused(d.toBuilder().cpus(2).cores(List.of(1))));
        assertEquals("xmit.cores = 8192 is not in 0..8191", refused(d.toBuilder().cpus(1).cores(List.of(8192))));
        assertEquals("xmit.qdisc.overflow must be set (backpressure or drop)", refused(d.toBuilder().overflow(null)));
        assertEquals("xmit.xps.preset must be set (none, cpus or rxqs)", refused(d.toBuilder().xpsPreset(null)));
        assertEquals("xmit.counters.directory must be set", refused(d.toBuilder().countersDir(null)));
        assertEquals("xmit.name = null must be 1 to 64 letters, digits, '.', '_' or '-'",
            refused(d.toBuilder().name(null)));
        assertEquals("xmit.device must be set, e.g. loop:tx=4,rx=4,ring=1024", refused(d.toBuilder().device(null)));
        assertEquals("xmit.rings.socket-term-length = 1000: " + RING_TERM_RULE + "1000",
            refused(d.toBuilder().socketRingTerm(1000)));
        assertEquals("xmit.spin-time = 1000000001 ns is not in 0..1 s",
            refused(d.toBuilder().spinNanos(1_000_000_001)));
        assertEquals("xmit.socket-spin-polls = -1 is not in 0..16777216", refused(d.toBuilder().socketSpinPolls(-1)));
        assertEquals("xmit.stop.deadline = null is not in 0s..1h", refused(d.toBuilder().stopDeadline(null)));
        assertEquals("xmit.ports has 1 entries but device 'loop:tx=4,rx=4,ring=1024' has 2 port(s)",
            refused(d.toBuilder().ports(List.of(PortAddress.defaultFor(0, 1)))));
        assertEquals("xmit.xps.maps[0].cpus: xps_cpus mask '2' for tx-0: bit 1 is beyond 1 CPUs",
            refused(d.toBuilder().cpus(1).xps(List.of(new XpsEntry(0, 0, "2", null)))));
        assertEquals(TraceConfig.OFF, d.toBuilder().trace(null).build().trace(), "no trace configuration is off");
    }

    @Test
    void fromConfigIsTheHoconReaders()
    {
        assertEquals(PipelineConfig.builder().cpus(3).build(),
            PipelineConfig.fromConfig(ConfigFactory.parseString("xmit.cpus = 3")));
    }

    @Test
    void overflowPolicyAndXpsPresetTakeTheirLabelsOnly()
    {
        assertEquals(OverflowPolicy.BACKPRESSURE, OverflowPolicy.of("k", "backpressure"));
        assertEquals(OverflowPolicy.DROP, OverflowPolicy.of("k", "drop"));
        assertEquals("k = 'DROP' is not an overflow policy; use backpressure or drop",
            assertThrows(IllegalArgumentException.class, () -> OverflowPolicy.of("k", "DROP")).getMessage());
        assertEquals("k = 'null' is not an overflow policy; use backpressure or drop",
            assertThrows(IllegalArgumentException.class, () -> OverflowPolicy.of("k", null)).getMessage());
        assertEquals(XpsPreset.NONE, XpsPreset.of("p", "none"));
        assertEquals(XpsPreset.CPUS, XpsPreset.of("p", "cpus"));
        assertEquals(XpsPreset.RXQS, XpsPreset.of("p", "rxqs"));
        assertEquals("p = '' is not an XPS preset; use none, cpus or rxqs",
            assertThrows(IllegalArgumentException.class, () -> XpsPreset.of("p", "")).getMessage());
    }

    private static String refused(final PipelineConfig.Builder builder)
    {
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }
}
