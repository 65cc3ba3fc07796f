/**
 * The benchmarks behind {@code xmit bench}: the {@code tx} scenario ({@link io.xmit.deploy.bench.TxBench}), whole TX
 * paths side by side on the {@code null} device behind {@link io.xmit.deploy.bench.TxVariant} (xmit and its ablations,
 * the lock-protected qdisc, the per-packet Akka pipeline, bare Aeron IPC), and the {@code rr} scenario
 * ({@link io.xmit.deploy.bench.RrBench}), closed-loop request/response over the {@code loop} device by XPS mode, the
 * clients being pipeline sockets whose handlers send the next request ({@code RrFlow}). Variants
 * run alternately in one process and each figure is summarised over rounds ({@link io.xmit.deploy.bench.Stat}). The
 * {@code cluster} scenario ({@link io.xmit.deploy.bench.ClusterBench}) runs each variant in child JVMs instead
 * ({@code BenchProcess}, {@link io.xmit.deploy.bench.ClusterBenchChild}): one node, an edge and two app nodes over
 * the cluster's data path, and bare Aeron UDP; its failover phase ({@link io.xmit.deploy.bench.FailoverPhase}) kills
 * app nodes under load and times how long their flows go unanswered ({@code FailoverChild}).
 */
package io.xmit.deploy.bench;
