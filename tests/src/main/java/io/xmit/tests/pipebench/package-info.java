/**
 * Side-by-side throughput of whole TX pipelines on the {@code null} NIC backend: the xmit pipeline
 * ({@link io.xmit.tests.pipebench.XmitPipelineVariant}), the per-packet Akka pipeline in two layouts
 * ({@link io.xmit.tests.pipebench.NaivePipeline}) and the driver alone
 * ({@link io.xmit.tests.pipebench.RawDriverVariant}), all behind {@link io.xmit.tests.pipebench.PipelineVariant} and
 * compared round by round in one process by {@link io.xmit.tests.pipebench.PipelineBench} ({@code ./bench-pipeline}).
 */
package io.xmit.tests.pipebench;
