/**
 * Side-by-side throughput of whole TX pipelines on the {@code null} NIC backend: the per-packet Akka pipeline
 * ({@link io.xmit.tests.pipebench.NaivePipeline}), the driver alone ({@link io.xmit.tests.pipebench.RawDriverVariant})
 * and, once it exists, the real xmit pipeline, all behind {@link io.xmit.tests.pipebench.PipelineVariant} and
 * compared round by round in one process by {@link io.xmit.tests.pipebench.PipelineBench}.
 */
package io.xmit.tests.pipebench;
