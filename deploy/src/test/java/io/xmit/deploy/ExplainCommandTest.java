package io.xmit.deploy;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExplainCommandTest
{
    private static final String FLOW = "udp:10.0.0.1:5000-10.0.0.2:11211";

    private record Result(int code, String out, String err)
    {
    }

    private static Result xmit(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String json(final String... args)
    {
        final String[] all = new String[args.length + 2];
        all[0] = "explain";
        System.arraycopy(args, 0, all, 1, args.length);
        all[all.length - 1] = "--json";
        final Result result = xmit(all);
        assertEquals(0, result.code(), result.err());
        return result.out().strip();
    }

    private static String via(final String jsonLine)
    {
        final int start = jsonLine.indexOf("\"via\":\"") + 7;
        return jsonLine.substring(start, jsonLine.indexOf('"', start));
    }

    private static int txq(final String jsonLine)
    {
        final int start = jsonLine.indexOf("\"txq\":") + 6;
        return Integer.parseInt(jsonLine.substring(start, jsonLine.indexOf(',', start)));
    }

    @Test
    void issueExampleLeavesByXpsRxqs()
    {
        final String line = json("--tx-queues", "8", "--xps-cpus", "0=01", "--xps-cpus", "1=02", "--xps-rxqs", "3=08",
            "--cpu", "1", "--rx-queue", "3", "--flow", FLOW);
        // The default key is all zero, so the hash is the same on every run and machine.
        assertEquals("{\"txq\":3,\"via\":\"xps-rxqs\",\"hash\":3462892366}", line);
    }

    @Test
    void xpsByCpuWhenNoRxQueueIsRecorded()
    {
        final String line = json("--tx-queues", "8", "--xps-cpus", "0=01", "--xps-cpus", "1=02", "--xps-rxqs", "3=08",
            "--cpu", "1", "--flow", FLOW);
        assertEquals("xps-cpus", via(line));
        assertEquals(1, txq(line));
    }

    @Test
    void singleQueueDeviceShortcuts()
    {
        final String line = json("--tx-queues", "1", "--cpu", "0", "--cached", "0", "--flow", FLOW);
        assertEquals("single", via(line));
        assertEquals(0, txq(line));
    }

    @Test
    void cachedQueueWinsWhilePacketsAreInFlight()
    {
        final String line = json("--tx-queues", "8", "--xps-rxqs", "3=08", "--rx-queue", "3", "--cached", "5",
            "--flow", FLOW);
        assertEquals("cached", via(line));
        assertEquals(5, txq(line));
    }

    @Test
    void oooOkayReselectsThroughXps()
    {
        final String line = json("--tx-queues", "8", "--xps-rxqs", "3=08", "--rx-queue", "3", "--cached", "5",
            "--ooo-okay", "--flow", FLOW);
        assertEquals("xps-rxqs", via(line));
        assertEquals(3, txq(line));
    }

    @Test
    void cachedQueueBeyondTheRealCountFallsThroughToTheHash()
    {
        final String line = json("--tx-queues", "4", "--cached", "6", "--flow", FLOW);
        assertEquals("hash", via(line));
        assertTrue(txq(line) >= 0 && txq(line) < 4, line);
    }

    @Test
    void hashIsTheSameForBothDirectionsAndDependsOnTheKey()
    {
        final String forward = json("--tx-queues", "8", "--flow", FLOW);
        final String reverse = json("--tx-queues", "8", "--flow", "udp:10.0.0.2:11211-10.0.0.1:5000");
        final String otherKey = json("--tx-queues", "8", "--flow", FLOW, "--hash-key", "000102030405060708090a0b0c0d0e0f");
        assertEquals("hash", via(forward));
        assertEquals(forward, reverse);
        assertFalse(forward.equals(otherKey), forward);
    }

    @Test
    void textOutputNamesQueueRuleAndHash()
    {
        final Result result = xmit("explain", "--tx-queues", "8", "--xps-cpus", "2=02", "--cpu", "1", "--flow",
            "udp:[2001:db8::1]:5000-[2001:db8::2]:11211");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().contains("  xps_cpus  cpu 1 -> [2]\n"), result.out());
        assertTrue(result.out().contains("txq     2 via xps-cpus"), result.out());
        assertTrue(result.out().matches("(?s).*hash    0x[0-9a-f]{8}.*"), result.out());
    }

    @Test
    void badArgumentsPrintOneLineAndExitTwo()
    {
        assertUsage("--xps-cpus", "xmit explain: --xps-cpus:", "explain", "--tx-queues", "8", "--xps-cpus", "0=zz",
            "--flow", FLOW);
        assertUsage("bit", "xmit explain: --xps-rxqs:", "explain", "--tx-queues", "4", "--xps-rxqs", "0=10",
            "--flow", FLOW);
        assertUsage("0..7", "xmit explain: --xps-cpus '9=01': tx queue 9: must be in 0..7", "explain", "--tx-queues", "8",
            "--xps-cpus", "9=01", "--flow", FLOW);
        assertUsage("sctp", "xmit explain: --flow:", "explain", "--tx-queues", "8", "--flow", "sctp:1.2.3.4:1-1.2.3.5:2");
        assertUsage("--tx-queues", "xmit explain: --tx-queues 0", "explain", "--tx-queues", "0", "--flow", FLOW);
        assertUsage("--tx-queues", "xmit explain: --tx-queues is required", "explain", "--flow", FLOW);
        assertUsage("--bogus", "xmit explain: unknown option '--bogus'", "explain", "--bogus");
        assertUsage("--cpu", "xmit explain: --cpu needs a value", "explain", "--cpu");
        assertUsage("--hash-key", "xmit explain: --hash-key 'abc'", "explain", "--tx-queues", "2", "--flow", FLOW,
            "--hash-key", "abc");
        assertUsage("nope", "xmit nope: unknown command 'nope'", "nope");
    }

    private static void assertUsage(final String named, final String prefix, final String... args)
    {
        final Result result = xmit(args);
        assertEquals(2, result.code());
        assertEquals("", result.out());
        final String err = result.err();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith(prefix), err);
        assertTrue(err.contains(named), err);
    }
}
