/**
 * A cluster deployment (issue 16): one HOCON file describes every node, its roles and devices, the services, the
 * inter-node data plane and the failure settings ({@link io.xmit.deploy.cluster.Deployment}, checked whole by
 * {@link io.xmit.deploy.cluster.DeploymentReader}); each node's Akka Cluster configuration is generated from it; a
 * node of it starts in any cluster ActorSystem ({@link io.xmit.deploy.cluster.ClusterNode}, its sockets' handlers
 * from {@link io.xmit.deploy.cluster.ServiceHandlers}); and {@code xmit cluster check|run|local} check it, run a
 * node, or run them all here. Akka Cluster lives only in this
 * package of {@code deploy}: an application that embeds one pipeline depends on {@code actors} and pulls none of it.
 */
package io.xmit.deploy.cluster;
