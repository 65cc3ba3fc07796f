package io.xmit.actors.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The key table: which keys a pipeline knows, in which order, and what its range checks say. */
class ConfigKeyTest
{
    @Test
    void theKeysUnderXmitAreListedInTheTablesOrder()
    {
        assertEquals(List.of("name", "device", "cpus", "cores", "dispatcher-throughput", "qdisc.quota",
            "qdisc.bulk-limit", "qdisc.band-limit", "qdisc.overflow", "qdisc.bypass", "qdisc.sender-bypass", "spin-polls",
            "spin-time", "socket-spin-polls", "busy-poll", "busy-poll-budget", "prefer-busy-poll", "rx.burst",
            "rings.qdisc-term-length", "rings.socket-term-length", "ports",
            "xps.preset", "xps.maps", "txq-reselection", "counters.directory", "tx-watchdog.timeout", "stop.deadline", "trace.sample",
            "trace.flow", "trace.socket", "trace.file", "trace.ring-size", "trace.snap-length"), ConfigKey.keys());
        assertEquals(List.of("mac", "ipv4", "ipv6", "peer-mac", "prefix", "gateway", "arp", "icmp"),
            ConfigKey.PORTS.fields());
        assertEquals(List.of("port", "txq", "cpus", "rxqs"), ConfigKey.XPS_MAPS.fields());
        assertEquals(List.of(), ConfigKey.CPUS.fields());
    }

    @Test
    void aKeyIsNamedAsTheConfigurationSpellsIt()
    {
        assertEquals("xmit.qdisc.quota", ConfigKey.QDISC_QUOTA.key());
        assertEquals("qdisc.quota", ConfigKey.QDISC_QUOTA.path());
        assertEquals("xmit.ports[1].prefix", ConfigKey.PORT_PREFIX.key(1));
        assertEquals("xmit.xps.maps[0].txq", ConfigKey.XPS_MAP_TXQ.key(0));
    }

    @Test
    void aRangeCheckNamesTheKeyTheValueAndTheRange()
    {
        ConfigKey.CPUS.check(1);
        ConfigKey.CPUS.check(256);
        assertEquals("xmit.cpus = 257 is not in 1..256", refused(() -> ConfigKey.CPUS.check(257)));
        assertEquals("xmit.rx.burst = 0 is not in 1..512", refused(() -> ConfigKey.RX_BURST.check(0, 512)));
        assertEquals("xmit.qdisc.bulk-limit = 1025 is not in 1..1024",
            refused(() -> ConfigKey.QDISC_BULK_LIMIT.check(1025, 4096)), "a device's limit never widens the range");
        assertEquals("xmit.ports[0].prefix = 33 is not in 0..32",
            refused(() -> ConfigKey.PORT_PREFIX.checkEntry(0, 33)));
        assertEquals("xmit.xps.maps[2].txq = 4 is not in 0..3",
            refused(() -> ConfigKey.XPS_MAP_TXQ.checkEntry(2, 4, 3)));
        assertEquals("xmit.spin-time = -1 ns is not in 0..1 s", refused(() -> ConfigKey.SPIN_TIME.check(-1)));
        assertEquals("xmit.trace.socket = -2 is not a socket id (or -1 for any)",
            refused(() -> ConfigKey.TRACE_SOCKET.check(-2)));
    }

    @Test
    void aDurationIsCheckedAgainstItsRangeWrittenAsHoconWritesIt()
    {
        ConfigKey.TX_WATCHDOG_TIMEOUT.check(Duration.ofMillis(1));
        ConfigKey.TX_WATCHDOG_TIMEOUT.check(Duration.ofHours(1));
        assertEquals("xmit.tx-watchdog.timeout = 3600001ms is not in 1ms..1h",
            refused(() -> ConfigKey.TX_WATCHDOG_TIMEOUT.check(Duration.ofHours(1).plusMillis(1))));
        assertEquals("xmit.stop.deadline = null is not in 0s..1h",
            refused(() -> ConfigKey.STOP_DEADLINE.check(null)));
    }

    private static String refused(final Runnable check)
    {
        return assertThrows(IllegalArgumentException.class, check::run).getMessage();
    }
}
