package io.xmit.tests.example;

import io.xmit.transport.nic.NetNamespaces;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code examples/veth-demo}, as a user runs it: {@code xmit run} on one end of a veth pair in namespaces the script
 * makes, answering the kernel on the other end, ping and UDP. Needs root, as the veth tests do.
 */
class VethDemoTest
{
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    /** A bound against a hang, far above the 10-20 s the demo takes (the launcher may build xmit first). */
    private static final long BOUND_SECONDS = 300;

    @Test
    void theKernelOnTheOtherEndGetsPingAndUdpRepliesFromXmitRun() throws Exception
    {
        final String probe = "xmit-vd-" + ProcessHandle.current().pid();
        final String unavailable = NetNamespaces.createVethPair(probe + "-x", probe + "-p", "vdx0", "vdp0");
        NetNamespaces.runQuietly("ip", "netns", "del", probe + "-x");
        NetNamespaces.runQuietly("ip", "netns", "del", probe + "-p");
        NetNamespaces.assumeAvailable(unavailable);
        NetNamespaces.assumeAvailable(NetNamespaces.missing("ping", "iputils-ping"));

        final ProcessBuilder builder = new ProcessBuilder("bash", ROOT.resolve("examples/veth-demo").toString(), "5")
            .directory(ROOT.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        final Path output = Files.createTempFile("veth-demo", ".txt");
        try
        {
            final Process process = builder.redirectOutput(output.toFile()).start();
            if (!process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new AssertionError("veth-demo did not finish in " + BOUND_SECONDS + " s:\n" +
                    Files.readString(output));
            }
            final String out = Files.readString(output, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), out);
            final List<String> lines = out.lines().toList();
            assertEquals(List.of("reply: hello xmit 1", "reply: hello xmit 2", "reply: hello xmit 3"),
                lines.stream().filter(line -> line.startsWith("reply: ")).toList(), out);
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("3 packets transmitted, 3 received, 0% " +
                "packet loss")), out);
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("xmit run: afpacket:if=xd0,queues=2, 2 CPUs, " +
                "XPS rxqs, serving UDP 10.77.0.1:11211 to the link's hosts, 5 s;")), out);
            // Both directions at rest; what the kernel side sends besides ping and UDP (IPv6 router solicitations,
            // say) is counted among the receive drops, and the books still balance.
            assertTrue(lines.stream().anyMatch(line -> line.matches("stop: drained in \\d+ ms; tx: accepted (\\d+) = " +
                "transmitted \\1 \\+ in flight 0 \\(rings 0, backlogs 0, driver 0\\) \\+ dropped 0; rx port A: " +
                "arrived \\d+ = .* \\+ in flight 0 \\(device rings 0, bursts 0, socket rings 0, host ring 0\\) .*: " +
                "balanced")), out);
        }
        finally
        {
            Files.deleteIfExists(output);
        }
    }
}
