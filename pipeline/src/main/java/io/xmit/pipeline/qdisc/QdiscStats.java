package io.xmit.pipeline.qdisc;

/**
 * A qdisc's counters, the kernel's bstats and qstats (kernel-semantics §4.10, §5.6). Written only by the qdisc's
 * owner; publishing them to the counters file is the owning actor's job.
 * <ul>
 *   <li>{@code packets}/{@code bytes}: bstats, counted once per packet when it first leaves for the driver: at
 *   dequeue from a band (the kernel counts at dequeue, not at completion) or, for a bypassed descriptor, when its
 *   batch completes. A requeued packet is not counted again.</li>
 *   <li>{@code drops}: every packet refused, whatever the reason; {@code oversize} is the subset that did not fit
 *   a slot.</li>
 *   <li>{@code requeues}: packets put back at the head after the driver refused them (§4.6).</li>
 *   <li>{@code qlen}/{@code backlog}: packets and bytes queued now, the requeue list included; packets in a batch
 *   awaiting completion are not queued.</li>
 * </ul>
 */
public final class QdiscStats
{
    long packets;
    long bytes;
    long drops;
    long oversize;
    long requeues;
    int qlen;
    long backlog;

    public long packets()
    {
        return packets;
    }

    public long bytes()
    {
        return bytes;
    }

    public long drops()
    {
        return drops;
    }

    public long oversize()
    {
        return oversize;
    }

    public long requeues()
    {
        return requeues;
    }

    public int qlen()
    {
        return qlen;
    }

    public long backlog()
    {
        return backlog;
    }

    @Override
    public String toString()
    {
        return "QdiscStats{packets=" + packets + ", bytes=" + bytes + ", drops=" + drops + ", oversize=" + oversize +
            ", requeues=" + requeues + ", qlen=" + qlen + ", backlog=" + backlog + "}";
    }
}
