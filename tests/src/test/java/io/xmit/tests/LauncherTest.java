package io.xmit.tests;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher script and the shaded jar it runs, as a user meets them. */
class LauncherTest
{
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private record Outcome(int code, String out, String err)
    {
    }

    private static Outcome exec(final Map<String, String> env, final String... command) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        builder.environment().putAll(env);
        final Path out = Files.createTempFile("xmit-out", ".txt");
        final Path err = Files.createTempFile("xmit-err", ".txt");
        try
        {
            final Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "timed out: " + String.join(" ", command));
            return new Outcome(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            delete(out);
            delete(err);
        }
    }

    private static void delete(final Path path) throws IOException
    {
        Files.deleteIfExists(path);
    }

    @Test
    void launcherWithoutASuitableJdkSaysSoInOneLineAndExitsOne() throws Exception
    {
        final Outcome outcome = exec(
            Map.of("JAVA_HOME", "/nonexistent", "XMIT_JDK_DIR", "/nonexistent"), "bash", "xmit", "explain");
        assertEquals(1, outcome.code());
        assertEquals("", outcome.out());
        assertEquals(1, outcome.err().lines().count(), outcome.err());
        assertTrue(outcome.err().startsWith("xmit: no JDK 25 or newer found"), outcome.err());
        assertTrue(outcome.err().contains("install"), outcome.err());
    }

    @Test
    void testVerbHelpSaysWhatItRunsWithoutRunningMavenOrInstallingAnything() throws Exception
    {
        // --help looks for no tool, installs nothing and starts no Maven (a full run inside a test would recurse):
        // nothing on stderr, where each of those would say a line.
        final Outcome outcome = exec(Map.of(), "bash", "xmit", "test", "--help");
        assertEquals(0, outcome.code(), outcome.err());
        assertEquals("", outcome.err());
        assertTrue(outcome.out().startsWith("usage: ./xmit test [maven args...]"), outcome.out());
        assertTrue(outcome.out().contains("./mvnw -B -ntp verify"), outcome.out());
        assertTrue(outcome.out().contains("iputils-ping"), outcome.out());
    }

    @Test
    void shadedJarRunsExplainWithTheLaunchersFlags() throws Exception
    {
        final Path jar = ROOT.resolve("deploy/target/xmit.jar");
        assertTrue(Files.isRegularFile(jar), "the deploy module packages " + jar);
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
        command.addAll(List.of("-jar", jar.toString(), "explain", "--tx-queues", "8", "--xps-cpus", "0=01",
            "--xps-cpus", "1=02", "--xps-rxqs", "3=08", "--cpu", "1", "--rx-queue", "3",
            "--flow", "udp:10.0.0.1:5000-10.0.0.2:11211", "--json"));
        final Outcome outcome = exec(Map.of(), command.toArray(String[]::new));
        assertEquals(0, outcome.code(), outcome.err());
        assertTrue(outcome.out().strip().matches("\\{\"txq\":3,\"via\":\"xps-rxqs\",\"hash\":[1-9][0-9]*}"),
            outcome.out());
    }
}
