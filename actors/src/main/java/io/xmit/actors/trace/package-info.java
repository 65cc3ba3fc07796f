/**
 * Message-level tracing: which packets are traced ({@link io.xmit.actors.trace.TraceSelector}), the small fixed-size
 * event each pipeline stage writes for a traced packet into one many-producer ring
 * ({@link io.xmit.actors.trace.Tracer}, {@link io.xmit.actors.trace.TracePoint}), and the writer that turns those
 * events into a pcapng file and log lines on {@code xmit.trace}, with a reader for {@code xmit trace show}
 * ({@link io.xmit.actors.trace.PcapngReader}).
 */
package io.xmit.actors.trace;
