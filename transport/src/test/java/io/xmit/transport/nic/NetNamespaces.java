package io.xmit.transport.nic;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Network namespaces for tests that need real interfaces: created and removed with {@code ip netns}, entered by
 * one thread at a time through {@code setns(2)}, so the test process itself never leaves the host's namespace.
 * A socket belongs to the namespace of the thread that created it and stays there, so a device opened on a
 * thread inside a namespace can be driven from any thread afterwards.
 */
public final class NetNamespaces
{
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;
    private static final long WORK_SECONDS = 30;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = libc("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle SETNS = libc("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    private NetNamespaces()
    {
    }

    private static MethodHandle libc(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), descriptor);
    }

    /**
     * The environment variable that turns the veth tests' skips into failures: {@code ./xmit test} sets it to 1 when
     * run as root (as in CI), where namespaces are expected to work; the C tests' afpacket leg reads it too.
     */
    public static final String REQUIRE_ENV = "XMIT_REQUIRE_NETNS";

    /** Whether {@link #REQUIRE_ENV} is 1 in this process's environment (Surefire's forks inherit Maven's). */
    public static boolean required()
    {
        return "1".equals(System.getenv(REQUIRE_ENV));
    }

    /**
     * For a test that needs namespaces (or a tool) where {@code unavailable} says why it cannot have them: nothing if
     * it is null; else a failure if {@link #REQUIRE_ENV} is 1, or a skip that says why and how to run it.
     */
    public static void assumeAvailable(final String unavailable)
    {
        if (null == unavailable)
        {
            return;
        }
        if (required())
        {
            fail(unavailable + "; " + REQUIRE_ENV + "=1 (./xmit test sets it when run as root) requires the veth " +
                "tests to run, so this is a failure, not a skip");
        }
        assumeTrue(false, unavailable + "; these tests run as root with iproute2 (sudo ./xmit test installs it), " +
            "and with " + REQUIRE_ENV + "=1 a skip here fails the run");
    }

    /** Whether {@code command} is an executable in a folder of the PATH, as a process started by name finds it. */
    public static boolean onPath(final String command)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(":"))
        {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command)))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Null if {@code command} is on the PATH, else why not, for a test that needs it to skip saying so: the Debian
     * package that has it, which {@code ./xmit test} installs when run as root.
     */
    public static String missing(final String command, final String debianPackage)
    {
        return onPath(command) ? null : command + " is not on the PATH (Debian package " + debianPackage +
            "; ./xmit test installs it when run as root)";
    }

    /** Runs a command to completion (10 s at most); its output, or an exception carrying it. */
    public static String run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final boolean exited = process.waitFor(10, TimeUnit.SECONDS);
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!exited)
        {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": still running after 10 s");
        }
        if (process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + ": exit " + process.exitValue() + ": " + output);
        }
        return output;
    }

    /**
     * Creates namespaces {@code xmitNs} and {@code peerNs} joined by a veth pair, {@code xmitIf} in the first and
     * {@code peerIf} in the second, with 4 TX and 4 RX queues on each end.
     *
     * @return null, or why it cannot be done here (no ip(8), no namespaces, no veth), for the tests to skip saying so.
     */
    public static String createVethPair(final String xmitNs, final String peerNs, final String xmitIf,
        final String peerIf)
    {
        final String noIp = missing("ip", "iproute2");
        if (null != noIp)
        {
            return noIp;
        }
        try
        {
            run("ip", "netns", "add", xmitNs);
            run("ip", "netns", "add", peerNs);
        }
        catch (final Exception ex)
        {
            return "network namespaces are unavailable here (creating them needs root and a kernel with " +
                "CONFIG_NET_NS): " + ex.getMessage();
        }
        try
        {
            run("ip", "link", "add", xmitIf, "netns", xmitNs, "numtxqueues", "4", "numrxqueues", "4",
                "type", "veth", "peer", peerIf, "netns", peerNs, "numtxqueues", "4", "numrxqueues", "4");
        }
        catch (final Exception ex)
        {
            return "veth is unavailable here (CONFIG_VETH): " + ex.getMessage();
        }
        return null;
    }

    /** Runs a command, ignoring how it ends: for cleanup that must go on past a failure. */
    public static void runQuietly(final String... command)
    {
        try
        {
            run(command);
        }
        catch (final IOException ex)
        {
            // The thing to remove was not there, or is gone already.
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code work} on a new thread inside namespace {@code name}; its result or its exception. */
    public static <T> T inNamespace(final String name, final Callable<T> work) throws Exception
    {
        return onThread(() ->
        {
            natively(() -> enter(name));
            return work.call();
        });
    }

    /** Runs {@code work} inside namespace {@code name} on a thread without CAP_NET_RAW in its effective set. */
    public static <T> T inNamespaceWithoutNetRaw(final String name, final Callable<T> work) throws Exception
    {
        return onThread(() ->
        {
            natively(() -> enter(name));
            natively(() -> ThreadCapabilities.drop(false, ThreadCapabilities.CAP_NET_RAW));
            return work.call();
        });
    }

    /** The process's open file descriptors. */
    public static long openDescriptors() throws IOException
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.count();
        }
    }

    /** A step of downcalls, which declare Throwable. */
    private interface NativeStep
    {
        void run() throws Throwable;
    }

    private static void natively(final NativeStep step) throws Exception
    {
        try
        {
            step.run();
        }
        catch (final Exception | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static <T> T onThread(final Callable<T> work) throws Exception
    {
        final FutureTask<T> task = new FutureTask<>(work);
        final Thread thread = Thread.ofPlatform().name("netns-worker").start(task);
        try
        {
            return task.get(WORK_SECONDS, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof Exception cause)
            {
                throw cause;
            }
            throw ex;
        }
        catch (final TimeoutException ex)
        {
            thread.interrupt();
            throw ex;
        }
    }

    private static void enter(final String name) throws Throwable
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int fd = (int)OPEN.invokeExact(arena.allocateFrom("/run/netns/" + name), O_RDONLY | O_CLOEXEC);
            if (fd < 0)
            {
                throw new IOException("cannot open /run/netns/" + name);
            }
            final int entered = (int)SETNS.invokeExact(fd, CLONE_NEWNET);
            final int closed = (int)CLOSE.invokeExact(fd);
            if (entered != 0 || closed != 0)
            {
                throw new IOException("setns into " + name + " failed");
            }
        }
    }

}
