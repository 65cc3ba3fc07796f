package io.xmit.deploy.cluster;

import java.util.Optional;

/**
 * A UDP service spread over the cluster: the address the world sends to (a device of an edge node, one of its ports,
 * a UDP port), the handler class that answers, the role of the nodes that host its sockets, their placement and how
 * datagrams are steered among them.
 *
 * @param handler the class name of the handler, or empty for an application that registers one in code.
 */
public record Service(String name, String device, int port, int udp, Optional<String> handler, Role role,
    Placement placement, Steering steering)
{
    /** How the edge picks a socket of the service for a datagram. */
    public enum Steering
    {
        /** Rendezvous hashing of the frame's flow hash over the live sockets: losing one moves only its flows. */
        FLOW_HASH("flow-hash");

        private final String label;

        Steering(final String label)
        {
            this.label = label;
        }

        public String label()
        {
            return label;
        }
    }
}
