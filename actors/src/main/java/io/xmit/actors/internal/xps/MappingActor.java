package io.xmit.actors.internal.xps;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.QueueExplanation;
import io.xmit.actors.XpsChange;
import io.xmit.actors.internal.stage.Supervision;
import io.xmit.actors.stats.XpsMapsFile;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.SelectionRule;
import io.xmit.pipeline.xps.SocketQueueState;
import io.xmit.pipeline.xps.TxQueueSelector;
import io.xmit.pipeline.xps.XpsMask;
import org.slf4j.Logger;

import java.io.UncheckedIOException;

/**
 * The owner of one device port's XPS maps and real TX queue count (kernel-semantics §2.5–§2.7). Each change is
 * validated, applied to a new immutable {@link QueueMap} and published to the port's senders, who read it with one
 * volatile load; the reply says what changed or why it was refused. Shrinking the queue count takes effect for
 * sockets with a cached queue by {@code pickTx}'s bound check (§1.4), never by scanning sockets; packets already in
 * the rings of queues beyond the new count still leave through them. Each change published is written to the
 * pipeline's {@link XpsMapsFile} before the reply, so a tool in another process sees it once the caller has heard; a
 * file that cannot be written is logged and leaves the change in force.
 * <p>
 * Supervision: resume. A command that throws (a bug, not bad input, which is a refused reply) leaves the published
 * map as it was.
 */
public final class MappingActor
{
    public sealed interface Command permits SetXpsCpus, SetXpsRxqs, SetTxQueueCount, Explain
    {
    }

    /** Writes {@code queues/tx-<txq>/xps_cpus}: a hex CPU mask as sysfs takes it (§2.5). */
    public record SetXpsCpus(int txq, String mask, ActorRef<XpsChange> replyTo) implements Command
    {
    }

    /** Writes {@code queues/tx-<txq>/xps_rxqs}: a hex RX-queue mask (§2.5). */
    public record SetXpsRxqs(int txq, String mask, ActorRef<XpsChange> replyTo) implements Command
    {
    }

    /** {@code netif_set_real_num_tx_queues}: 1..the device's TX queues (§2.7). */
    public record SetTxQueueCount(int count, ActorRef<XpsChange> replyTo) implements Command
    {
    }

    /** Which TX queue a connected socket of {@code flow}, sending from {@code cpu}, that last received on
     * {@code rxQueue} (or -1), would be given now, and by which rule. */
    public record Explain(FlowKey flow, int cpu, int rxQueue, ActorRef<QueueExplanation> replyTo) implements Command
    {
    }

    private MappingActor()
    {
    }

    public static Behavior<Command> create(final PortContext port, final int deviceTxQueues, final XpsMapsFile file)
    {
        return Supervision.control(Behaviors.setup(context ->
        {
            final Published published = map -> publish(port, file, map, context.getLog());
            return Behaviors.receiveMessage((Command command) ->
            {
                switch (command)
                {
                    case SetXpsCpus set -> apply(port, published, set.replyTo(), "xps_cpus", set.txq(), () ->
                        port.queueMap().withXpsCpus(set.txq(),
                            XpsMask.parseCpus(set.mask(), port.queueMap().numCpus(), set.txq())));
                    case SetXpsRxqs set -> apply(port, published, set.replyTo(), "xps_rxqs", set.txq(), () ->
                        port.queueMap().withXpsRxqs(set.txq(),
                            XpsMask.parseRxqs(set.mask(), port.queueMap().numRxQueues(), set.txq())));
                    case SetTxQueueCount set -> setTxQueueCount(port, published, deviceTxQueues, set);
                    case Explain explain -> explain.replyTo().tell(explain(port, explain));
                }
                return Behaviors.same();
            });
        }));
    }

    /** Where a changed map goes: to the senders, then to the maps file. */
    private interface Published
    {
        void publish(QueueMap map);
    }

    private static void publish(final PortContext port, final XpsMapsFile file, final QueueMap map, final Logger log)
    {
        port.publish(map);
        try
        {
            file.update(port.port(), map);
        }
        catch (final UncheckedIOException ex)
        {
            log.warn("port {}: the XPS maps changed, but {}; xmit stat --xps and xmit explain --live show the " +
                "maps before the change", port.port(), ex.getMessage() + " (" + ex.getCause().getMessage() + ")");
        }
    }

    private interface Change
    {
        QueueMap apply();
    }

    private static void apply(final PortContext port, final Published published, final ActorRef<XpsChange> replyTo,
        final String attribute, final int txq, final Change change)
    {
        final QueueMap before = port.queueMap();
        try
        {
            final QueueMap after = change.apply();
            published.publish(after);
            replyTo.tell(new XpsChange(true, "port " + port.port() + " tx-" + txq + " " + attribute + " = " +
                (attribute.equals("xps_cpus") ? after.xpsCpus(txq) : after.xpsRxqs(txq)), after));
        }
        catch (final IllegalArgumentException ex)
        {
            replyTo.tell(new XpsChange(false, "port " + port.port() + ": refused: " + ex.getMessage(), before));
        }
    }

    private static void setTxQueueCount(final PortContext port, final Published published, final int deviceTxQueues,
        final SetTxQueueCount set)
    {
        final QueueMap before = port.queueMap();
        if (set.count() < 1 || set.count() > deviceTxQueues)
        {
            set.replyTo().tell(new XpsChange(false, "port " + port.port() + ": refused: TX queue count " +
                set.count() + " is not in 1.." + deviceTxQueues + " (the device's TX queues)", before));
            return;
        }
        final QueueMap after = before.withRealNumTx(set.count());
        published.publish(after);
        set.replyTo().tell(new XpsChange(true, "port " + port.port() + ": real TX queues " + before.realNumTx() +
            " -> " + after.realNumTx(), after));
    }

    private static QueueExplanation explain(final PortContext port, final Explain explain)
    {
        final QueueMap map = port.queueMap();
        final SocketQueueState socket = new SocketQueueState();
        socket.connect();
        socket.recordRxQueue(explain.rxQueue());
        final int hash = port.hasher().hash(explain.flow());
        final int picked = TxQueueSelector.pickTx(map, socket, explain.cpu(), hash);
        final int queue = TxQueueSelector.queue(picked);
        final SelectionRule rule = TxQueueSelector.rule(picked);
        final String text = explain.flow() + " from cpu " + explain.cpu() + ", rx queue " + explain.rxQueue() +
            " -> tx queue " + queue + " by " + rule.label() + " (flow hash 0x" + Integer.toHexString(hash) +
            ", " + map.realNumTx() + " real TX queues)";
        return new QueueExplanation(queue, rule, hash, text);
    }
}
