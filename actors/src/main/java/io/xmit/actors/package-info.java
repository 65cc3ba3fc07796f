/**
 * xmit's embedding API for Akka Typed applications: start a {@link io.xmit.actors.Pipeline} in an
 * {@code ActorSystem} from a {@link io.xmit.actors.PipelineConfig}, open {@link io.xmit.actors.UdpSocket}s on it, and
 * read its books ({@link io.xmit.actors.Accounting}, {@link io.xmit.actors.StopReport}) and counters. Everything an
 * application names lives here and in {@code config}, {@code cpu}, {@code stats} and {@code trace}; the stages
 * themselves are in {@code io.xmit.actors.internal}.
 */
package io.xmit.actors;
