/**
 * The pipeline's stages as plain duty-cycle objects, without Akka: each has one bounded {@code poll()} that returns
 * the work it did, so it can be unit-tested and benchmarked on its own; the actors in {@code io.xmit.actors} only
 * schedule them. The sockets' send path lives here too, running on the caller's thread.
 */
package io.xmit.actors.engine;
