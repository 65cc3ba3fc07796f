package io.xmit.actors.internal.lifecycle;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags a pipeline needs (docs/stack.md), checked before anything is made: without the export, Agrona's first
 * use of {@code jdk.internal.misc.Unsafe} throws an {@link IllegalAccessError} from deep inside the start, after
 * threads that keep the JVM alive have begun.
 */
public final class JvmFlags
{
    public static final String ADD_EXPORTS = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    public static final String UNSAFE_MEMORY_ACCESS = "--sun-misc-unsafe-memory-access=allow";
    public static final String ALL = ADD_EXPORTS + " " + NATIVE_ACCESS + " " + UNSAFE_MEMORY_ACCESS;

    private JvmFlags()
    {
    }

    /**
     * @throws IllegalStateException naming the flags this JVM lacks, and all three to pass (the third, for Akka's
     *                               mailboxes, cannot be seen from here: without it JDK 25 warns).
     */
    public static void check()
    {
        final Module xmit = JvmFlags.class.getModule();
        final List<String> missing = new ArrayList<>();
        if (!Object.class.getModule().isExported("jdk.internal.misc", xmit))
        {
            missing.add(ADD_EXPORTS + " (Agrona)");
        }
        if (!xmit.isNativeAccessEnabled())
        {
            missing.add(NATIVE_ACCESS + " (the NIC shim and core pinning, through FFM)");
        }
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("xmit needs the JVM flags " + ALL + "; this JVM lacks " +
                String.join(" and ", missing) + ": add them to the java command line (or surefire's argLine, " +
                "exec's arguments, the IDE's VM options)");
        }
    }
}
