package io.xmit.transport.nic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What {@link NicDriver#txReclaim(int, TxCompletion)} reports: packets and bytes completed on a TX queue since
 * the previous reclaim. Reusable; its 16 native bytes are freed with it by the garbage collector.
 */
public final class TxCompletion
{
    final MemorySegment segment = Arena.ofAuto().allocate(16, 8);
    final long address = segment.address();

    /** Packets completed by the last reclaim. */
    public long packets()
    {
        return segment.get(JAVA_LONG, 0);
    }

    /** Bytes completed by the last reclaim. */
    public long bytes()
    {
        return segment.get(JAVA_LONG, 8);
    }

    @Override
    public String toString()
    {
        return "TxCompletion[packets=" + packets() + ", bytes=" + bytes() + "]";
    }
}
