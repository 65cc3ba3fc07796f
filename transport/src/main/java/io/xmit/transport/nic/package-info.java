/**
 * The NIC driver as the pipeline sees it: {@link io.xmit.transport.nic.NicDevice} opens a device of the C shim
 * ({@code src/main/c}, bound through FFM) from a {@link io.xmit.transport.nic.NicSpec}; each port is a
 * {@link io.xmit.transport.nic.NicDriver} with burst transmit and receive, completions, RX interrupts, RSS
 * settings, statistics and fault injection.
 */
package io.xmit.transport.nic;
