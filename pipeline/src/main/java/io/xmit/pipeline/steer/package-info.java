/**
 * Steering a datagram to one member of a socket group that spans nodes: rendezvous (highest-random-weight) hashing
 * of the frame's flow hash over the live members, precomputed into an immutable slot table so that a lookup is one
 * array read and losing a member moves only that member's flows.
 */
package io.xmit.pipeline.steer;
