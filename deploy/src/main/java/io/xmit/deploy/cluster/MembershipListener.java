package io.xmit.deploy.cluster;

import akka.actor.Address;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;

import java.util.function.Consumer;

/**
 * The actor that hears the cluster's member and reachability events on a node and hands each, as a
 * {@link MembershipLog.Change} of a named node, to the log; {@code print} gets the lines. The guardian of a node's
 * ActorSystem.
 */
final class MembershipListener
{
    private MembershipListener()
    {
    }

    static Behavior<ClusterEvent.ClusterDomainEvent> create(final MembershipLog log, final Consumer<String> print)
    {
        return Behaviors.setup(context ->
        {
            final Cluster cluster = Cluster.get(context.getSystem());
            cluster.subscriptions().tell(Subscribe.create(context.getSelf().narrow(), ClusterEvent.MemberEvent.class));
            cluster.subscriptions().tell(Subscribe.create(context.getSelf().narrow(),
                ClusterEvent.ReachabilityEvent.class));
            return Behaviors.receive(ClusterEvent.ClusterDomainEvent.class)
                .onMessage(ClusterEvent.MemberJoined.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.JOINED))
                .onMessage(ClusterEvent.MemberUp.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.UP))
                .onMessage(ClusterEvent.MemberLeft.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.LEFT))
                .onMessage(ClusterEvent.MemberExited.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.EXITED))
                .onMessage(ClusterEvent.MemberDowned.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.DOWNED))
                .onMessage(ClusterEvent.MemberRemoved.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.REMOVED))
                .onMessage(ClusterEvent.UnreachableMember.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.UNREACHABLE))
                .onMessage(ClusterEvent.ReachableMember.class, event ->
                    said(log, print, event.member().address(), MembershipLog.Change.REACHABLE))
                .build();
        });
    }

    private static Behavior<ClusterEvent.ClusterDomainEvent> said(final MembershipLog log,
        final Consumer<String> print, final Address address, final MembershipLog.Change change)
    {
        log.on(log.nameOf(address.getHost().orElse("?"), (Integer)address.getPort().orElse(0)), change)
            .forEach(print);
        return Behaviors.same();
    }
}
