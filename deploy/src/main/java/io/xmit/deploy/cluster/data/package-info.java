/**
 * The data path between the nodes of a cluster deployment: an edge node's RX queues publish a remote socket's
 * datagrams to its node over an Aeron UDP ring (the IPC rings' frame format, the RX queue in the header), the remote
 * socket's node reads them with the receive-side doorbell, and its sends come back over UDP to the edge, which relays
 * them into its qdisc rings. Membership (bind, unbind, a node's leaving or loss) travels as Akka messages of
 * {@link io.xmit.deploy.cluster.data.DataPlaneMessage}, never per packet.
 */
package io.xmit.deploy.cluster.data;
