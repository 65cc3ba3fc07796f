package io.xmit.deploy;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.xmit.deploy.RunCommandTest.xmit;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code xmit stat --all [--filter REGEX]} against a counters file of this process with known values, allocated out of
 * order (txq 10 before txq 2, a socket before its port's queues), so the listing's order is its own.
 */
class StatAllTest
{
    @TempDir
    static Path dir;

    private static CountersFile file;

    @BeforeAll
    static void writeCounters()
    {
        file = CountersFile.create("dump", dir, 16);
        file.allocate(CounterType.SOCKET_SENT, CounterScope.socket(1, 4)).set(12);
        file.allocate(CounterType.QDISC_PACKETS, CounterScope.txq(0, 10)).set(7);
        file.allocate(CounterType.QDISC_PACKETS, CounterScope.txq(0, 2)).set(1_234_567);
        file.allocate(CounterType.QDISC_DROP_OVERFLOW, CounterScope.txq(0, 2)).set(5);
        file.allocate(CounterType.RX_PACKETS, CounterScope.rxq(1, 0)).set(3);
        file.allocate(CounterType.RX_DROP_NO_SOCKET, CounterScope.rxq(1, 0).withStage(CounterScope.Stage.RXQ)).set(1);
        file.allocate(CounterType.NIC_RX_MISSED, CounterScope.port(1)).set(2);
        file.allocate(CounterType.TRACE_EVENTS, CounterScope.tracer()).set(9);
    }

    @AfterAll
    static void closeCounters()
    {
        file.close();
    }

    @Test
    void allListsEveryCounterSortedByScopeThenName()
    {
        final RunCommandTest.Result all = xmit("stat", "dump", "--all", "--dir", dir.toString());
        assertEquals(Main.EXIT_OK, all.code(), all.err());
        assertEquals("""
            trace                   trace_events               9
            port=0 txq=2            qdisc_drop_overflow        5
            port=0 txq=2            qdisc_packets        1234567
            port=0 txq=10           qdisc_packets              7
            port=1                  nic_rx_missed              2
            port=1 rxq=0            rx_packets                 3
            port=1 rxq=0 stage=rxq  rx_drop_no_socket          1
            port=1 socket=4         socket_sent               12
            """, all.out());
        assertEquals("", all.err());
    }

    @Test
    void filterKeepsTheCountersWhoseLabelAndNameItFinds()
    {
        final RunCommandTest.Result txq = xmit("stat", "--all", "--filter", "txq=\\d+ qdisc_packets", "--dir",
            dir.toString());
        assertEquals(Main.EXIT_OK, txq.code(), txq.err());
        assertEquals("""
            port=0 txq=2   qdisc_packets  1234567
            port=0 txq=10  qdisc_packets        7
            """, txq.out());
        final RunCommandTest.Result drops = xmit("stat", "--all", "--filter=drop|missed", "--dir", dir.toString());
        assertEquals("""
            port=0 txq=2            qdisc_drop_overflow  5
            port=1                  nic_rx_missed        2
            port=1 rxq=0 stage=rxq  rx_drop_no_socket    1
            """, drops.out());
    }

    @Test
    void aFilterThatFindsNothingIsOneLineAndExitOne()
    {
        final RunCommandTest.Result none = xmit("stat", "--all", "--filter", "port=7", "--dir", dir.toString());
        assertEquals(Main.EXIT_FAILED, none.code());
        assertEquals("", none.out());
        assertEquals("xmit stat: no counter of pipeline dump matches --filter 'port=7'", none.err().strip());
    }

    @Test
    void aBadFilterOrAFilterWithoutAllIsAUsageError()
    {
        final RunCommandTest.Result bad = xmit("stat", "--all", "--filter", "txq=[", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, bad.code());
        assertEquals("xmit stat: --filter 'txq=[': not a regular expression: Unclosed character class at index 4",
            bad.err().strip());
        final RunCommandTest.Result alone = xmit("stat", "--filter", "txq", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, alone.code());
        assertEquals("xmit stat: --filter selects the counters --all prints: add --all", alone.err().strip());
        final RunCommandTest.Result json = xmit("stat", "--all", "--json", "--dir", dir.toString());
        assertEquals(Main.EXIT_USAGE, json.code());
        assertEquals("xmit stat: --all prints every counter once: not with --json, --count, --prometheus or --jmx",
            json.err().strip());
    }
}
