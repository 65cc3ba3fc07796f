package io.xmit.transport.nic;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The downcall handles of {@code libxmitnic.so}, the C shim under {@code src/main/c} ({@code xmit_nic.h} is
 * the ABI). The library travels inside the transport jar; the first use extracts it into a private temporary
 * folder, loads it with {@link SymbolLookup#libraryLookup(Path, Arena)}, and deletes the copy (the mapping
 * stays valid), so nothing is left behind.
 * <p>
 * The burst calls take their descriptor and output pointers as 64-bit integers: on LP64 System V targets a
 * pointer and an {@code int64} travel in the same register class, and raw addresses let callers hand over
 * preallocated native arrays with no {@code MemorySegment} per call. They are bound with
 * {@link Linker.Option#critical(boolean) critical(false)} (no thread-state transition): they do bounded work
 * (at most a ring's worth of frames) and wait at most briefly on one of the shim's locks, never on I/O, so the
 * safepoint they can delay is short. The afpacket backend's bursts are system calls ({@code sendmmsg},
 * {@code recvmmsg}; they never block, MSG_DONTWAIT, but a burst of a thousand frames takes hundreds of
 * microseconds in the kernel): its ports use the same functions bound normally ({@code *_SYSCALL}), so a safepoint
 * never waits for the kernel. {@code xmit_nic_irq_wait} blocks and is bound normally, as are the control calls.
 */
final class NativeShim
{
    static final int ABI_VERSION = 1;
    static final String RESOURCE = "native/linux-x86_64/libxmitnic.so";

    static final MethodHandle ABI;
    static final MethodHandle OPEN;
    static final MethodHandle CLOSE;
    static final MethodHandle INFO;
    static final MethodHandle LINK;
    static final MethodHandle TX_BURST;
    static final MethodHandle TX_BURST_SYSCALL;
    static final MethodHandle TX_RECLAIM;
    static final MethodHandle RX_BURST;
    static final MethodHandle RX_BURST_SYSCALL;
    static final MethodHandle RX_RELEASE;
    static final MethodHandle STATS;
    static final MethodHandle FAULT;
    static final MethodHandle TX_RESET;
    static final MethodHandle RSS_KEY;
    static final MethodHandle RSS_RETA;
    static final MethodHandle RX_ARM;
    static final MethodHandle IRQ_WAIT;
    static final MethodHandle IRQ_SHUTDOWN;

    private static final RuntimeException LOAD_FAILURE;

    static
    {
        SymbolLookup library = null;
        RuntimeException failure = null;
        try
        {
            library = load();
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
        }
        LOAD_FAILURE = failure;
        final Binder bind = new Binder(library);
        ABI = bind.plain("xmit_nic_abi_version", FunctionDescriptor.of(JAVA_INT));
        OPEN = bind.plain("xmit_nic_open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
        CLOSE = bind.plain("xmit_nic_close", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        INFO = bind.plain("xmit_nic_info_get", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        LINK = bind.plain("xmit_nic_port_link", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
        final FunctionDescriptor burst = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
        TX_BURST = bind.critical("xmit_nic_tx_burst", burst);
        TX_BURST_SYSCALL = bind.plain("xmit_nic_tx_burst", burst);
        TX_RECLAIM = bind.critical("xmit_nic_tx_reclaim",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG));
        RX_BURST = bind.critical("xmit_nic_rx_burst", burst);
        RX_BURST_SYSCALL = bind.plain("xmit_nic_rx_burst", burst);
        RX_RELEASE = bind.critical("xmit_nic_rx_release",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
        STATS = bind.plain("xmit_nic_stats", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        FAULT = bind.plain("xmit_nic_fault",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG));
        TX_RESET = bind.plain("xmit_nic_tx_reset", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
        RSS_KEY = bind.plain("xmit_nic_rss_key", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT));
        RSS_RETA = bind.plain("xmit_nic_rss_reta", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT));
        RX_ARM = bind.critical("xmit_nic_rx_arm", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
        IRQ_WAIT = bind.plain("xmit_nic_irq_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT));
        IRQ_SHUTDOWN = bind.plain("xmit_nic_irq_shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }

    private NativeShim()
    {
    }

    /**
     * @throws IllegalStateException saying why the shim could not be loaded (platform, missing library, ABI).
     */
    static void ensureLoaded()
    {
        if (LOAD_FAILURE != null)
        {
            throw new IllegalStateException(LOAD_FAILURE.getMessage(), LOAD_FAILURE);
        }
        final int abi;
        try
        {
            abi = (int)ABI.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("xmit NIC shim: xmit_nic_abi_version failed", ex);
        }
        if (abi != ABI_VERSION)
        {
            throw new IllegalStateException("xmit NIC shim: the library speaks ABI " + abi + ", this code " +
                ABI_VERSION + "; rebuild the transport module");
        }
    }

    private static SymbolLookup load()
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64")))
        {
            throw new UnsupportedOperationException("xmit NIC shim: built for linux-x86_64 only, this is " +
                System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        }
        try (InputStream in = NativeShim.class.getResourceAsStream(RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException("xmit NIC shim: resource io/xmit/transport/nic/" + RESOURCE +
                    " is missing from the classpath; build the transport module with Maven (it compiles the shim)");
            }
            final Path dir = Files.createTempDirectory("xmit-nic-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            final Path copy = dir.resolve("libxmitnic.so");
            try
            {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                return SymbolLookup.libraryLookup(copy, Arena.global());
            }
            finally
            {
                Files.deleteIfExists(copy);
                Files.deleteIfExists(dir);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("xmit NIC shim: cannot extract the library to a temporary folder: " +
                ex.getMessage(), ex);
        }
    }

    private record Binder(SymbolLookup library)
    {
        MethodHandle plain(final String name, final FunctionDescriptor descriptor)
        {
            return library == null ? null :
                Linker.nativeLinker().downcallHandle(library.findOrThrow(name), descriptor);
        }

        MethodHandle critical(final String name, final FunctionDescriptor descriptor)
        {
            return library == null ? null : Linker.nativeLinker().downcallHandle(
                library.findOrThrow(name), descriptor, Linker.Option.critical(false));
        }
    }
}
