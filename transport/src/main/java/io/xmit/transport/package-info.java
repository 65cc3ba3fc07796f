/**
 * The transport layer: the NIC driver shim ({@code nic}: C under {@code src/main/c}, built by Maven and bound
 * through FFM) with its {@code loop} and {@code null} backends, core pinning ({@code cpu}), and the Aeron IPC
 * rings that carry packets between pipeline stages ({@code ring}).
 */
package io.xmit.transport;
