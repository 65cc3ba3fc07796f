/**
 * The Akka Typed pipeline: CPU dispatchers, the RX-queue, socket, mapping, qdisc and TX-queue actors, and
 * the public embedding API. Arrives with the actor pipeline issue; the package is empty until then.
 */
package io.xmit.actors;
