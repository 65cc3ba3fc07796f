package io.xmit.actors.config;

import com.typesafe.config.ConfigFactory;
import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.actors.XpsEntry;
import io.xmit.actors.XpsPreset;
import io.xmit.actors.trace.TraceConfig;
import io.xmit.actors.trace.TraceSelector;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every key under {@code xmit { … }}: what a missing one defaults to, and the message of each bad value (it names the
 * key and the value).
 */
class HoconConfigReaderTest
{
    private static final String RING_TERM_RULE =
        "ipcTermLength must be a power of two from 65536 (64 KiB) to 1073741824 (1 GiB), was ";

    @Test
    void noXmitSectionIsTheDefaults()
    {
        assertEquals(PipelineConfig.defaults(), HoconConfigReader.fromConfig(ConfigFactory.empty()));
        assertEquals(PipelineConfig.defaults(), parse("other { cpus = 3 }"));
        assertEquals(PipelineConfig.defaults(), parse("xmit { }"));
    }

    @Test
    void everyKeyIsRead()
    {
        final PipelineConfig config = parse("""
            xmit {
              name = edge-1
              device = "loop:tx=8,rx=2,ring=512,frame=2048"
              cpus = 2
              cores = [3, 5]
              dispatcher-throughput = 7
              qdisc { quota = 32, bulk-limit = 16, band-limit = 500, overflow = drop, bypass = off,
                sender-bypass = on }
              spin-polls = 0
              spin-time = 1ms
              socket-spin-polls = 8
              rx.burst = 32
              rings { qdisc-term-length = 2MiB, socket-term-length = 128K }
              ports = [
                { mac = "0a:0b:0c:0d:0E:0F", ipv4 = "192.168.1.10", ipv6 = "2001:db8::10",
                  peer-mac = "02:aa:bb:cc:dd:ee" },
                { prefix = 16, gateway = "10.0.255.254", arp = on, icmp = true }
              ]
              xps {
                preset = rxqs
                maps = [ { port = 1, txq = 7, cpus = "3" }, { port = 0, txq = 0, rxqs = "3" } ]
              }
              txq-reselection = 200ms
              counters.directory = "/tmp/xmit-counters"
              tx-watchdog.timeout = 250ms
              stop.deadline = 0s
              trace { sample = 10, flow = "udp:*:*-10.0.0.1:53", socket = 4, file = t.pcapng, ring-size = 2MiB,
                snap-length = 256 }
            }
            """);
        assertEquals("edge-1", config.name());
        assertEquals("loop:tx=8,rx=2,ring=512,frame=2048", config.device());
        assertEquals(8, config.deviceSpec().txQueues());
        assertEquals(2, config.cpus());
        assertEquals(List.of(3, 5), config.cores());
        assertEquals(7, config.throughput());
        assertEquals(32, config.quota());
        assertEquals(16, config.bulkLimit());
        assertEquals(500, config.bandLimit());
        assertEquals(OverflowPolicy.DROP, config.overflow());
        assertFalse(config.qdiscBypass());
        assertTrue(config.qdiscSenderBypass());
        assertEquals(0, config.spinPolls());
        assertEquals(1_000_000, config.spinNanos());
        assertEquals(8, config.socketSpinPolls());
        assertEquals(32, config.rxBurst());
        assertEquals(2 << 20, config.qdiscRingTerm());
        assertEquals(128 << 10, config.socketRingTerm());
        final PortAddress one = PortAddress.defaultFor(1, 2);
        assertEquals(List.of(
            new PortAddress(0x0A0B_0C0D_0E0FL, 0xC0A8_010A, 0x2001_0DB8_0000_0000L, 0x10, 0x02AA_BBCC_DDEEL),
            new PortAddress(one.mac(), one.ipv4(), one.ipv6Hi(), one.ipv6Lo(), one.peerMac(), 16, 0x0A00_FFFE, true,
                true)), config.ports());
        assertEquals(XpsPreset.RXQS, config.xpsPreset());
        assertEquals(List.of(new XpsEntry(1, 7, "3", null), new XpsEntry(0, 0, null, "3")), config.xps());
        assertEquals(Duration.ofMillis(200), config.txqReselection());
        assertEquals(Path.of("/tmp/xmit-counters"), config.countersDir());
        assertEquals(Duration.ofMillis(250), config.txWatchdogTimeout());
        assertEquals(Duration.ZERO, config.stopDeadline());
        assertEquals(new TraceConfig(TraceSelector.parse("sample=10,flow=udp:*:*-10.0.0.1:53,socket=4"), "t.pcapng",
            2 << 20, 256), config.trace());
    }

    @Test
    void portAddressesMayBeGivenOneByOne()
    {
        final PipelineConfig config = parse("""
            xmit.ports = [ { ipv6 = "fd00::a:b" }, { ipv4 = "10.9.8.7", peer-mac = "ff:ff:ff:ff:ff:ff" } ]
            """);
        final PortAddress zero = PortAddress.defaultFor(0, 2);
        final PortAddress one = PortAddress.defaultFor(1, 2);
        assertEquals(new PortAddress(zero.mac(), zero.ipv4(), 0xFD00_0000_0000_0000L, 0x000A_000BL, zero.peerMac()),
            config.ports().get(0));
        assertEquals(new PortAddress(one.mac(), 0x0A09_0807, one.ipv6Hi(), one.ipv6Lo(), 0xFFFF_FFFF_FFFFL),
            config.ports().get(1));
        assertEquals(PortAddress.LINK_MAC, parse("""
            xmit { device = "afpacket:if=eth9", ports = [ { mac = link } ] }
            """).ports().get(0).mac());
    }

    @Test
    void aOnePortDeviceHasOnePortThatIsItsOwnPeer()
    {
        final PipelineConfig config = parse("xmit.device = \"null:tx=2\"");
        assertEquals(List.of(new PortAddress(0x0200_0000_0001L, 0x0A00_0001, 0xFD00_0000_0000_0000L, 1,
            0x0200_0000_0001L)), config.ports());
        assertEquals("xmit.ports has 2 entries but device 'null:tx=2' has 1 port(s)",
            refused("xmit { device = \"null:tx=2\", ports = [ {}, {} ] }"));
    }

    @Test
    void outOfRangeNumbersNameTheKeyAndTheValue()
    {
        assertEquals("xmit.cpus = 0 is not in 1..256", refused("xmit.cpus = 0"));
        assertEquals("xmit.cpus = 257 is not in 1..256", refused("xmit.cpus = 257"));
        assertEquals("xmit.cores = -1 is not in 0..8191", refused("xmit { cpus = 2, cores = [1, -1] }"));
        assertEquals("xmit.cores[1] = \"x\" is not a whole number (an int)", refused("xmit { cpus = 2, cores = [1, x] }"));
        assertEquals("xmit.cores = 3 is not a list of cores, e.g. [2, 3]", refused("xmit.cores = 3"));
        assertEquals("xmit.cores has 1 entries for 2 cpus; give one core per CPU or none",
            refused("xmit { cpus = 2, cores = [1] }"));
        assertEquals("xmit.dispatcher-throughput = 0 is not in 1..10000", refused("xmit.dispatcher-throughput = 0"));
        assertEquals("xmit.qdisc.quota = 0 is not in 1..65536", refused("xmit.qdisc.quota = 0"));
        assertEquals("xmit.qdisc.bulk-limit = 1025 is not in 1..1024", refused("xmit.qdisc.bulk-limit = 1025"));
        assertEquals("xmit.qdisc.band-limit = 0 is not in 1..1048576", refused("xmit.qdisc.band-limit = 0"));
        assertEquals("xmit.spin-polls = -1 is not in 0..16777216", refused("xmit.spin-polls = -1"));
        assertEquals("xmit.spin-time = 2000000000 ns is not in 0..1 s", refused("xmit.spin-time = 2s"));
        assertEquals("xmit.rx.burst = 1025 is not in 1..1024", refused("xmit.rx.burst = 1025"));
        assertEquals("xmit.rx.burst = 257 is not in 1..256",
            refused("xmit { device = \"loop:ring=256\", rx.burst = 257 }"));
        assertEquals("xmit.ports[1].prefix = 33 is not in 0..32", refused("xmit.ports = [ { }, { prefix = 33 } ]"));
    }

    @Test
    void aNumberThatIsNotAWholeIntIsRefusedNamingTheKeyAndTheValue()
    {
        assertEquals("xmit.cpus = 2.5 is not a whole number (an int)", refused("xmit.cpus = 2.5"));
        assertEquals("xmit.cpus = \"four\" is not a whole number (an int)", refused("xmit.cpus = four"));
        assertEquals("xmit.qdisc.quota = 3000000000 is not a whole number (an int)",
            refused("xmit.qdisc.quota = 3000000000"));
        assertEquals("xmit.rx.burst = [1] is not a whole number (an int)", refused("xmit.rx.burst = [1]"));
        assertEquals(3, parse("xmit.cpus = \"3\"").cpus(), "a quoted number is still a number in HOCON");
    }

    @Test
    void anXmitThatIsNotAnObjectIsAnIllegalArgument()
    {
        assertEquals("xmit = 3 is not an object; the configuration goes in xmit { … }", refused("xmit = 3"));
        assertEquals(PipelineConfig.defaults(), parse("xmit = null"));
    }

    @Test
    void ringTermsNameTheKeyAndTheRule()
    {
        assertEquals("xmit.rings.qdisc-term-length = 100000: " + RING_TERM_RULE + "100000",
            refused("xmit.rings.qdisc-term-length = 100000"));
        assertEquals("xmit.rings.socket-term-length = 32768: " + RING_TERM_RULE + "32768",
            refused("xmit.rings.socket-term-length = 32K"));
        assertEquals("xmit.rings.socket-term-length = 2147483648 bytes is more than 1 GiB",
            refused("xmit.rings.socket-term-length = 2GiB"));
        assertEquals("xmit.rings.qdisc-term-length = 65536: maxFrameLength 16384 needs an IPC MTU of 16448 bytes, " +
            "more than one eighth of ipcTermLength 65536; use a longer term or a shorter maxFrameLength (at most 8128)",
            refused("xmit { device = \"loop:frame=16384\", rings.qdisc-term-length = 64K }"));
    }

    @Test
    void wordsAndNamesNameTheKeyAndTheValue()
    {
        assertEquals("xmit.qdisc.overflow = 'block' is not an overflow policy; use backpressure or drop",
            refused("xmit.qdisc.overflow = block"));
        assertEquals("xmit.qdisc.bypass = \"yes\" is not on or off", refused("xmit.qdisc.bypass = yes"));
        assertEquals("xmit.xps.preset = 'all' is not an XPS preset; use none, cpus or rxqs",
            refused("xmit.xps.preset = all"));
        assertEquals("xmit.name = 'has space' must be 1 to 64 letters, digits, '.', '_' or '-'",
            refused("xmit.name = \"has space\""));
        assertEquals("xmit.device: device spec 'bogus:tx=1': backend 'bogus' is unknown; known backends: null, loop, afpacket",
            refused("xmit.device = \"bogus:tx=1\""));
        assertEquals("xmit.ports[0].arp = \"maybe\" is not on or off", refused("xmit.ports = [ { arp = maybe }, { } ]"));
    }

    @Test
    void portAddressesNameTheEntryAndTheValue()
    {
        assertEquals("xmit.ports has 1 entries but device 'loop:tx=4,rx=4,ring=1024' has 2 port(s)",
            refused("xmit.ports = [ { } ]"));
        assertEquals("xmit.ports has 3 entries but device 'loop:tx=4,rx=4,ring=1024' has 2 port(s)",
            refused("xmit.ports = [ { }, { }, { } ]"));
        assertEquals("xmit.ports[0].mac = '02:00:00:00:00' is not a MAC address like 02:00:00:00:00:01",
            refused("xmit.ports = [ { mac = \"02:00:00:00:00\" }, { } ]"));
        assertEquals("xmit.ports[1].mac = '02:00:00:00:00:zz' is not a MAC address like 02:00:00:00:00:01",
            refused("xmit.ports = [ { }, { mac = \"02:00:00:00:00:zz\" } ]"));
        assertEquals("xmit.ports[0].mac = '02:00:00:00:00:001' is not a MAC address like 02:00:00:00:00:01",
            refused("xmit.ports = [ { mac = \"02:00:00:00:00:001\" }, { } ]"));
        assertEquals("xmit.ports[1].peer-mac = 'router' is not a MAC address like 02:00:00:00:00:01",
            refused("xmit.ports = [ { }, { peer-mac = router } ]"));
        assertEquals("xmit.ports[0].ipv4 = '10.0.0.256' is not an IPv4 address literal",
            refused("xmit.ports = [ { ipv4 = \"10.0.0.256\" }, { } ]"));
        assertEquals("xmit.ports[1].ipv4 = 'fd00::1' is not an IPv4 address literal",
            refused("xmit.ports = [ { }, { ipv4 = \"fd00::1\" } ]"));
        assertEquals("xmit.ports[0].ipv6 = '10.0.0.1' is not an IPv6 address literal",
            refused("xmit.ports = [ { ipv6 = \"10.0.0.1\" }, { } ]"));
        assertEquals("xmit.ports[0].ipv6 = 'fd00::zz::1' is not an IPv6 address literal",
            refused("xmit.ports = [ { ipv6 = \"fd00::zz::1\" }, { } ]"));
        assertEquals("xmit.ports[1].gateway = 'router' is not an IPv4 address literal",
            refused("xmit.ports = [ { }, { gateway = router } ]"));
    }

    @Test
    void xpsMapEntriesMustNameAQueueOfTheDevice()
    {
        assertEquals("xmit.xps.maps[0].port = 2 is not in 0..1",
            refused("xmit.xps.maps = [ { port = 2, txq = 0, cpus = \"1\" } ]"));
        assertEquals("xmit.xps.maps[1].txq = 4 is not in 0..3",
            refused("xmit.xps.maps = [ { port = 0, txq = 0 }, { port = 0, txq = 4, cpus = \"1\" } ]"));
        assertEquals("xmit.xps.maps[0].txq = -1 is not in 0..1",
            refused("xmit { device = \"loop:tx=2\", xps.maps = [ { port = 1, txq = -1, rxqs = \"1\" } ] }"));
        assertEquals("xmit.xps.maps[0] = {\"port\":1} needs a port and a txq, e.g. { port = 0, txq = 1, cpus = \"2\" }",
            refused("xmit.xps.maps = [ { port = 1 } ]"));
        assertEquals("xmit.xps.maps[0] = 3 is not an object {port, txq, cpus, rxqs}", refused("xmit.xps.maps = [ 3 ]"));
        assertEquals("xmit.xps.maps = {} is not a list of objects {port, txq, cpus, rxqs}",
            refused("xmit.xps.maps = {}"));
        assertEquals(List.of(new XpsEntry(1, 3, null, null)),
            parse("xmit.xps.maps = [ { port = 1, txq = 3 } ]").xps());
    }

    @Test
    void xpsMasksAreCheckedAgainstTheCpusAndRxQueuesBeforeAnythingStarts()
    {
        assertEquals("xmit.xps.maps[0].cpus: xps_cpus mask 'zz' for tx-1: 'z' in word 'zz' is not a hex digit",
            refused("xmit { cpus = 2, xps.maps = [ { port = 0, txq = 1, cpus = zz } ] }"));
        assertEquals("xmit.xps.maps[0].cpus: xps_cpus mask '4' for tx-1: bit 2 is beyond 2 CPUs",
            refused("xmit { cpus = 2, xps.maps = [ { port = 0, txq = 1, cpus = \"4\" } ] }"));
        assertEquals("xmit.xps.maps[0].rxqs: xps_rxqs mask '10' for tx-0: bit 4 is beyond 4 RX queues",
            refused("xmit.xps.maps = [ { port = 1, txq = 0, rxqs = \"10\" } ]"));
        assertEquals(List.of(new XpsEntry(0, 3, "2", "8")),
            parse("xmit { cpus = 2, xps.maps = [ { port = 0, txq = 3, cpus = \"2\", rxqs = \"8\" } ] }").xps());
    }

    @Test
    void anUnknownKeyIsRefusedNamingItAndItsNeighbours()
    {
        assertEquals("xmit.cpu = 2 is not a known key; xmit knows name, device, cpus, cores, dispatcher-throughput, " +
            "qdisc, spin-polls, spin-time, socket-spin-polls, busy-poll, busy-poll-budget, prefer-busy-poll, rx, rings, " +
            "ports, xps, txq-reselection, counters, tx-watchdog, stop, trace",
            refused("xmit.cpu = 2"));
        assertEquals("xmit.qdisc.quotum = 32 is not a known key; xmit.qdisc knows quota, bulk-limit, band-limit, " +
            "overflow, bypass, sender-bypass", refused("xmit.qdisc.quotum = 32"));
        assertEquals("xmit.qdisc = 3 is not an object; xmit.qdisc holds quota, bulk-limit, band-limit, overflow, " +
            "bypass, sender-bypass", refused("xmit.qdisc = 3"));
        assertEquals("xmit.ports[1].ip = \"10.0.0.9\" is not a known key; xmit.ports[1] knows mac, ipv4, ipv6, " +
            "peer-mac, prefix, gateway, arp, icmp", refused("xmit.ports = [ { }, { ip = \"10.0.0.9\" } ]"));
        assertEquals("xmit.xps.maps[0].cpu = \"1\" is not a known key; xmit.xps.maps[0] knows port, txq, cpus, rxqs",
            refused("xmit.xps.maps = [ { port = 0, txq = 0, cpu = \"1\" } ]"));
        assertEquals("xmit.ports = 1 is not a list of objects {mac, ipv4, ipv6, peer-mac, prefix, gateway, arp, icmp}",
            refused("xmit.ports = 1"));
    }

    @Test
    void keysReadElsewhereAndCpuDispatchersAreKnown()
    {
        // An application may define xmit.cpu-i dispatchers beside the pipeline's keys.
        assertEquals(PipelineConfig.builder().txWatchdogTimeout(Duration.ofMillis(1500))
            .stopDeadline(Duration.ofSeconds(2)).build(), parse("""
            xmit {
              tx-watchdog.timeout = 1500ms
              stop.deadline = 2s
              cpu-0 { executor = "io.xmit.actors.cpu.CpuExecutorConfigurator", xmit-cpu = 0, xmit-core = -1 }
            }
            """));
        assertEquals("xmit.tx-watchdog.timeout = 0s is not in 1ms..1h", refused("xmit.tx-watchdog.timeout = 0s"));
        assertEquals("xmit.stop.deadline = -1s is not in 0s..1h", refused("xmit.stop.deadline = -1s"));
        assertEquals("xmit.txq-reselection = -1ms is not in 0s..1h", refused("xmit.txq-reselection = -1ms"));
        assertEquals(Duration.ZERO, parse("xmit.txq-reselection = 0").txqReselection());
        assertEquals(PipelineConfig.defaults(), parse("other.cpux = 1, xmit { }"), "only xmit is checked");
    }

    @Test
    void typesAreCheckedWithTheKeyAndTheValue()
    {
        assertEquals("xmit.spin-time = \"soon\" is not a duration, e.g. 25us, 10ms or 5s",
            refused("xmit.spin-time = soon"));
        assertEquals(10_000, parse("xmit.spin-time = 10us").spinNanos());
        assertEquals("xmit.rings.qdisc-term-length = \"big\" is not a size in bytes, e.g. 65536, 128K or 8MiB",
            refused("xmit.rings.qdisc-term-length = big"));
        assertEquals("xmit.device = [\"loop\"] is not a string", refused("xmit.device = [loop]"));
        assertEquals("xmit.ports[0].mac = {} is not a string", refused("xmit.ports = [ { mac = {} }, { } ]"));
    }

    @Test
    void traceKeysNameTheKeyAndTheValue()
    {
        assertEquals("xmit.trace.sample = -1 is not 0 (every match of a filter, or off) or N for one packet in N",
            refused("xmit.trace.sample = -1"));
        assertEquals("xmit.trace.socket = -2 is not a socket id (or -1 for any)", refused("xmit.trace.socket = -2"));
        assertEquals("xmit.trace.ring-size = 5000 is not a power of two in 4096..1 GiB",
            refused("xmit.trace.ring-size = 5000"));
        assertEquals("xmit.trace.ring-size = 2048 is not a power of two in 4096..1 GiB",
            refused("xmit.trace.ring-size = 2K"));
        assertEquals("xmit.trace.snap-length = 63 is not in 64..1024", refused("xmit.trace.snap-length = 63"));
    }

    @Test
    void anUnresolvedSubstitutionKeepsHoconsMessage()
    {
        assertTrue(refused("xmit.cpus = ${nowhere}").contains("nowhere"));
    }

    private static PipelineConfig parse(final String hocon)
    {
        return HoconConfigReader.fromConfig(ConfigFactory.parseString(hocon));
    }

    private static String refused(final String hocon)
    {
        return assertThrows(IllegalArgumentException.class, () -> parse(hocon)).getMessage();
    }
}
