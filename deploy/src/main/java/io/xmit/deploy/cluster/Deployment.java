package io.xmit.deploy.cluster;

import com.typesafe.config.Config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A cluster deployment, read from one HOCON file ({@link DeploymentReader}) and checked whole: every node, the seeds
 * that form the cluster, the devices of the edge nodes, the services, the inter-node data plane and the failure
 * settings; and what the file sets under {@code akka { … }}, which overrides what is generated for each node
 * ({@link NodeAkkaConfig}). Every node is started from the same file and its own name.
 *
 * @param name     the cluster's name: every node's ActorSystem has it.
 * @param seeds    the names of the seed nodes, the first of which may form the cluster alone.
 * @param akka     the file's {@code akka} section, or an empty configuration.
 */
public record Deployment(String name, List<Node> nodes, List<String> seeds, List<Service> services,
    DataPlane dataPlane, FailureSettings failure, Config akka)
{
    public Deployment
    {
        nodes = List.copyOf(nodes);
        seeds = List.copyOf(seeds);
        services = List.copyOf(services);
    }

    /** Reads and checks a deployment file; see {@link DeploymentReader#read}. */
    public static Deployment read(final Path file)
    {
        return DeploymentReader.read(file);
    }

    public Optional<Node> node(final String nodeName)
    {
        return nodes.stream().filter(node -> node.name().equals(nodeName)).findFirst();
    }

    /** The node called {@code nodeName}; @throws IllegalArgumentException naming the nodes there are. */
    public Node requireNode(final String nodeName)
    {
        return node(nodeName).orElseThrow(() -> new IllegalArgumentException("no node '" + nodeName + "' in the " +
            "file; its nodes are " + String.join(", ", nodeNames())));
    }

    public List<String> nodeNames()
    {
        return nodes.stream().map(Node::name).toList();
    }

    /** The services whose sockets {@code node} may host: those of a role it has. */
    public List<Service> servicesOf(final Node node)
    {
        return services.stream().filter(service -> node.has(service.role())).toList();
    }

    /** The Akka configuration of {@code node}: generated from the file, the file's {@code akka} over it. */
    public Config akkaConfig(final Node node)
    {
        return NodeAkkaConfig.of(this, node);
    }
}
