package io.xmit.transport.nic;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Drops Linux capabilities from the calling thread only (capabilities are per thread, so the rest of the test JVM
 * keeps them): how a test as root meets the refusals an unprivileged user would. Capabilities 0..31 only.
 */
public final class ThreadCapabilities
{
    public static final int CAP_DAC_OVERRIDE = 1;
    public static final int CAP_DAC_READ_SEARCH = 2;
    public static final int CAP_FOWNER = 3;
    public static final int CAP_NET_RAW = 13;

    private static final int CAPABILITY_VERSION_3 = 0x20080522;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor CAP_CALL = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle CAPGET =
        LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("capget"), CAP_CALL);
    private static final MethodHandle CAPSET =
        LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("capset"), CAP_CALL);

    private ThreadCapabilities()
    {
    }

    /**
     * Clears {@code capabilities} from this thread's effective set, and from its permitted set too when
     * {@code permitted} (then they cannot be raised again on this thread).
     */
    public static void drop(final boolean permitted, final int... capabilities) throws Throwable
    {
        int mask = 0;
        for (final int capability : capabilities)
        {
            if (capability < 0 || capability > 31)
            {
                throw new IllegalArgumentException("capability " + capability + " is not in 0..31");
            }
            mask |= 1 << capability;
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment header = arena.allocate(8, 4);
            header.set(JAVA_INT, 0, CAPABILITY_VERSION_3);
            header.set(JAVA_INT, 4, 0);
            // Two {effective, permitted, inheritable} triples: capabilities 0..31, then 32..63.
            final MemorySegment data = arena.allocate(24, 4);
            if ((int)CAPGET.invokeExact(header, data) != 0)
            {
                throw new IOException("capget failed");
            }
            data.set(JAVA_INT, 0, data.get(JAVA_INT, 0) & ~mask);
            if (permitted)
            {
                data.set(JAVA_INT, 4, data.get(JAVA_INT, 4) & ~mask);
            }
            if ((int)CAPSET.invokeExact(header, data) != 0)
            {
                throw new IOException("capset failed");
            }
        }
    }
}
