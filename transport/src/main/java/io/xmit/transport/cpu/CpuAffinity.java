package io.xmit.transport.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.BitSet;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Binds the calling thread to one core with libc's {@code sched_setaffinity}, through FFM, capturing
 * {@code errno}. Pinning is an optimisation: a failure comes back as a {@link Result} with the reason, never
 * as an exception.
 */
public final class CpuAffinity
{
    /** cpu_set_t of glibc: 1024 bits. */
    public static final int MAX_CORES = 1024;

    private static final int CPU_SET_BYTES = MAX_CORES / 8;
    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
        CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SCHED_SETAFFINITY = bind("sched_setaffinity");
    private static final MethodHandle SCHED_GETAFFINITY = bind("sched_getaffinity");

    /**
     * The outcome of a pin request.
     *
     * @param pinned whether the thread now runs only on the core.
     * @param reason why not, or "" when pinned.
     */
    public record Result(boolean pinned, String reason)
    {
    }

    private CpuAffinity()
    {
    }

    /**
     * Pins the calling thread to {@code core}.
     */
    public static Result pinCurrentThread(final int core)
    {
        if (core < 0 || core >= MAX_CORES)
        {
            return new Result(false, "core " + core + " is out of range 0.." + (MAX_CORES - 1));
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURED);
            final MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            mask.set(JAVA_BYTE, core / 8, (byte)(1 << (core % 8)));
            final int result = (int)SCHED_SETAFFINITY.invokeExact(state, 0, (long)CPU_SET_BYTES, mask);
            if (result != 0)
            {
                final int errno = (int)ERRNO.get(state, 0L);
                return new Result(false, "sched_setaffinity(core " + core + ") failed: " + describe(errno));
            }
            return new Result(true, "");
        }
        catch (final Throwable ex)
        {
            return new Result(false, "sched_setaffinity(core " + core + ") could not be called: " + ex);
        }
    }

    /**
     * The cores the calling thread may run on now, as a bit set (bit i = core i), or {@code null} if the call
     * failed.
     */
    public static BitSet currentAffinity()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURED);
            final MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            final int result = (int)SCHED_GETAFFINITY.invokeExact(state, 0, (long)CPU_SET_BYTES, mask);
            return result == 0 ? BitSet.valueOf(mask.toArray(JAVA_LONG)) : null;
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }

    private static String describe(final int errno)
    {
        return switch (errno)
        {
            case 22 -> "EINVAL (the core is not online or not in this process's allowed set, e.g. a cgroup cpuset)";
            case 1 -> "EPERM (not permitted to change this thread's affinity)";
            case 3 -> "ESRCH (no such thread)";
            case 14 -> "EFAULT (bad mask address)";
            default -> "errno " + errno;
        };
    }

    private static MethodHandle bind(final String name)
    {
        final Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().findOrThrow(name),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
            Linker.Option.captureCallState("errno"));
    }
}
