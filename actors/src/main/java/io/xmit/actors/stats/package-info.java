/**
 * The pipeline's counters: every number an operator watches (per-queue packets, bytes, drops by reason, qdisc
 * bypasses and bulk sizes, TX stops and wakes, socket back-pressure) as an Agrona counter with a type id and a
 * label, in a memory-mapped file that another process reads the way AeronStat reads Aeron's CnC file. The
 * package owns the counter kinds, the file's layout and lifecycle, and the read-only view of a file; and, beside the
 * counters file, the file of the XPS maps in force ({@link io.xmit.actors.stats.XpsMapsFile}).
 */
package io.xmit.actors.stats;
