/**
 * CPUs: each xmit CPU is an Akka dispatcher {@code xmit.cpu-i} with exactly one thread, optionally pinned to a core,
 * and that thread knows its CPU index ({@link io.xmit.actors.cpu.CpuThread#currentCpu()}), which is the sender CPU
 * for XPS.
 */
package io.xmit.actors.cpu;
