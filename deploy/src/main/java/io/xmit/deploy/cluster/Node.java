package io.xmit.deploy.cluster;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * One node of the cluster, a JVM of its own: where Akka reaches it (Artery TCP on {@code host:port}), where its
 * inter-node streams arrive (Aeron UDP on {@code host:dataPort}), its roles and, on an edge, its devices.
 */
public record Node(String name, String host, int port, int dataPort, Set<Role> roles, List<Device> devices)
{
    public Node
    {
        roles = Set.copyOf(roles);
        devices = List.copyOf(devices);
    }

    public boolean has(final Role role)
    {
        return roles.contains(role);
    }

    /** Its roles in the file's words, in {@link Role}'s order: {@code edge, app}. */
    public List<String> roleLabels()
    {
        return Arrays.stream(Role.values()).filter(roles::contains).map(Role::label).toList();
    }

    /** Akka's address of this node in cluster {@code system}: {@code akka://echo@127.0.0.1:25520}. */
    public String akkaAddress(final String system)
    {
        return "akka://" + system + "@" + host + ":" + port;
    }
}
