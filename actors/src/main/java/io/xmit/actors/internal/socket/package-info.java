/**
 * Sockets inside the pipeline: the send path behind {@link io.xmit.actors.UdpSocket}, the socket table (bind,
 * connect, SO_REUSEPORT groups), the receivers that hand datagrams to applications, and the gate a stop closes.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.socket;
