package io.xmit.deploy.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of the {@code cluster} bench, from the parent's side: started with this JVM's java, flags and class
 * path and {@code -Xmx256m}, running {@link ClusterBenchChild} in one role; a command is a line to its stdin, its
 * answer the next protocol line on its stdout, awaited at most a given time. Its CPU time is the operating system's
 * ({@link ProcessHandle.Info#totalCpuDuration()}: utime + stime of all its threads, from {@code /proc/PID/stat}).
 * {@link #close()} asks it to quit and kills it if it has not exited in time; it never outlives the parent's JVM.
 */
final class BenchProcess implements AutoCloseable
{
    static final String HEAP = "-Xmx256m";
    /** The last lines of its other output, kept for the message when it fails. */
    private static final int TAIL = 20;
    private static final Duration QUIT = Duration.ofSeconds(25);

    private final String name;
    private final Process process;
    private final PrintStream in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private final Thread killer;

    /**
     * Starts {@code role} with {@code args}; {@link #awaitReady} waits for it to say it is in place.
     *
     * @throws IllegalStateException naming the process if no JVM could be started.
     */
    static BenchProcess start(final String name, final String... roleAndArgs)
    {
        return start(name, ClusterBenchChild.class, roleAndArgs);
    }

    /** As {@link #start(String, String...)}, running {@code main}'s main, which speaks the same protocol. */
    static BenchProcess start(final String name, final Class<?> main, final String... roleAndArgs)
    {
        try
        {
            return new BenchProcess(name, new ProcessBuilder(command(main, roleAndArgs)).redirectErrorStream(true)
                .start());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(name + ": cannot start a JVM: " + ex.getMessage(), ex);
        }
    }

    /**
     * Waits up to {@code timeout} for the role to be in place.
     *
     * @throws IllegalStateException naming the process and its last output if it failed to start or took too long.
     */
    void awaitReady(final Duration timeout)
    {
        await("ready", timeout);
    }

    /** This JVM's java and flags (a debugger's agent left out: every child would listen on its port). */
    static List<String> command(final Class<?> main, final String... roleAndArgs)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!arg.startsWith("-agentlib:jdwp") && !arg.startsWith("-Xmx"))
            {
                command.add(arg);
            }
        }
        command.addAll(List.of(HEAP, "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(roleAndArgs));
        return command;
    }

    private BenchProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.killer = new Thread(process::destroyForcibly, "xmit-bench-kill-" + name);
        Runtime.getRuntime().addShutdownHook(killer);
        final Thread reader = new Thread(this::read, "xmit-bench-read-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    private void read()
    {
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = out.readLine()))
            {
                if (line.startsWith(ClusterBenchChild.PREFIX))
                {
                    answers.add(line.substring(ClusterBenchChild.PREFIX.length()));
                }
                else
                {
                    synchronized (tail)
                    {
                        tail.addLast(line);
                        if (tail.size() > TAIL)
                        {
                            tail.removeFirst();
                        }
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            answers.add("error its output broke: " + ex.getMessage());
        }
        answers.add("error exited" + (process.isAlive() ? "" : " with " + process.exitValue()));
    }

    /**
     * Sends {@code command}, waits up to {@code timeout} for the answer, and returns it without the word that names
     * it ({@code ok}, {@code end} …).
     *
     * @throws IllegalStateException if the child answered an error, or nothing in time.
     */
    String call(final String command, final Duration timeout)
    {
        in.println(command);
        return await(command.split(" ")[0], timeout);
    }

    private String await(final String what, final Duration timeout)
    {
        final String answer;
        try
        {
            answer = answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while waiting for " + what, ex);
        }
        if (null == answer)
        {
            throw new IllegalStateException(name + ": no answer to '" + what + "' within " + timeout.toSeconds() +
                " s; its last output: " + tail());
        }
        if (answer.startsWith("error"))
        {
            throw new IllegalStateException(name + ": " + what + ": " + answer + "; its last output: " + tail());
        }
        final int space = answer.indexOf(' ');
        return space < 0 ? "" : answer.substring(space + 1);
    }

    private String tail()
    {
        synchronized (tail)
        {
            return tail.isEmpty() ? "(none)" : String.join(" | ", tail);
        }
    }

    /** CPU time the process has used so far, user and system, in nanoseconds. */
    long cpuNanos()
    {
        return process.toHandle().info().totalCpuDuration().orElseThrow(() ->
            new IllegalStateException(name + ": the system does not tell its CPU time")).toNanos();
    }

    String name()
    {
        return name;
    }

    /** SIGKILL, as a crash: no quit, no wait ({@link #close()} still waits for it and forgets it). */
    void killNow()
    {
        process.destroyForcibly();
    }

    /** Asks it to quit, without waiting: several processes stop at once, then {@link #close()} waits for each. */
    void quit()
    {
        if (process.isAlive())
        {
            in.println("quit");
        }
    }

    /** Asks it to quit and waits for it; kills it if it is not gone in time. */
    @Override
    public void close()
    {
        try
        {
            quit();
            process.waitFor(QUIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            kill();
        }
    }

    private void kill()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(QUIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        try
        {
            Runtime.getRuntime().removeShutdownHook(killer);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // The JVM is shutting down and runs the hook anyway.
            process.destroyForcibly();
        }
    }
}
