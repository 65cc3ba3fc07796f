/**
 * The mapping actor that owns each port's XPS maps and queue count, and the per-port context the send path reads.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.xps;
