package io.xmit.deploy.cluster.failure;

import io.xmit.pipeline.testing.Await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A {@link FailureNode} in a JVM of its own, started with this JVM's java, its {@code --} flags and class path, and
 * {@code -Xmx256m}: its output kept line by line, commands written to its standard input, and signals sent to it.
 */
final class NodeProcess implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final OutputStream commands;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private NodeProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.commands = process.getOutputStream();
        Thread.ofPlatform().daemon().name("node-" + name).start(this::readLines);
    }

    static NodeProcess start(final Path file, final String node)
    {
        final List<String> java = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(arg -> arg.startsWith("--"))
            .forEach(java::add);
        java.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), FailureNode.class.getName(),
            file.toString(), node));
        try
        {
            return new NodeProcess(node, new ProcessBuilder(java).redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    String name()
    {
        return name;
    }

    long pid()
    {
        return process.pid();
    }

    /** Writes one command line to the node. */
    void send(final String command)
    {
        try
        {
            commands.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            commands.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("node " + name + ": " + command, ex);
        }
    }

    /** The first line from index {@code from} on that starts with {@code prefix}, waited for at most {@code wait}. */
    String await(final String prefix, final int from, final Duration wait)
    {
        Await.until(name + " prints '" + prefix + "…'", () ->
        {
            final boolean found = null != find(prefix, from);
            if (!found && !process.isAlive())
            {
                throw new IllegalStateException(name + " exited " + process.exitValue() + " before it printed '" +
                    prefix + "…':\n" + output());
            }
            return found;
        }, this::output, wait);
        return find(prefix, from);
    }

    /** Sends {@code command} and returns the lines it printed up to one starting with {@code last}. */
    List<String> ask(final String command, final String last, final Duration wait)
    {
        final int from = lines.size();
        send(command);
        await(last, from, wait);
        return List.copyOf(lines.subList(from, indexOf(last, from) + 1));
    }

    String find(final String prefix, final int from)
    {
        final int index = indexOf(prefix, from);
        return index < 0 ? null : lines.get(index);
    }

    private int indexOf(final String prefix, final int from)
    {
        for (int i = from; i < lines.size(); i++)
        {
            if (lines.get(i).startsWith(prefix))
            {
                return i;
            }
        }
        return -1;
    }

    int lineCount()
    {
        return lines.size();
    }

    String output()
    {
        return name + ":\n  " + String.join("\n  ", lines);
    }

    /** SIGTERM: the node leaves gracefully. */
    void terminate()
    {
        process.toHandle().destroy();
    }

    /** SIGKILL: a crash. */
    void kill()
    {
        process.destroyForcibly();
    }

    /** SIGSTOP or SIGCONT, through kill(1): the JDK has no call for them. */
    void signal(final String signal)
    {
        try
        {
            final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || 0 != kill.exitValue())
            {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** The exit code, once the process has exited within {@code wait}. */
    int exitCode(final Duration wait)
    {
        Await.until(name + " exited", () -> !process.isAlive(), this::output, wait);
        return process.exitValue();
    }

    /** {@code key=value} words of a line. */
    static Map<String, String> fields(final String line)
    {
        final Map<String, String> fields = new HashMap<>();
        for (final String word : line.split(" "))
        {
            final int eq = word.indexOf('=');
            if (eq > 0)
            {
                fields.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return fields;
    }

    @Override
    public void close()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void readLines()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            for (String line = in.readLine(); null != line; line = in.readLine())
            {
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("(output unreadable: " + ex.getMessage() + ")");
        }
    }
}
