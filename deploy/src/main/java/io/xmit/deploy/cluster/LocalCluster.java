package io.xmit.deploy.cluster;

import io.xmit.deploy.Main;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code xmit cluster local}: every node of a deployment as its own JVM on this machine, for trying a cluster out.
 * Each child is {@code xmit cluster run} for one node, started with this JVM's own Java, flags and class path (so
 * the launcher's {@code XMIT_JVM_FLAGS} and {@code XMIT_JAVA_OPTS} reach it), its output and errors printed here
 * line by line behind its node's name. Ctrl-C or SIGTERM stops the nodes one by one, the last in the file first,
 * each leaving the cluster gracefully (SIGTERM) and given the drain deadline and then some before it is killed; the
 * command exits 0 when every node exited 0. A child's standard input is a pipe from this process: if this process
 * dies, however it dies, the pipe closes and the child leaves and exits.
 */
final class LocalCluster
{
    /** What a node gets beyond the drain deadline to exit after it left: stopping its system and its pipelines. */
    private static final long EXIT_GRACE_MS = 5_000;

    private final Deployment deployment;
    private final Path file;
    private final List<String> load;
    private final PrintStream out;
    private final CountDownLatch stop = new CountDownLatch(1);

    /** @param load {@code cluster run}'s load options, for the edge nodes (those with devices). */
    LocalCluster(final Deployment deployment, final Path file, final List<String> load, final PrintStream out)
    {
        this.deployment = deployment;
        this.file = file;
        this.load = List.copyOf(load);
        this.out = out;
    }

    /** The command that runs {@code node} in a JVM like this one. */
    List<String> command(final Node node)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            // A debugger's agent would make every child listen on the parent's port.
            if (!arg.startsWith("-agentlib:jdwp"))
            {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster", "run",
            "--config", file.toAbsolutePath().toString(), "--node", node.name(), "--local"));
        if (!node.devices().isEmpty())
        {
            command.addAll(load);
        }
        return command;
    }

    int run() throws IOException, InterruptedException
    {
        StopSignals.install(List.of("INT", "TERM"), List.of(), reason -> stop.countDown());
        final int width = deployment.nodes().stream().mapToInt(node -> node.name().length()).max().orElse(0);
        final List<Process> processes = new ArrayList<>();
        final List<Thread> copiers = new ArrayList<>();
        final Thread killer = new Thread(() -> processes.forEach(Process::destroyForcibly), "xmit-cluster-killer");
        Runtime.getRuntime().addShutdownHook(killer);
        try
        {
            for (final Node node : deployment.nodes())
            {
                final Process process = new ProcessBuilder(command(node)).redirectErrorStream(true).start();
                processes.add(process);
                copiers.add(Thread.ofPlatform().name("xmit-cluster-" + node.name())
                    .start(() -> copy(process, String.format(Locale.ROOT, "%-" + width + "s | ", node.name()))));
            }
            out.printf(Locale.ROOT, "xmit cluster local: %d nodes of cluster %s, each its own JVM (%s); Ctrl-C " +
                "stops them%n", processes.size(), deployment.name(), pids(processes));
            Thread.ofPlatform().daemon().name("xmit-cluster-exits").start(() ->
            {
                processes.forEach(process -> process.onExit().join());
                stop.countDown();
            });
            stop.await();
            final int code = stopAll(processes);
            for (final Thread copier : copiers)
            {
                copier.join(EXIT_GRACE_MS);
            }
            return code;
        }
        finally
        {
            processes.forEach(Process::destroyForcibly);
            Runtime.getRuntime().removeShutdownHook(killer);
        }
    }

    /** Stops the nodes still running, the last in the file first; exit 0 when every node exited 0. */
    private int stopAll(final List<Process> processes) throws InterruptedException
    {
        final long wait = deployment.failure().drainDeadline().toMillis() + EXIT_GRACE_MS;
        int code = Main.EXIT_OK;
        for (int i = processes.size() - 1; i >= 0; i--)
        {
            final Process process = processes.get(i);
            final String name = deployment.nodes().get(i).name();
            if (process.isAlive())
            {
                out.println("xmit cluster local: stopping " + name);
                // SIGTERM through the handle: Process.destroy would also close the pipe its last lines come through.
                process.toHandle().destroy();
            }
            if (!process.waitFor(wait, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly().waitFor();
                out.printf(Locale.ROOT, "xmit cluster local: %s did not exit within %d ms; killed%n", name, wait);
                code = Main.EXIT_FAILED;
                continue;
            }
            out.printf(Locale.ROOT, "xmit cluster local: %s exited %d%n", name, process.exitValue());
            if (Main.EXIT_OK != process.exitValue())
            {
                code = Main.EXIT_FAILED;
            }
        }
        return code;
    }

    /** The child's output, a line at a time behind {@code prefix}, until it closes. */
    private void copy(final Process process, final String prefix)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            for (String line = reader.readLine(); null != line; line = reader.readLine())
            {
                out.println(prefix + line);
            }
        }
        catch (final IOException ex)
        {
            out.println(prefix + "(its output could not be read: " + ex.getMessage() + ")");
        }
    }

    private static String pids(final List<Process> processes)
    {
        final List<String> pids = new ArrayList<>();
        for (final Process process : processes)
        {
            pids.add("pid " + process.pid());
        }
        return String.join(", ", pids);
    }
}
