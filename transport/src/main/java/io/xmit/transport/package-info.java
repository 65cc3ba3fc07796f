/**
 * The transport layer: the NIC driver shim (C under {@code src/main/c}, built by Maven and bound through
 * FFM) with its {@code loop} and {@code null} backends, and the Aeron IPC rings that carry packets between
 * pipeline stages. Arrives with the transport issue; the package is empty until then.
 */
package io.xmit.transport;
