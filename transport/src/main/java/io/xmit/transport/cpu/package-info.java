/**
 * Binding pipeline threads to cores: {@link io.xmit.transport.cpu.CpuAffinity} calls {@code sched_setaffinity}
 * through FFM and reports failures as values.
 */
package io.xmit.transport.cpu;
