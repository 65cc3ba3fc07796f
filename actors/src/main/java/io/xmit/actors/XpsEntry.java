package io.xmit.actors;

/**
 * Explicit XPS masks for one TX queue ({@code xmit.xps.maps}), in the kernel's sysfs hex form; a null mask leaves
 * that map alone.
 *
 * @param port the device port.
 * @param txq  the TX queue of that port.
 * @param cpus the {@code xps_cpus} mask, or null.
 * @param rxqs the {@code xps_rxqs} mask, or null.
 */
public record XpsEntry(int port, int txq, String cpus, String rxqs)
{
}
