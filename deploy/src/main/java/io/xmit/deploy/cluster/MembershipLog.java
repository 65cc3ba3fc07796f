package io.xmit.deploy.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a node says about the cluster's membership as it changes: one line per change of a member, named by its node
 * name in the deployment, with how many of the file's nodes are up; and once every node of the file is up, a line
 * saying so. Also remembers each member's last change, which tells a node leaving whether the cluster let it go.
 * Pure: the {@link MembershipListener} feeds it Akka's events. Thread-safe (the listener writes, the node's main
 * thread reads).
 */
final class MembershipLog
{
    /** A change of one member, as Akka's member and reachability events report them. */
    enum Change
    {
        JOINED("joining"),
        UP("up"),
        LEFT("leaving"),
        EXITED("exiting"),
        DOWNED("downed"),
        REMOVED("removed"),
        UNREACHABLE("unreachable"),
        REACHABLE("reachable again");

        private final String label;

        Change(final String label)
        {
            this.label = label;
        }

        String label()
        {
            return label;
        }
    }

    private final Deployment deployment;
    private final Set<String> up = new LinkedHashSet<>();
    private final Map<String, Change> last = new HashMap<>();
    private boolean allUpSaid;

    MembershipLog(final Deployment deployment)
    {
        this.deployment = deployment;
    }

    /** The deployment's name of the node at {@code host:port}, or {@code host:port} for a member not in the file. */
    String nameOf(final String host, final int port)
    {
        for (final Node node : deployment.nodes())
        {
            if (node.host().equals(host) && node.port() == port)
            {
                return node.name();
            }
        }
        return host + ":" + port;
    }

    /** The lines for {@code change} of {@code member} (a node name, or {@code host:port}). */
    synchronized List<String> on(final String member, final Change change)
    {
        last.put(member, change);
        switch (change)
        {
            case UP -> up.add(member);
            case LEFT, EXITED, DOWNED, REMOVED -> up.remove(member);
            default ->
            {
                // Joining and reachability change nothing about who is up.
            }
        }
        final int nodes = deployment.nodes().size();
        final List<String> lines = new ArrayList<>();
        lines.add("member " + member + " " + change.label() + " (" + up.size() + " of " + nodes + " nodes up)");
        final boolean allUp = up.containsAll(deployment.nodeNames());
        if (allUp && !allUpSaid)
        {
            lines.add("all " + nodes + " nodes up");
        }
        allUpSaid = allUp;
        return lines;
    }

    /** The last change seen of {@code member}, or null if none was. */
    synchronized Change last(final String member)
    {
        return last.get(member);
    }
}
